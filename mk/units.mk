# The unit tests (ATF C) of the suite's own sources, each linked from its
# test program and the suite's objects it tests, and their ASan+UBSan
# builds.  Included by the top Makefile after mk/fixtures.mk, whose
# fixtures the MCP tests run.

UNITS=		regress/common/imsg_test regress/common/json_test \
		regress/common/sha256_test regress/common/auditclient_test \
		regress/bridge/frame_test regress/bridge/front_test \
		regress/bridge/tlist_test \
		regress/gateway/mcp_test regress/gateway/policy_test \
		regress/gateway/sbcall_test regress/gateway/tools_test \
		regress/parent/mcpserver_test \
		regress/auditor/auditdb_test regress/config/nomem_test

CPPFLAGS.regress/common= $(ATF_CFLAGS)
CPPFLAGS.regress/bridge= -Ibridge $(ATF_CFLAGS)
CPPFLAGS.regress/gateway= -Igateway -Ibridge $(ATF_CFLAGS)
CPPFLAGS.regress/auditor= -Iauditor $(SQLITE_CFLAGS) $(ATF_CFLAGS)
CPPFLAGS.regress/config= $(ATF_CFLAGS)
# Only this test and its copy of the spawner are built with -DMCPS_MUTATE:
# the knob that removes one protection at a time exists in no other build.
CPPFLAGS.regress/parent= -Iparent -DMCPS_MUTATE $(ATF_CFLAGS)

# What each tests, beside its own program.
imsg_test_SRCS=	common/imsg.c
json_test_SRCS=	common/json.c
sha256_test_SRCS= common/sha256.c
# The client on the suite's own channel machinery, against a fake auditor.
auditclient_test_SRCS= common/auditclient.c common/auditrec.c \
		common/sha256.c common/proc.c common/sandbox.c common/imsg.c \
		common/log.c
frame_test_SRCS= bridge/frame.c common/json.c
front_test_SRCS= bridge/front.c bridge/frame.c common/json.c
tlist_test_SRCS= bridge/tlist.c bridge/front.c bridge/frame.c common/json.c \
		common/sha256.c
mcp_test_SRCS=	gateway/mcp.c common/json.c common/sha256.c
# It builds its configurations with the parser.
policy_test_SRCS= gateway/policy.c common/json.c common/parse.c \
		common/printconf.c
sbcall_test_SRCS= gateway/sbcall.c common/sbstream.c common/json.c
# The list on the suite's own channel, read by the bridge's own list.
tools_test_SRCS= gateway/tools.c gateway/policy.c bridge/tlist.c \
		bridge/front.c bridge/frame.c common/json.c common/sha256.c \
		common/parse.c common/printconf.c common/proc.c \
		common/sandbox.c common/imsg.c common/log.c
mcpserver_test_SRCS= parent/mcpserver.c common/log.c
auditdb_test_SRCS= auditor/auditdb.c common/auditrec.c common/sha256.c \
		common/log.c
# The parser with its allocations failed in turn: ld --wrap redirects the
# parser's own calls of each function of common/parse.c that allocates
# (nm -u) to the test's, and no other calls.
nomem_test_SRCS= common/parse.c common/json.c common/printconf.c
NOMEM_WRAP=	-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc \
		-Wl,--wrap=reallocarray,--wrap=strdup,--wrap=fdopen \
		-Wl,--wrap=asprintf,--wrap=__asprintf_chk

UNIT_TESTS+=	$(UNITS)
SANITIZE+=	imsg-sanitize proto-sanitize mcp-sanitize policy-sanitize \
		sbcall-sanitize tools-sanitize mcps-sanitize audit-sanitize \
		auditc-sanitize nomem-sanitize

.PHONY: imsg-sanitize proto-sanitize mcp-sanitize policy-sanitize \
	sbcall-sanitize tools-sanitize mcps-sanitize audit-sanitize \
	auditc-sanitize nomem-sanitize

$(UNITS): %: obj/%.o
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(LDLIBS) $(LDADD)

regress/common/imsg_test: $(imsg_test_SRCS:%.c=obj/%.o)
regress/common/json_test: $(json_test_SRCS:%.c=obj/%.o)
regress/common/sha256_test: $(sha256_test_SRCS:%.c=obj/%.o)
regress/common/auditclient_test: $(auditclient_test_SRCS:%.c=obj/%.o)
regress/bridge/frame_test: $(frame_test_SRCS:%.c=obj/%.o)
regress/bridge/front_test: $(front_test_SRCS:%.c=obj/%.o)
regress/bridge/tlist_test: $(tlist_test_SRCS:%.c=obj/%.o)
# The tests run the fixtures, so building them builds those.
regress/gateway/mcp_test: $(mcp_test_SRCS:%.c=obj/%.o) | $(MCP_FIXTURES)
regress/gateway/policy_test: $(policy_test_SRCS:%.c=obj/%.o)
regress/gateway/sbcall_test: $(sbcall_test_SRCS:%.c=obj/%.o)
regress/gateway/tools_test: $(tools_test_SRCS:%.c=obj/%.o)
regress/parent/mcpserver_test: obj/parent/mcpserver-mutate.o \
    obj/common/log.o | $(MCPS_FIXTURES)
regress/auditor/auditdb_test: $(auditdb_test_SRCS:%.c=obj/%.o)
regress/config/nomem_test: $(nomem_test_SRCS:%.c=obj/%.o)
regress/auditor/auditdb_test: LDADD= $(SQLITE_LIBS)
regress/config/nomem_test: LDADD= $(NOMEM_WRAP)

obj/parent/mcpserver-mutate.o: parent/mcpserver.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DMCPS_MUTATE $(CFLAGS) $(DEPFLAGS) -c -o $@ \
	    parent/mcpserver.c

# The sanitized builds, each test from its sources in one command.
SAN_CC=		$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS)

imsg-sanitize:
	@mkdir -p obj-san
	$(SAN_CC) -o obj-san/imsg_test regress/common/imsg_test.c \
	    $(imsg_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/imsg_test

proto-sanitize:
	@mkdir -p obj-san
	$(SAN_CC) -o obj-san/json_test regress/common/json_test.c \
	    $(json_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	$(SAN_CC) -Ibridge -o obj-san/frame_test regress/bridge/frame_test.c \
	    $(frame_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	$(SAN_CC) -Ibridge -o obj-san/front_test regress/bridge/front_test.c \
	    $(front_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	$(SAN_CC) -Ibridge -o obj-san/tlist_test regress/bridge/tlist_test.c \
	    $(tlist_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/json_test
	scripts/san-run obj-san/frame_test
	scripts/san-run obj-san/front_test
	scripts/san-run obj-san/tlist_test

mcp-sanitize: $(MCP_FIXTURES)
	@mkdir -p obj-san
	$(SAN_CC) -o obj-san/sha256_test regress/common/sha256_test.c \
	    $(sha256_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	$(SAN_CC) -Igateway -o obj-san/mcp_test regress/gateway/mcp_test.c \
	    $(mcp_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/sha256_test
	scripts/san-run obj-san/mcp_test -v fixtures=$(CURDIR)/regress/fixtures

# Each case writes its configuration into the working directory: a fresh
# one per case.
policy-sanitize: common/parse.c
	@mkdir -p obj-san
	$(SAN_CC) -Igateway -Wno-unused-but-set-variable \
	    -o obj-san/policy_test regress/gateway/policy_test.c \
	    $(policy_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/policy_test

sbcall-sanitize:
	@mkdir -p obj-san
	$(SAN_CC) -Igateway -o obj-san/sbcall_test \
	    regress/gateway/sbcall_test.c $(sbcall_test_SRCS) $(ATF_LIBS) \
	    $(LDLIBS)
	scripts/san-run obj-san/sbcall_test

# Each case writes its configuration into the working directory.
tools-sanitize: common/parse.c
	@mkdir -p obj-san
	$(SAN_CC) -Igateway -Ibridge -Wno-unused-but-set-variable \
	    -o obj-san/tools_test regress/gateway/tools_test.c \
	    $(tools_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/tools_test

mcps-sanitize: $(MCPS_FIXTURES)
	@mkdir -p obj-san
	$(SAN_CC) -Iparent -DMCPS_MUTATE -o obj-san/mcpserver_test \
	    regress/parent/mcpserver_test.c $(mcpserver_test_SRCS) \
	    $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/mcpserver_test \
	    -v fixtures=$(CURDIR)/regress/fixtures

audit-sanitize:
	@mkdir -p obj-san
	$(SAN_CC) -Iauditor $(SQLITE_CFLAGS) -o obj-san/auditdb_test \
	    regress/auditor/auditdb_test.c $(auditdb_test_SRCS) $(ATF_LIBS) \
	    $(SQLITE_LIBS) $(LDLIBS)
	scripts/san-run obj-san/auditdb_test

auditc-sanitize:
	@mkdir -p obj-san
	$(SAN_CC) -o obj-san/auditclient_test \
	    regress/common/auditclient_test.c $(auditclient_test_SRCS) \
	    $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/auditclient_test

nomem-sanitize: common/parse.c
	@mkdir -p obj-san
	$(SAN_CC) -Wno-unused-but-set-variable -o obj-san/nomem_test \
	    regress/config/nomem_test.c $(nomem_test_SRCS) $(ATF_LIBS) \
	    $(LDLIBS) $(NOMEM_WRAP)
	scripts/san-run obj-san/nomem_test -v configs=$(CURDIR)/regress/config
