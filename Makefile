# cmcp-privsep -- GNU make, Debian 12.
#
#   make            the suite (cmcp-privsep), its test build
#                   (cmcp-privsep-test), cmcp-init, the tests and fixtures
#   make check      install packages if missing, build, run regress/ under kyua
#   make install    PREFIX=/usr/local DESTDIR=
#   make sanitize   unit tests under ASan+UBSan
#   make fuzz       libFuzzer harnesses, each run for FUZZ_SECONDS
#   make bench      every benchmark under bench/, one table
#   make demo       the store scenario (scripts/demo)
#   make evidence   the confinement evidence artifact (scripts/evidence, root)
#   make lint       mandoc -Tlint on the man pages
#   make mutate     the mutation harness on the security core's sources
#                   (regress/mutate/mutate): MUTATE_FILES, MUTATE_SECONDS,
#                   MUTATE_TIMEOUT, MUTATE_FROM, MUTATE_AGAIN,
#                   MUTATE_SANITIZE
#   make mutate-report  one table from several runs' MUTATE_RESULTS
#
# The suite's sources are listed here, a directory per process; mk/ builds
# the tests, fixtures and benchmarks.  Every program is linked from
# objects (the sanitizer builds, remade on each run, aside), and every
# object records the headers it read (-MMD -MP) in a .d file beside it:
# no header list is kept by hand.

.DEFAULT_GOAL:=	all

PREFIX?=	/usr/local
SBINDIR?=	$(PREFIX)/sbin
LIBEXECDIR?=	$(PREFIX)/libexec/cmcp-privsep
MANDIR?=	$(PREFIX)/share/man
FUZZ_SECONDS?=	20

CC?=		cc
YACC=		byacc
PKGS=		libbsd-overlay libmd libevent libseccomp
PKG_CFLAGS!=	pkg-config --cflags $(PKGS) 2>/dev/null
PKG_LIBS!=	pkg-config --libs $(PKGS) 2>/dev/null
SQLITE_CFLAGS!=	pkg-config --cflags sqlite3 2>/dev/null
SQLITE_LIBS!=	pkg-config --libs sqlite3 2>/dev/null
CJSON_CFLAGS!=	pkg-config --cflags libcjson 2>/dev/null
CJSON_LIBS!=	pkg-config --libs libcjson 2>/dev/null
CURL_CFLAGS!=	pkg-config --cflags libcurl 2>/dev/null
CURL_LIBS!=	pkg-config --libs libcurl 2>/dev/null
ATF_CFLAGS!=	pkg-config --cflags atf-c 2>/dev/null
ATF_LIBS!=	pkg-config --libs atf-c 2>/dev/null

WARN=		-Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
		-Wshadow -Wpointer-arith
HARDEN=		-D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
CPPFLAGS+=	-D_GNU_SOURCE -Icommon $(PKG_CFLAGS)
CFLAGS?=	-O2 -g
CFLAGS+=	$(WARN) $(HARDEN)
LDFLAGS+=	-pie -Wl,-z,relro,-z,now
LDLIBS+=	$(PKG_LIBS)
DEPFLAGS=	-MMD -MP

# The one binary's sources, a directory per process.
SRCS=		common/auditclient.c common/auditrec.c common/imsg.c \
		common/json.c common/log.c common/parse.c common/preflight.c \
		common/printconf.c common/privdrop.c common/proc.c \
		common/sandbox.c common/sbstream.c common/sha256.c
SRCS+=		parent/parent.c parent/cmd.c parent/control.c \
		parent/instance.c parent/mcpserver.c parent/servers.c \
		parent/session.c
SRCS+=		bridge/bridge.c bridge/frame.c bridge/front.c \
		bridge/tlist.c
SRCS+=		gateway/gateway.c gateway/mcp.c gateway/policy.c \
		gateway/sbcall.c gateway/sbrun.c gateway/tools.c
SRCS+=		auditor/auditor.c auditor/auditdb.c
SRCS+=		watchdog/watchdog.c
SRCS+=		dockerd-client/dockerd.c dockerd-client/dkr_api.c \
		dockerd-client/dkr_curl.c dockerd-client/dkr_sandbox.c \
		dockerd-client/dkr_seccomp.c dockerd-client/dkr_server.c \
		dockerd-client/dkr_template.c dockerd-client/dkr_verify.c

# What a directory's sources take from outside common/: the parent reads
# the audit store (the audit commands), dockerd-client the engine's JSON
# and HTTP.  The object rules below add CPPFLAGS.<directory of the source>.
CPPFLAGS.auditor=	$(SQLITE_CFLAGS)
CPPFLAGS.gateway=	-Ibridge
CPPFLAGS.parent=	-Iauditor -Idockerd-client $(SQLITE_CFLAGS)
CPPFLAGS.dockerd-client= $(CJSON_CFLAGS) $(CURL_CFLAGS)
# make SECCOMP_MEASURE=1 (a separate tree: regress/docker/syscalls-measure
# -s): every container is sent and admitted with the logging profile.
ifeq ($(SECCOMP_MEASURE),1)
CPPFLAGS.dockerd-client+= -DDKR_SECCOMP_MEASURE
endif
# libcurl dockerd-client loads itself (dkr_curl.c), so it is not linked.
SUITE_LIBS=	$(SQLITE_LIBS) $(CJSON_LIBS) -lm

# Only in the test build: the test-only options and probes.
TEST_SRCS=	parent/testopt.c

OBJS=		$(SRCS:%.c=obj/%.o)
TOBJS=		$(SRCS:%.c=obj-test/%.o) $(TEST_SRCS:%.c=obj-test/%.o)

PROG=		cmcp-privsep
TPROG=		cmcp-privsep-test
MANS=		man/cmcp-privsep.8 man/cmcp-privsep.conf.5

# The in-container supervisor, installed with the suite.  Static: it runs
# inside FROM-scratch images; no libbsd, so no libmd.
CMCP_INIT=	init/cmcp-init
STATIC_CFLAGS=	-O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE

.PHONY: all bench check cmcp-init deps demo evidence evidence-clean \
	install sanitize fuzz lint mutate mutate-report clean

# Tests, fixtures and benchmarks.  Each adds what it builds to ALL, what
# the top targets run to UNIT_TESTS, FUZZERS, SANITIZE and BENCH_TARGETS,
# and what clean removes to CLEANFILES.
include mk/fixtures.mk
include mk/units.mk
include mk/fuzz.mk
include mk/docker.mk
include mk/store.mk
include mk/bench.mk

all: $(PROG) $(TPROG) $(CMCP_INIT) $(UNIT_TESTS) $(ALL)

$(PROG): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS) $(SUITE_LIBS)

$(TPROG): $(TOBJS)
	$(CC) $(LDFLAGS) -o $@ $(TOBJS) $(LDLIBS) $(SUITE_LIBS)

cmcp-init: $(CMCP_INIT)

$(CMCP_INIT): obj-static/init/cmcp-init.o
	$(CC) $(STATIC_CFLAGS) -o $@ obj-static/init/cmcp-init.o

common/parse.c: common/parse.y
	$(YACC) -o $@ common/parse.y

# byacc's parser sets variables it never reads.
obj/common/parse.o obj-test/common/parse.o: \
    CFLAGS+= -Wno-unused-but-set-variable

# The suite, the test build (-DCMCP_TEST: the test-only options and
# probes), the static programs and the libFuzzer harnesses, each object
# tree mirroring the sources.
obj/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CPPFLAGS.$(<D)) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

obj-test/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CPPFLAGS.$(<D)) -DCMCP_TEST $(CFLAGS) $(DEPFLAGS) \
	    -c -o $@ $<

obj-static/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(STATIC_CFLAGS) -Icommon $(DEPFLAGS) -c -o $@ $<

FUZZ_FLAGS=	-O1 -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
		-Icommon $(PKG_CFLAGS)
obj-fuzz/%.o: %.c
	@mkdir -p $(@D)
	clang $(FUZZ_FLAGS) -DCMCP_FUZZ $(CPPFLAGS.$(<D)) $(DEPFLAGS) \
	    -c -o $@ $<

deps:
	@scripts/install-deps

check: deps
	$(MAKE) all
	scripts/check

# Every benchmark under bench/, one table at the end.
bench: deps all
	scripts/bench $(BENCH_TARGETS)

demo: deps
	$(MAKE) $(PROG) cmcp-init store
	scripts/demo

# Build, start the private engine when none runs (and stop it afterwards
# only then), load the test images, run the protected run and every
# causal mutation with the agent speaking frames and MCP and write
# evidence/observations.jsonl (names, numbers and booleans only, never
# the canary) and evidence/summary.txt, the tables it prints.  Root only.
EVIDENCE_DIR?=	evidence
evidence: all
	scripts/evidence -o $(EVIDENCE_DIR)

evidence-clean:
	rm -rf $(EVIDENCE_DIR)

install: $(PROG) $(CMCP_INIT)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0555 $(PROG) $(DESTDIR)$(SBINDIR)/$(PROG)
	install -d -m 0755 $(DESTDIR)$(LIBEXECDIR)
	install -m 0555 $(CMCP_INIT) $(DESTDIR)$(LIBEXECDIR)/cmcp-init
	install -m 0444 man/cmcp-privsep.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0444 man/cmcp-privsep.conf.5 $(DESTDIR)$(MANDIR)/man5/

# ASan+UBSan: the unit tests rebuilt instrumented into obj-san/ and run;
# float-cast-overflow too, which GCC leaves out of undefined (a double
# out of range converted to an integer).
SAN_FLAGS=	-O1 -g -fsanitize=address,undefined,float-cast-overflow \
		-fno-omit-frame-pointer \
		-fno-sanitize-recover=all
sanitize: deps $(SANITIZE)

fuzz: deps $(FUZZERS)
	@for f in $(FUZZERS); do \
	    mkdir -p obj-fuzz/$$(basename $$f); \
	    ./$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	        obj-fuzz/$$(basename $$f) regress/fuzz/corpus/$$(basename $$f) \
	        >obj-fuzz/$$(basename $$f).log 2>&1 || { \
	        echo "fuzz: $$f found a crash"; \
	        tail -n 40 obj-fuzz/$$(basename $$f).log; exit 1; }; \
	    echo "fuzz: $$f ran $(FUZZ_SECONDS)s, no crash"; done

# One mutant at a time of each source in regress/mutate/targets, its unit
# tests run on it: regress/mutate/results.tsv, summary.txt, survivors.txt.
# Unit tests only, no engine.  Long: CI runs regress/mutate/harness_test.
MUTATE_FILES?=
MUTATE_SECONDS?= 0
MUTATE_TIMEOUT?=
MUTATE_FROM?=
MUTATE_AGAIN?=
MUTATE_SANITIZE?= 1
mutate:
	MUTATE_FILES='$(MUTATE_FILES)' MUTATE_SECONDS='$(MUTATE_SECONDS)' \
	    MUTATE_TIMEOUT='$(MUTATE_TIMEOUT)' MUTATE_FROM='$(MUTATE_FROM)' \
	    MUTATE_AGAIN='$(MUTATE_AGAIN)' MUTATE_SANITIZE='$(MUTATE_SANITIZE)' \
	    regress/mutate/mutate

# The table and survivors of several runs' results (MUTATE_RESULTS, each a
# results.tsv), against the sources as they are: regress/mutate/report.
MUTATE_RESULTS?=
MUTATE_MERGED?=
mutate-report:
	MUTATE_MERGED='$(MUTATE_MERGED)' regress/mutate/report $(MUTATE_RESULTS)

lint:
	mandoc -Tlint -Wwarning $(MANS)

clean:
	rm -rf obj obj-test obj-static obj-fuzz obj-san $(PROG) $(TPROG) \
	    $(CMCP_INIT) $(UNIT_TESTS) $(ALL) $(FUZZERS) $(CLEANFILES) \
	    common/parse.c

# The headers each object was compiled from (obj/npm is npm's).
-include $(shell find obj obj-test obj-static obj-fuzz -path obj/npm -prune \
    -o -name '*.d' -print 2>/dev/null)
