# The fixtures the tests run (regress/fixtures, regress/observers) and the
# fixtures' own test.  Included by the top Makefile after its variables.
#
#   make agent-fixtures   agent-script, agent-adversary: agents for the
#                         test images
#   make mcp-fixtures     the gateway's MCP servers: mcp-recorder,
#                         mcp-hostile, mcp-relist, mcp-escape
#   make bounds-fixtures  the bound matrix's server (regress/bounds)
#   make observers        tcp-observer, udp-observer, on the host
#   make fixtures-units   the agents, the observers and their test
#   make npm-servers      the official MCP servers of regress/upstream and
#                         bench/upstream, pinned by
#                         regress/upstream/npm/package-lock.json and
#                         installed by npm ci into obj/npm (idempotent;
#                         scripts/check runs it before kyua)
#
# The agents and MCP servers are static, libc only (the MCP servers also
# libmd, for SHA-256): they run inside FROM-scratch images.

AGENT_FIXTURES=	regress/fixtures/agent-script regress/fixtures/agent-adversary
MCP_FIXTURES=	regress/fixtures/mcp-recorder regress/fixtures/mcp-hostile \
		regress/fixtures/mcp-relist regress/fixtures/mcp-escape
# The server the parent's spawner starts (regress/parent).
MCPS_FIXTURES=	regress/fixtures/mcps-server
BOUNDS_FIXTURES= regress/fixtures/mcp-bounds
OBSERVERS=	regress/observers/tcp-observer regress/observers/udp-observer
FIXTURES_TESTS=	regress/fixtures/agent_test

CPPFLAGS.regress/fixtures= $(ATF_CFLAGS)

UNIT_TESTS+=	$(FIXTURES_TESTS)
ALL+=		$(AGENT_FIXTURES) $(MCP_FIXTURES) $(MCPS_FIXTURES) \
		$(BOUNDS_FIXTURES) $(OBSERVERS)
SANITIZE+=	fixtures-sanitize

.PHONY: agent-fixtures mcp-fixtures bounds-fixtures observers \
	fixtures-units fixtures-sanitize npm-servers

agent-fixtures: $(AGENT_FIXTURES)
mcp-fixtures: $(MCP_FIXTURES)
bounds-fixtures: $(BOUNDS_FIXTURES)
observers: $(OBSERVERS)
fixtures-units: $(AGENT_FIXTURES) $(OBSERVERS) $(FIXTURES_TESTS)

$(AGENT_FIXTURES): %: obj-static/%.o obj-static/regress/fixtures/agent-json.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^
# the kernel routes, which sbprobe makes in a sandbox run too
regress/fixtures/agent-adversary: obj-static/regress/fixtures/kern-calls.o

# SHA-256 is libmd's; a static link takes its archive (libmd.a).
$(MCP_FIXTURES) $(BOUNDS_FIXTURES): %: obj-static/%.o \
    obj-static/regress/fixtures/mcp-peer.o obj-static/common/sha256.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^ -lmd

$(MCPS_FIXTURES): %: obj-static/%.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^

$(OBSERVERS): %: obj/%.o obj/regress/observers/observer.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The test runs the fixtures, so building it builds them.
$(FIXTURES_TESTS): %: obj/%.o | $(AGENT_FIXTURES) $(OBSERVERS)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(LDLIBS)

# The agents themselves instrumented (dynamic: the sanitizers need it),
# run by the same test through its srcdir.
fixtures-sanitize: $(OBSERVERS)
	@mkdir -p obj-san/fixtures
	$(CC) $(WARN) $(SAN_FLAGS) -D_GNU_SOURCE \
	    -o obj-san/fixtures/agent-script regress/fixtures/agent-script.c \
	    regress/fixtures/agent-json.c
	$(CC) $(WARN) $(SAN_FLAGS) -D_GNU_SOURCE \
	    -o obj-san/fixtures/agent-adversary \
	    regress/fixtures/agent-adversary.c regress/fixtures/agent-json.c \
	    regress/fixtures/kern-calls.c
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/fixtures/agent_test regress/fixtures/agent_test.c \
	    $(ATF_LIBS) $(LDLIBS)
	cd obj-san/fixtures && $(CURDIR)/scripts/san-run ./agent_test

npm-servers:
	@scripts/npm-servers
