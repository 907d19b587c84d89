/*
 * How many descriptors the test process has open: the entries of
 * /proc/self/fd, the directory's own among them, so two counts compare.
 * For ATF-C test programs.
 */
static int
count_fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	ATF_REQUIRE(closedir(d) == 0);
	return n;
}
