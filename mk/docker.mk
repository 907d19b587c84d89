# The engine side's tests (regress/docker), their static workloads and the
# test images.  Included by the top Makefile after mk/fixtures.mk.
#
#   make docker-fixtures  the static workloads of the test images: report,
#                         and init/cmcp-init-dumpable, a test-only mutant
#                         supervisor, never installed
#   make docker-images    load the test images into the private engine
#                         (regress/docker/dockerd-env start first),
#                         the sandbox image among them
#   make sandbox-image    load the sandbox test image only (/bin/busybox,
#                         /sandbox-runner, and the tests' /bin/sbprobe and
#                         /tmp) and write regress/docker/sandbox-image.env
#   make docker-sanitize  the verifier's and weaken's tests under ASan+UBSan

DKR_FIXTURES=	regress/docker/fixtures/report init/cmcp-init-dumpable
# In the sandbox image only: what the tests' scripts run to attempt what
# busybox cannot (ptrace, setuid) and print the errno's name.
SANDBOX_PROBE=	regress/docker/fixtures/sbprobe
SANDBOX_RUNNER=	examples/store/sandbox-runner
IMAGES_ENV=	regress/docker/images.env
SANDBOX_ENV=	regress/docker/sandbox-image.env

CPPFLAGS.regress/docker= -Idockerd-client $(CJSON_CFLAGS) $(CURL_CFLAGS) \
		$(ATF_CFLAGS)

# The verifier and template without an engine; the client against one.
DKR_PURE_SRCS=	dockerd-client/dkr_template.c dockerd-client/dkr_verify.c \
		dockerd-client/dkr_seccomp.c common/json.c common/sha256.c
DKR_API_SRCS=	$(DKR_PURE_SRCS) dockerd-client/dkr_api.c
SANDBOX_SRCS=	dockerd-client/dkr_sandbox.c common/sbstream.c $(DKR_API_SRCS)
SERVER_SRCS=	dockerd-client/dkr_server.c $(DKR_API_SRCS)

UNIT_TESTS+=	regress/docker/verify_test regress/docker/sandbox_test \
		regress/docker/seccomp_test regress/docker/weaken_test
ALL+=		$(DKR_FIXTURES) $(SANDBOX_PROBE) regress/docker/engine_test
SANITIZE+=	docker-sanitize
CLEANFILES+=	$(IMAGES_ENV) $(SANDBOX_ENV)

.PHONY: docker-fixtures docker-images sandbox-image docker-sanitize syscalls

docker-fixtures: $(DKR_FIXTURES)

regress/docker/fixtures/report $(SANDBOX_PROBE): %: obj-static/%.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^
# the kernel routes, which agent-adversary makes in the agent's container
$(SANDBOX_PROBE): obj-static/regress/fixtures/kern-calls.o

init/cmcp-init-dumpable: obj-static/init/cmcp-init-dumpable.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^

obj-static/init/cmcp-init-dumpable.o: init/cmcp-init.c
	@mkdir -p $(@D)
	$(CC) $(STATIC_CFLAGS) -DCMCP_INIT_MUTANT_DUMPABLE $(DEPFLAGS) -c \
	    -o $@ init/cmcp-init.c

regress/docker/verify_test: obj/regress/docker/verify_test.o \
    $(DKR_PURE_SRCS:%.c=obj/%.o)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS) -lm

# A test build (-DCMCP_TEST): dkr_template_weaken, with which the engine's
# tests take one protection away, against the bodies it is given.
regress/docker/weaken_test: obj-test/regress/docker/weaken_test.o \
    $(DKR_PURE_SRCS:%.c=obj-test/%.o)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS) -lm

# Issue 15: the seccomp profile's table against its measurement.
regress/docker/seccomp_test: obj/regress/docker/seccomp_test.o \
    obj/dockerd-client/dkr_seccomp.o obj/common/json.o obj/common/sha256.o
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS)

# A test build too: a server's template can be weakened and its refusal
# bypassed, to show what the read-only bind's check keeps out.
regress/docker/engine_test: obj-test/regress/docker/engine_test.o \
    $(SERVER_SRCS:%.c=obj-test/%.o)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(CJSON_LIBS) $(CURL_LIBS) \
	    $(LDLIBS) -lm

# A test build (-DCMCP_TEST): the spec's weaken and noadmit exist, so the
# mutations can remove one protection.  It runs the host's tcp-observer.
regress/docker/sandbox_test: obj-test/regress/docker/sandbox_test.o \
    $(SANDBOX_SRCS:%.c=obj-test/%.o) | $(OBSERVERS)
	$(CC) $(LDFLAGS) -o $@ $^ $(ATF_LIBS) $(CJSON_LIBS) $(CURL_LIBS) \
	    $(LDLIBS) -lm

# The fixture image carries the agent fixtures and the calls benchmark's
# agent, the store image agent-model, the storesrv image store-mcp (the
# demo's server in its container), the node image the MCP agents on the
# SDK (regress/fixtures/sdk-agent.mjs, examples/store/sdk-agent.mjs) when
# scripts/npm-servers has installed it.
docker-images: $(CMCP_INIT) $(DKR_FIXTURES) $(AGENT_FIXTURES) \
    regress/fixtures/mcp-recorder regress/fixtures/mcp-hostile \
    regress/fixtures/mcp-escape bench/calls-agent examples/store/agent-model \
    examples/store/store-mcp sandbox-image
	regress/docker/build-images regress/docker/fixtures $(CMCP_INIT)

sandbox-image: $(CMCP_INIT) $(SANDBOX_RUNNER) $(SANDBOX_PROBE)
	regress/docker/build-sandbox-image -o $(SANDBOX_ENV) \
	    $(SANDBOX_RUNNER) $(CMCP_INIT) $(SANDBOX_PROBE)

# ATF finds its srcdir by the program of the same name in it.
docker-sanitize: regress/docker/verify_test regress/docker/seccomp_test \
    regress/docker/weaken_test
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(CPPFLAGS.regress/docker) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/verify_test regress/docker/verify_test.c \
	    $(DKR_PURE_SRCS) $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS) -lm
	scripts/san-run obj-san/verify_test -s $(CURDIR)/regress/docker
	$(CC) $(CPPFLAGS) $(CPPFLAGS.regress/docker) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/seccomp_test regress/docker/seccomp_test.c \
	    dockerd-client/dkr_seccomp.c common/json.c common/sha256.c \
	    $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS) -lm
	scripts/san-run obj-san/seccomp_test -s $(CURDIR)/regress/docker
	$(CC) $(CPPFLAGS) $(CPPFLAGS.regress/docker) -DCMCP_TEST $(WARN) \
	    $(SAN_FLAGS) -o obj-san/weaken_test regress/docker/weaken_test.c \
	    $(DKR_PURE_SRCS) $(ATF_LIBS) $(CJSON_LIBS) $(LDLIBS) -lm
	scripts/san-run obj-san/weaken_test -s $(CURDIR)/regress/docker

# Issue 15: the system calls the containers' workloads make, measured with
# strace -f (obj/syscalls/*.calls and a table of who needs each).
syscalls: $(CMCP_INIT) $(AGENT_FIXTURES) $(MCP_FIXTURES) \
    examples/store/sandbox-runner
	regress/docker/syscalls-measure -o obj/syscalls
