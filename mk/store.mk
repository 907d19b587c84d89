# The store demo's own programs (examples/store) and their tests
# (regress/store).  Included by the top Makefile after its variables.
#
#   make store           store-mcp, agent-model, sandbox-runner
#   make store-sanitize  the tests under ASan+UBSan, driving the programs
#                        built so too
#
# store-mcp is the demo's approved MCP server and links the system
# libsqlite3; it runs in a container of the storesrv image, which holds
# it with the libraries ldd names (regress/docker/build-images).
# agent-model and sandbox-runner run inside containers built from static
# binaries: static, no library but libc (agent-model compiles in the
# project's strict JSON reader, common/json.c).

STORE_MCP=	examples/store/store-mcp
STORE_STATIC=	examples/store/agent-model examples/store/sandbox-runner
STORE_BINS=	$(STORE_MCP) $(STORE_STATIC)
STORE_UNIT_TESTS= regress/store/store_test regress/store/agent_test

CPPFLAGS.examples/store= $(SQLITE_CFLAGS)
CPPFLAGS.regress/store=	$(ATF_CFLAGS)

UNIT_TESTS+=	$(STORE_UNIT_TESTS)
ALL+=		$(STORE_BINS)
SANITIZE+=	store-sanitize

.PHONY: store store-sanitize

store: $(STORE_BINS)

$(STORE_MCP): obj/examples/store/store-mcp.o obj/common/json.o
	$(CC) $(LDFLAGS) -o $@ $^ $(SQLITE_LIBS)

examples/store/agent-model: obj-static/examples/store/agent-model.o \
    obj-static/common/json.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^

examples/store/sandbox-runner: obj-static/examples/store/sandbox-runner.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^

# The tests run the programs, so building them builds those.
$(STORE_UNIT_TESTS): %: obj/%.o obj/regress/store/store.o obj/common/json.o \
    | $(STORE_BINS)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS)

# The sanitized tests drive sanitized programs (dynamic: ASan cannot be
# static); ATF finds its srcdir by the program of the same name in it.
store-sanitize: $(STORE_BINS) $(STORE_UNIT_TESTS)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(SQLITE_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/store-mcp examples/store/store-mcp.c common/json.c \
	    $(SQLITE_LIBS)
	$(CC) -D_GNU_SOURCE -Icommon $(WARN) $(SAN_FLAGS) \
	    -o obj-san/agent-model examples/store/agent-model.c common/json.c
	$(CC) -D_GNU_SOURCE $(WARN) $(SAN_FLAGS) -o obj-san/sandbox-runner \
	    examples/store/sandbox-runner.c
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/store_test regress/store/store_test.c \
	    regress/store/store.c common/json.c $(ATF_LIBS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/agent_test regress/store/agent_test.c \
	    regress/store/store.c common/json.c $(ATF_LIBS)
	scripts/san-run obj-san/store_test -s $(CURDIR)/regress/store \
	    -v store_mcp=$(CURDIR)/obj-san/store-mcp
	scripts/san-run obj-san/agent_test -s $(CURDIR)/regress/store \
	    -v agent_model=$(CURDIR)/obj-san/agent-model \
	    -v sandbox_runner=$(CURDIR)/obj-san/sandbox-runner
