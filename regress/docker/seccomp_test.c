/*
 * The containers' seccomp profile table and its JSON (dkr_seccomp.c),
 * without an engine: the table is exactly the measured set
 * (syscalls.measured, written by syscalls-measure -c), every name is a
 * system call of this architecture, none of the interfaces issue 15
 * names is in it, and the JSON says what the table says, the same bytes
 * every time.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>
#include <cjson/cJSON.h>
#include <seccomp.h>

#include "dkr_seccomp.h"

/* The interfaces the profile exists to refuse (issue 15, 4). */
static const char *const refused[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register", "bpf",
	"userfaultfd", "perf_event_open", "keyctl", "add_key",
	"request_key", "unshare", "setns", "mount", "umount2", "fsopen",
	"fsmount", "fsconfig", "open_tree", "move_mount", "pivot_root",
	"ptrace", "process_vm_readv", "process_vm_writev", "personality",
	"kexec_load", "kexec_file_load", "init_module", "finit_module",
	"delete_module", "chroot", "swapon", "reboot", "acct",
	"open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
	"mknod", "mknodat", "quotactl", "syslog", "settimeofday",
	"clock_settime", "sethostname", "setdomainname", "lookup_dcookie",
	"vm86", "uselib", "kcmp", "seccomp"
};

static const struct dkr_sc_call *
find(const char *name)
{
	size_t	 i;

	for (i = 0; i < dkr_sc_ncalls; i++)
		if (strcmp(dkr_sc_calls[i].name, name) == 0)
			return &dkr_sc_calls[i];
	return NULL;
}

ATF_TC_WITHOUT_HEAD(table_names_are_calls_once);
ATF_TC_BODY(table_names_are_calls_once, tc)
{
	size_t	 i, j;

	(void)tc;
	ATF_REQUIRE(dkr_sc_ncalls > 0);
	for (i = 0; i < dkr_sc_ncalls; i++) {
		if (seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64,
		    dkr_sc_calls[i].name) == __NR_SCMP_ERROR)
			atf_tc_fail("%s: not a system call",
			    dkr_sc_calls[i].name);
		for (j = i + 1; j < dkr_sc_ncalls; j++)
			if (strcmp(dkr_sc_calls[i].name,
			    dkr_sc_calls[j].name) == 0)
				atf_tc_fail("%s: twice", dkr_sc_calls[i].name);
	}
}

ATF_TC_WITHOUT_HEAD(table_is_the_measured_set);
ATF_TC_BODY(table_is_the_measured_set, tc)
{
	char	 path[1024], line[128];
	FILE	*f;
	size_t	 n = 0, len;

	snprintf(path, sizeof(path), "%s/syscalls.measured",
	    atf_tc_get_config_var(tc, "srcdir"));
	ATF_REQUIRE_MSG((f = fopen(path, "r")) != NULL, "%s: %s", path,
	    strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		len = strcspn(line, "\n");
		line[len] = '\0';
		if (len == 0)
			continue;
		if (find(line) == NULL)
			atf_tc_fail("%s: measured, not in the table", line);
		n++;
	}
	fclose(f);
	/* each measured once (the table has no twins): the same sets */
	ATF_CHECK_EQ_MSG(n, dkr_sc_ncalls, "%zu measured, %zu in the table",
	    n, dkr_sc_ncalls);
}

ATF_TC_WITHOUT_HEAD(table_refuses_the_named_interfaces);
ATF_TC_BODY(table_refuses_the_named_interfaces, tc)
{
	size_t	 i;

	(void)tc;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ATF_REQUIRE(seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64,
		    refused[i]) != __NR_SCMP_ERROR);
		if (find(refused[i]) != NULL)
			atf_tc_fail("%s: allowed", refused[i]);
	}
	/* the two with a mode that matters, each only without it */
	ATF_CHECK_EQ(find("clone")->rule, DKR_SC_CLONE);
	ATF_CHECK_EQ(find("clone3")->rule, DKR_SC_ENOSYS);
	ATF_CHECK_EQ(find("socket")->rule, DKR_SC_AF_UNIX);
}

/* The entry of "syscalls" that names name; NULL when none. */
static const cJSON *
entry(const cJSON *root, const char *name, int *count)
{
	const cJSON	*e, *n, *found = NULL;

	*count = 0;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root,
	    "syscalls"))
		cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(e,
		    "names"))
			if (cJSON_IsString(n) &&
			    strcmp(n->valuestring, name) == 0) {
				found = e;
				(*count)++;
			}
	return found;
}

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : "";
}

static double
num(const cJSON *o, const char *k)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

ATF_TC_WITHOUT_HEAD(json_says_what_the_table_says);
ATF_TC_BODY(json_says_what_the_table_says, tc)
{
	char		*s, *again, *printed;
	cJSON		*root;
	const cJSON	*e, *a;
	size_t		 i;
	int		 c;

	(void)tc;
	ATF_REQUIRE((s = dkr_seccomp_json(0)) != NULL);
	ATF_REQUIRE((again = dkr_seccomp_json(0)) != NULL);
	ATF_CHECK_STREQ(s, again);
	ATF_REQUIRE((root = cJSON_Parse(s)) != NULL);
	ATF_REQUIRE((printed = cJSON_PrintUnformatted(root)) != NULL);
	ATF_CHECK_STREQ_MSG(printed, s, "not canonical");
	ATF_CHECK_STREQ(str(root, "defaultAction"), "SCMP_ACT_ERRNO");
	ATF_CHECK_EQ(num(root, "defaultErrnoRet"), 1);
	for (i = 0; i < dkr_sc_ncalls; i++) {
		e = entry(root, dkr_sc_calls[i].name, &c);
		if (c != 1)
			atf_tc_fail("%s: in %d entries", dkr_sc_calls[i].name,
			    c);
		a = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(e,
		    "args"), 0);
		switch (dkr_sc_calls[i].rule) {
		case DKR_SC_ALLOW:
			ATF_CHECK_STREQ(str(e, "action"), "SCMP_ACT_ALLOW");
			ATF_CHECK(cJSON_GetObjectItemCaseSensitive(e, "args") ==
			    NULL);
			break;
		case DKR_SC_CLONE:
			ATF_CHECK_STREQ(str(e, "action"), "SCMP_ACT_ALLOW");
			ATF_CHECK_STREQ(str(a, "op"), "SCMP_CMP_MASKED_EQ");
			ATF_CHECK_EQ(num(a, "index"), 0);
			ATF_CHECK_EQ(num(a, "value"), DKR_SECCOMP_CLONE_NEW);
			ATF_CHECK_EQ(num(a, "valueTwo"), 0);
			break;
		case DKR_SC_AF_UNIX:
			ATF_CHECK_STREQ(str(e, "action"), "SCMP_ACT_ALLOW");
			ATF_CHECK_STREQ(str(a, "op"), "SCMP_CMP_EQ");
			ATF_CHECK_EQ(num(a, "index"), 0);
			ATF_CHECK_EQ(num(a, "value"), 1);
			break;
		case DKR_SC_ENOSYS:
			ATF_CHECK_STREQ(str(e, "action"), "SCMP_ACT_ERRNO");
			ATF_CHECK_EQ(num(e, "errnoRet"), 38);
			break;
		}
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		(void)entry(root, refused[i], &c);
		ATF_CHECK_EQ_MSG(c, 0, "%s in the profile", refused[i]);
	}
	cJSON_Delete(root);
	free(printed);
	free(again);
	free(s);
	/* the measurement profile: the same table, the rest logged */
	ATF_REQUIRE((s = dkr_seccomp_json(1)) != NULL);
	ATF_REQUIRE((root = cJSON_Parse(s)) != NULL);
	ATF_CHECK_STREQ(str(root, "defaultAction"), "SCMP_ACT_LOG");
	ATF_CHECK(cJSON_GetObjectItemCaseSensitive(root, "defaultErrnoRet") ==
	    NULL);
	(void)entry(root, "read", &c);
	ATF_CHECK_EQ(c, 1);
	cJSON_Delete(root);
	free(s);
}

/*
 * What is sent is the canonical form of dkr_seccomp_json(0), built once;
 * its digest is that of any spelling of the same document and of no
 * other (one call more, the logging default).
 */
ATF_TC_WITHOUT_HEAD(sent_profile_canonical_digest);
ATF_TC_BODY(sent_profile_canonical_digest, tc)
{
	uint8_t		 ours[SHA256_DIGEST_BYTES], d[SHA256_DIGEST_BYTES];
	const char	*p;
	char		*j, *pretty;
	cJSON		*doc;

	ATF_REQUIRE((p = dkr_seccomp_profile()) != NULL);
	ATF_CHECK(dkr_seccomp_profile() == p);
	ATF_REQUIRE(dkr_seccomp_ours(ours) == 0);
	sha256(p, strlen(p), d);
	ATF_CHECK(memcmp(ours, d, sizeof(d)) == 0);
	/* the table's JSON, its members in another order, spaced */
	ATF_REQUIRE((j = dkr_seccomp_json(0)) != NULL);
	ATF_CHECK(strcmp(j, p) != 0);
	ATF_REQUIRE(dkr_seccomp_digest(j, strlen(j), d) == 0);
	ATF_CHECK(memcmp(ours, d, sizeof(d)) == 0);
	ATF_REQUIRE((doc = cJSON_Parse(j)) != NULL);
	ATF_REQUIRE((pretty = cJSON_Print(doc)) != NULL);
	ATF_REQUIRE(dkr_seccomp_digest(pretty, strlen(pretty), d) == 0);
	ATF_CHECK(memcmp(ours, d, sizeof(d)) == 0);
	free(pretty);
	cJSON_Delete(doc);
	free(j);
	/* another document */
	ATF_REQUIRE((j = dkr_seccomp_json(1)) != NULL);
	ATF_REQUIRE(dkr_seccomp_digest(j, strlen(j), d) == 0);
	ATF_CHECK(memcmp(ours, d, sizeof(d)) != 0);
	free(j);
	/* not JSON, or beyond the bound */
	ATF_CHECK(dkr_seccomp_digest("unconfined", 10, d) == -1);
	ATF_CHECK(dkr_seccomp_digest("{\"a\":1}x", 8, d) == -1);
	ATF_REQUIRE((j = malloc(DKR_SECCOMP_BYTES + 2)) != NULL);
	memset(j, ' ', DKR_SECCOMP_BYTES + 1);
	j[0] = '1';
	ATF_CHECK(dkr_seccomp_digest(j, DKR_SECCOMP_BYTES - 1, d) == 0);
	ATF_CHECK(dkr_seccomp_digest(j, DKR_SECCOMP_BYTES, d) == -1);
	free(j);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, table_names_are_calls_once);
	ATF_TP_ADD_TC(tp, table_is_the_measured_set);
	ATF_TP_ADD_TC(tp, table_refuses_the_named_interfaces);
	ATF_TP_ADD_TC(tp, json_says_what_the_table_says);
	ATF_TP_ADD_TC(tp, sent_profile_canonical_digest);
	return atf_no_error();
}
