# The sandbox tool's container side (dockerd-client/dkr_sandbox.c) and its
# engine test.  Included by the top Makefile after mk/docker.mk.
#
#   make sandbox-image   load the sandbox test image (/bin/busybox,
#                        /sandbox-runner, and the tests' /bin/sbprobe and
#                        /tmp) into the private engine and write
#                        regress/docker/sandbox-image.env
#                        (regress/docker/dockerd-env start first)
#   make sandbox-clean
#
# make docker-images builds the sandbox image too, so the suite's check
# (scripts/check) has it before kyua runs.

SANDBOX_SRCS=	dockerd-client/dkr_sandbox.c common/sbstream.c
SANDBOX_HDRS=	dockerd-client/dkr_sandbox.h common/cmcp.h common/sbstream.h
SANDBOX_TEST=	regress/docker/sandbox_test
SANDBOX_RUNNER=	examples/store/sandbox-runner
SANDBOX_ENV=	regress/docker/sandbox-image.env
# In the test image only: what the tests' scripts run to attempt what
# busybox cannot (ptrace, setuid) and print the errno's name.
SANDBOX_PROBE=	regress/docker/fixtures/sbprobe

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(SANDBOX_TEST)
EXTRA_ALL+=	$(SANDBOX_PROBE)
CLEAN_EXTRA+=	sandbox-clean

.PHONY: sandbox-image sandbox-clean

# A test build (-DCMCP_TEST): the spec's weaken and noadmit exist, so the
# mutations can remove one protection.  It runs the host's tcp-observer.
$(SANDBOX_TEST): regress/docker/sandbox_test.c $(SANDBOX_SRCS) \
    $(DKR_API_SRCS) $(SANDBOX_HDRS) $(DKR_HDRS) | $(OBSERVERS)
	$(CC) $(DKR_CPPFLAGS) -DCMCP_TEST $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ regress/docker/sandbox_test.c $(SANDBOX_SRCS) \
	    $(DKR_API_SRCS) $(ATF_LIBS) $(DKR_PKG_LIBS) $(LDLIBS) -lm

$(SANDBOX_PROBE): regress/docker/fixtures/sbprobe.c
	$(CC) $(STATIC_CFLAGS) -o $@ regress/docker/fixtures/sbprobe.c

sandbox-image: $(CMCP_INIT) $(SANDBOX_RUNNER) $(SANDBOX_PROBE)
	regress/docker/build-sandbox-image -o $(SANDBOX_ENV) \
	    $(SANDBOX_RUNNER) $(CMCP_INIT) $(SANDBOX_PROBE)

docker-images: sandbox-image

sandbox-clean:
	rm -f $(SANDBOX_TEST) $(SANDBOX_ENV) $(SANDBOX_PROBE)
