/*
 * libFuzzer harness for the configuration parser.  Each input is written
 * to a file and parsed; a configuration that parses is printed, and the
 * printed form must parse again and print the same (normalization is a
 * fixed point).  LeakSanitizer checks that every path frees what it took.
 */

#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static char	 in_path[] = "/tmp/fuzz_config.in.XXXXXX";
static char	 out_path[] = "/tmp/fuzz_config.out.XXXXXX";
static int	 in_fd = -1, out_fd = -1;

static void
cleanup(void)
{
	if (in_fd != -1)
		unlink(in_path);
	if (out_fd != -1)
		unlink(out_path);
}

static void
put(int fd, const void *buf, size_t len)
{
	if (ftruncate(fd, 0) == -1 ||
	    pwrite(fd, buf, len, 0) != (ssize_t)len)
		abort();
}

/* Print into a malloc'd buffer. */
static char *
print_mem(const struct cmcp_conf *c, size_t *len)
{
	FILE	*fp;
	char	*buf = NULL;

	if ((fp = open_memstream(&buf, len)) == NULL)
		abort();
	print_config(c, fp);
	if (fclose(fp) != 0)
		abort();
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cmcp_conf	*c, *c2;
	FILE			*devnull;
	char			*out, *out2;
	size_t			 len, len2;

	if (in_fd == -1) {
		if ((in_fd = mkstemp(in_path)) == -1 ||
		    (out_fd = mkstemp(out_path)) == -1)
			abort();
		atexit(cleanup);
	}
	put(in_fd, data, size);
	if ((c = parse_config(in_path)) == NULL)
		return 0;

	if ((devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	print_config(c, devnull);
	fclose(devnull);

	out = print_mem(c, &len);
	free_config(c);
	put(out_fd, out, len);
	if ((c2 = parse_config(out_path)) == NULL) {
		fprintf(stderr, "normalized output does not parse:\n%s", out);
		abort();
	}
	out2 = print_mem(c2, &len2);
	free_config(c2);
	if (len != len2 || memcmp(out, out2, len) != 0) {
		fprintf(stderr, "normalized output is not a fixed point:\n"
		    "%s\n----\n%s", out, out2);
		abort();
	}
	free(out);
	free(out2);
	return 0;
}
