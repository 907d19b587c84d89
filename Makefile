# cmcp-privsep -- GNU make, Debian 12.
#
#   make            the suite (cmcp-privsep) and the test-only build
#   make check      install packages if missing, build, run regress/ under kyua
#   make install    PREFIX=/usr/local DESTDIR=
#   make sanitize   unit tests under ASan+UBSan
#   make fuzz       libFuzzer harnesses, each run for FUZZ_SECONDS
#   make lint       mandoc -Tlint on the man pages

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

WARN=		-Wall -Wextra -Werror -Wstrict-prototypes -Wmissing-prototypes \
		-Wshadow -Wpointer-arith
HARDEN=		-D_FORTIFY_SOURCE=2 -fstack-protector-strong -fPIE
CPPFLAGS+=	-D_GNU_SOURCE -Icommon $(PKG_CFLAGS)
CFLAGS?=	-O2 -g
CFLAGS+=	$(WARN) $(HARDEN)
LDFLAGS+=	-pie -Wl,-z,relro,-z,now
LDLIBS+=	$(PKG_LIBS)

# Sources of the one binary.  A directory per process.
COMMON_SRCS=	common/imsg.c common/log.c common/proc.c common/privdrop.c \
		common/sandbox.c common/preflight.c common/parse.c \
		common/printconf.c common/auditrec.c common/sha256.c \
		common/sbstream.c
PROC_SRCS=	parent/parent.c parent/control.c bridge/bridge.c \
		gateway/gateway.c auditor/auditor.c watchdog/watchdog.c \
		dockerd-client/dockerd.c
SRCS=		$(COMMON_SRCS) $(PROC_SRCS)

OBJS=		$(SRCS:%.c=obj/%.o)
TOBJS=		$(SRCS:%.c=obj-test/%.o)

PROG=		cmcp-privsep
TPROG=		cmcp-privsep-test
MANS=		man/cmcp-privsep.8 man/cmcp-privsep.conf.5

# Unit tests (ATF C), built from the sources they test.
ATF_CFLAGS!=	pkg-config --cflags atf-c 2>/dev/null
ATF_LIBS!=	pkg-config --libs atf-c 2>/dev/null
UNIT_TESTS=	regress/common/imsg_test
imsg_test_SRCS=	regress/common/imsg_test.c common/imsg.c

FUZZERS=	regress/fuzz/fuzz_imsg regress/fuzz/fuzz_config

.PHONY: all bench check deps demo install sanitize fuzz lint clean

# Docker-side pieces (in-container init, REST client units, test images).
-include mk/docker.mk
# Agent protocol and strict JSON (units, fuzzers).
-include mk/proto.mk
# MCP client (units, fixtures, fuzzer).
-include mk/mcp.mk
# Audit store (units, benchmark).
-include mk/audit.mk
# Policy decisions (units, fuzzer).
-include mk/policy.mk
# MCP server spawning (units, fixtures).
-include mk/mcpserver.mk
# Agent fixtures and observers.
-include mk/fixtures.mk
# The store demo.
-include mk/store.mk
# The confined session: protocol, gateway, servers; bench-calls.
-include mk/session.mk
# The sandbox tool's one-shot container.
-include mk/sandbox.mk
# The watchdog benchmark.
-include mk/watchdog.mk
# The memory benchmark.
-include mk/memory.mk
# make evidence: the observations artifact.
-include mk/evidence.mk
# The official MCP servers from npm (regress/upstream, bench/upstream).
-include mk/npm.mk
# The bound matrix's fixture server.
-include mk/bounds.mk

all: $(PROG) $(TPROG) $(UNIT_TESTS) $(EXTRA_ALL)

$(PROG): $(OBJS)
	$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(TPROG): $(TOBJS)
	$(CC) $(LDFLAGS) -o $@ $(TOBJS) $(LDLIBS)

common/parse.c: common/parse.y
	$(YACC) -o $@ common/parse.y

obj/common/parse.o obj-test/common/parse.o: CFLAGS+= -Wno-unused-but-set-variable

obj/%.o: %.c common/cmcp.h common/imsg.h common/config.h common/log.h \
    common/mstime.h common/proc.h common/sandbox.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

obj-test/%.o: %.c common/cmcp.h common/imsg.h common/config.h \
    common/log.h common/mstime.h common/proc.h common/sandbox.h
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DCMCP_TEST $(CFLAGS) -c -o $@ $<

regress/common/imsg_test: $(imsg_test_SRCS) common/imsg.h
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    $(imsg_test_SRCS) $(ATF_LIBS) $(LDLIBS)

deps:
	@scripts/install-deps

check: deps
	$(MAKE) all
	scripts/check

# Every benchmark under bench/, one table at the end (mk/*.mk add theirs).
bench: deps all
	scripts/bench $(BENCH_TARGETS)

demo: deps
	$(MAKE) $(PROG) cmcp-init store
	scripts/demo

install: $(PROG) $(CMCP_INIT)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man5 \
	    $(DESTDIR)$(MANDIR)/man8
	install -m 0555 $(PROG) $(DESTDIR)$(SBINDIR)/$(PROG)
	install -d -m 0755 $(DESTDIR)$(LIBEXECDIR)
	install -m 0555 $(CMCP_INIT) $(DESTDIR)$(LIBEXECDIR)/cmcp-init
	install -m 0444 man/cmcp-privsep.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0444 man/cmcp-privsep.conf.5 $(DESTDIR)$(MANDIR)/man5/

# ASan+UBSan: rebuild the unit tests instrumented and run them.
SAN_FLAGS=	-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all
sanitize: deps $(SANITIZE_EXTRA)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/imsg_test $(imsg_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/imsg_test

FUZZ_FLAGS=	-O1 -g -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE \
		-Icommon $(PKG_CFLAGS)
regress/fuzz/fuzz_imsg: regress/fuzz/fuzz_imsg.c common/imsg.c
	clang $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS)

regress/fuzz/fuzz_config: regress/fuzz/fuzz_config.c common/parse.c \
    common/printconf.c common/log.c
	clang $(FUZZ_FLAGS) -DCMCP_FUZZ -Wno-unused-but-set-variable -o $@ \
	    $^ $(LDLIBS)

fuzz: deps $(FUZZERS)
	@for f in $(FUZZERS); do \
	    mkdir -p obj-fuzz/$$(basename $$f); \
	    ./$$f -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=2048 \
	        obj-fuzz/$$(basename $$f) regress/fuzz/corpus/$$(basename $$f) \
	        >obj-fuzz/$$(basename $$f).log 2>&1 || { \
	        echo "fuzz: $$f found a crash"; \
	        tail -n 40 obj-fuzz/$$(basename $$f).log; exit 1; }; \
	    echo "fuzz: $$f ran $(FUZZ_SECONDS)s, no crash"; done

lint:
	mandoc -Tlint -Wwarning $(MANS)

clean: $(CLEAN_EXTRA)
	rm -rf obj obj-test obj-san obj-fuzz $(PROG) $(TPROG) $(UNIT_TESTS) \
	    $(FUZZERS) common/parse.c
