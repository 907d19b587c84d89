# The gateway's MCP client: unit tests, fixture servers, fuzzer.  Included
# by the top Makefile after its variables.
#
#   make mcp-fixtures   static fixture MCP servers (regress/fixtures)
#   make mcp-units      SHA-256 and MCP client tests, fixtures, fuzzer
#   make mcp-sanitize   the same tests under ASan+UBSan
#   make mcp-clean

MCP_SRCS=	gateway/mcp.c common/json.c common/sha256.c
MCP_HDRS=	gateway/mcp.h common/json.h common/sha256.h common/cmcp.h

MCP_FIXTURES=	regress/fixtures/mcp-recorder regress/fixtures/mcp-hostile \
		regress/fixtures/mcp-relist
MCP_UNIT_TESTS=	regress/common/sha256_test regress/gateway/mcp_test
MCP_FUZZERS=	regress/fuzz/fuzz_mcp

MCP_PEER_SRCS=	regress/fixtures/mcp-peer.c common/sha256.c
MCP_PEER_HDRS=	regress/fixtures/mcp-peer.h common/sha256.h
# SHA-256 is libmd's; a static link takes its archive (libmd.a).
MCP_PEER_LIBS=	-lmd

# The fixtures are static: no library but libc and libmd, so no libbsd.
MCP_STATIC_CFLAGS= -O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE -Icommon \
		-Iregress/fixtures

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(MCP_UNIT_TESTS)
FUZZERS+=	$(MCP_FUZZERS)
EXTRA_ALL+=	$(MCP_FIXTURES)
SANITIZE_EXTRA+= mcp-sanitize
CLEAN_EXTRA+=	mcp-clean

.PHONY: mcp-fixtures mcp-units mcp-sanitize mcp-clean

mcp-fixtures: $(MCP_FIXTURES)

mcp-units: $(MCP_UNIT_TESTS) $(MCP_FIXTURES) $(MCP_FUZZERS)

regress/fixtures/mcp-recorder: regress/fixtures/mcp-recorder.c \
    $(MCP_PEER_SRCS) $(MCP_PEER_HDRS)
	$(CC) $(MCP_STATIC_CFLAGS) -o $@ regress/fixtures/mcp-recorder.c \
	    $(MCP_PEER_SRCS) $(MCP_PEER_LIBS)

regress/fixtures/mcp-hostile: regress/fixtures/mcp-hostile.c \
    $(MCP_PEER_SRCS) $(MCP_PEER_HDRS)
	$(CC) $(MCP_STATIC_CFLAGS) -o $@ regress/fixtures/mcp-hostile.c \
	    $(MCP_PEER_SRCS) $(MCP_PEER_LIBS)

regress/fixtures/mcp-relist: regress/fixtures/mcp-relist.c \
    $(MCP_PEER_SRCS) $(MCP_PEER_HDRS)
	$(CC) $(MCP_STATIC_CFLAGS) -o $@ regress/fixtures/mcp-relist.c \
	    $(MCP_PEER_SRCS) $(MCP_PEER_LIBS)

regress/common/sha256_test: regress/common/sha256_test.c common/sha256.c \
    common/sha256.h
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/common/sha256_test.c common/sha256.c $(ATF_LIBS) $(LDLIBS)

# The test runs the fixtures, so building it builds them.
regress/gateway/mcp_test: regress/gateway/mcp_test.c $(MCP_SRCS) \
    $(MCP_HDRS) | $(MCP_FIXTURES)
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ regress/gateway/mcp_test.c $(MCP_SRCS) $(ATF_LIBS) \
	    $(LDLIBS)

regress/fuzz/fuzz_mcp: regress/fuzz/fuzz_mcp.c $(MCP_SRCS) $(MCP_HDRS)
	clang $(FUZZ_FLAGS) -Igateway -o $@ regress/fuzz/fuzz_mcp.c \
	    $(MCP_SRCS) $(LDLIBS)

mcp-sanitize: $(MCP_FIXTURES)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/sha256_test regress/common/sha256_test.c \
	    common/sha256.c $(ATF_LIBS) $(LDLIBS)
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/mcp_test regress/gateway/mcp_test.c $(MCP_SRCS) \
	    $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/sha256_test
	scripts/san-run obj-san/mcp_test -v fixtures=$(CURDIR)/regress/fixtures

mcp-clean:
	rm -f $(MCP_FIXTURES) $(MCP_UNIT_TESTS) $(MCP_FUZZERS)
