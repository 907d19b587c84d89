# The store demo's own programs (examples/store) and their tests
# (regress/store).  Included by the top Makefile after its variables.
#
#   make store           store-mcp, agent-model, sandbox-runner
#   make store-units     the same and the test programs
#   make store-sanitize  the tests under ASan+UBSan, store-mcp built so too
#   make store-clean
#
# store-mcp runs on the host as an approved MCP server and links the
# system libsqlite3.  agent-model and sandbox-runner run inside containers
# built from static binaries: static, no library but libc (agent-model
# compiles in the project's strict JSON reader, common/json.c).

STORE_MCP=	examples/store/store-mcp
STORE_STATIC=	examples/store/agent-model examples/store/sandbox-runner
STORE_BINS=	$(STORE_MCP) $(STORE_STATIC)
STORE_UNIT_TESTS= regress/store/store_test regress/store/agent_test

STORE_MCP_SRCS=	examples/store/store-mcp.c common/json.c
AGENT_MODEL_SRCS= examples/store/agent-model.c common/json.c
STORE_TEST_SRCS= regress/store/store.c common/json.c
STORE_TEST_HDRS= regress/store/store.h common/json.h

SQLITE_CFLAGS!=	pkg-config --cflags sqlite3 2>/dev/null
SQLITE_LIBS!=	pkg-config --libs sqlite3 2>/dev/null

STORE_STATIC_CFLAGS= -O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(STORE_UNIT_TESTS)
EXTRA_ALL+=	$(STORE_BINS)
SANITIZE_EXTRA+= store-sanitize
CLEAN_EXTRA+=	store-clean

.PHONY: store store-units store-sanitize store-clean

store: $(STORE_BINS)

store-units: $(STORE_BINS) $(STORE_UNIT_TESTS)

examples/store/store-mcp: $(STORE_MCP_SRCS) common/json.h
	$(CC) $(CPPFLAGS) $(SQLITE_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    $(STORE_MCP_SRCS) $(SQLITE_LIBS)

examples/store/agent-model: $(AGENT_MODEL_SRCS) common/json.h
	$(CC) $(STORE_STATIC_CFLAGS) -Icommon -o $@ $(AGENT_MODEL_SRCS)

examples/store/sandbox-runner: examples/store/sandbox-runner.c
	$(CC) $(STORE_STATIC_CFLAGS) -o $@ examples/store/sandbox-runner.c

# The tests run the programs, so building them builds those.
regress/store/store_test: regress/store/store_test.c $(STORE_TEST_SRCS) \
    $(STORE_TEST_HDRS) | $(STORE_BINS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/store/store_test.c $(STORE_TEST_SRCS) $(ATF_LIBS)

regress/store/agent_test: regress/store/agent_test.c $(STORE_TEST_SRCS) \
    $(STORE_TEST_HDRS) | $(STORE_BINS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/store/agent_test.c $(STORE_TEST_SRCS) $(ATF_LIBS)

# The sanitized tests drive sanitized programs (dynamic: ASan cannot be
# static).
store-sanitize: $(STORE_BINS)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(SQLITE_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/store-mcp $(STORE_MCP_SRCS) $(SQLITE_LIBS)
	$(CC) -D_GNU_SOURCE -Icommon $(WARN) $(SAN_FLAGS) \
	    -o obj-san/agent-model $(AGENT_MODEL_SRCS)
	$(CC) -D_GNU_SOURCE $(WARN) $(SAN_FLAGS) -o obj-san/sandbox-runner \
	    examples/store/sandbox-runner.c
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/store_test regress/store/store_test.c \
	    $(STORE_TEST_SRCS) $(ATF_LIBS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/agent_test regress/store/agent_test.c \
	    $(STORE_TEST_SRCS) $(ATF_LIBS)
	scripts/san-run obj-san/store_test -s $(CURDIR)/regress/store \
	    -v store_mcp=$(CURDIR)/obj-san/store-mcp
	scripts/san-run obj-san/agent_test -s $(CURDIR)/regress/store \
	    -v agent_model=$(CURDIR)/obj-san/agent-model \
	    -v sandbox_runner=$(CURDIR)/obj-san/sandbox-runner

# The store image (regress/docker/build-images) carries agent-model.
docker-images: examples/store/agent-model

store-clean:
	rm -f $(STORE_BINS) $(STORE_UNIT_TESTS)
