# The confined session (issue 4): the agent protocol, the gateway's
# decisions and MCP client, and the parent's server spawner, linked into
# the suite; the session tests and the calls benchmark.  Included by the
# top Makefile after its variables.
#
#   make bench-calls    per-call round trip through the confined path and
#                       its baselines (private engine running);
#                       bench/results/calls.tsv

SESSION_SRCS=	common/json.c bridge/frame.c gateway/mcp.c gateway/policy.c \
		gateway/sbcall.c gateway/sbrun.c parent/mcpserver.c
SRCS+=		$(SESSION_SRCS)
SESSION_HDRS=	common/json.h common/sha256.h bridge/frame.h gateway/mcp.h \
		gateway/policy.h gateway/sbcall.h common/sbstream.h \
		parent/mcpserver.h

$(SESSION_SRCS:%.c=obj/%.o) $(SESSION_SRCS:%.c=obj-test/%.o) \
    obj/gateway/gateway.o obj-test/gateway/gateway.o \
    obj/bridge/bridge.o obj-test/bridge/bridge.o \
    obj/parent/parent.o obj-test/parent/parent.o: $(SESSION_HDRS)
obj/gateway/gateway.o obj-test/gateway/gateway.o: CPPFLAGS+= -Ibridge

BENCH_TARGETS+=	bench-calls
CLEAN_EXTRA+=	session-clean

.PHONY: bench-calls session-clean

# The benchmark's agent runs in the fixture image: static, libc only.
bench/calls-agent: bench/calls-agent.c
	$(CC) $(AGENT_STATIC_CFLAGS) -o $@ bench/calls-agent.c

bench/calls-tool: bench/calls-tool.c gateway/mcp.c common/json.c \
    common/sha256.c regress/fixtures/mcp-peer.c $(MCP_HDRS) \
    regress/fixtures/mcp-peer.h
	$(CC) $(CPPFLAGS) -Igateway -Iregress/fixtures $(CFLAGS) $(LDFLAGS) \
	    -o $@ bench/calls-tool.c gateway/mcp.c common/json.c \
	    common/sha256.c regress/fixtures/mcp-peer.c $(LDLIBS)

CALLS_SESSIONS?=	30
bench-calls: $(TPROG) $(CMCP_INIT) $(DKR_FIXTURES) $(MCP_FIXTURES) \
    bench/calls-agent bench/calls-tool
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-calls: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/calls -s $(CALLS_SESSIONS) -o bench/results/calls.tsv

session-clean:
	rm -f bench/calls-agent bench/calls-tool

# The fixture image carries the agent fixtures and the benchmark's agent.
docker-images: $(AGENT_FIXTURES) bench/calls-agent

# The sandbox run's stream and result, without an engine.
SBCALL_TEST=	regress/gateway/sbcall_test
SBCALL_SRCS=	gateway/sbcall.c common/sbstream.c common/json.c
SBCALL_HDRS=	gateway/sbcall.h common/sbstream.h common/json.h common/cmcp.h
UNIT_TESTS+=	$(SBCALL_TEST)
SANITIZE_EXTRA+= sbcall-sanitize
CLEAN_EXTRA+=	sbcall-clean

.PHONY: sbcall-sanitize sbcall-clean

$(SBCALL_TEST): regress/gateway/sbcall_test.c $(SBCALL_SRCS) $(SBCALL_HDRS)
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ regress/gateway/sbcall_test.c $(SBCALL_SRCS) $(ATF_LIBS) \
	    $(LDLIBS)

sbcall-sanitize:
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/sbcall_test regress/gateway/sbcall_test.c \
	    $(SBCALL_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/sbcall_test

sbcall-clean:
	rm -f $(SBCALL_TEST)

SBCALL_FUZZER=	regress/fuzz/fuzz_sbstream
FUZZERS+=	$(SBCALL_FUZZER)

$(SBCALL_FUZZER): regress/fuzz/fuzz_sbstream.c $(SBCALL_SRCS) $(SBCALL_HDRS)
	clang $(FUZZ_FLAGS) -Igateway -o $@ regress/fuzz/fuzz_sbstream.c \
	    $(SBCALL_SRCS) $(LDLIBS)
