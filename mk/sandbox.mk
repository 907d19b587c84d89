# The sandbox tool's container side (dockerd-client/dkr_sandbox.c) and its
# engine test.  Included by the top Makefile after mk/docker.mk.
#
#   make sandbox-image   load the sandbox test image (/bin/busybox and
#                        /sandbox-runner) into the private engine and
#                        write regress/docker/sandbox-image.env
#                        (regress/docker/dockerd-env start first)
#   make sandbox-clean
#
# make docker-images builds the sandbox image too, so the suite's check
# (scripts/check) has it before kyua runs.

SANDBOX_SRCS=	dockerd-client/dkr_sandbox.c
SANDBOX_HDRS=	dockerd-client/dkr_sandbox.h common/cmcp.h
SANDBOX_TEST=	regress/docker/sandbox_test
SANDBOX_RUNNER=	examples/store/sandbox-runner
SANDBOX_ENV=	regress/docker/sandbox-image.env

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(SANDBOX_TEST)
CLEAN_EXTRA+=	sandbox-clean

.PHONY: sandbox-image sandbox-clean

$(SANDBOX_TEST): regress/docker/sandbox_test.c $(SANDBOX_SRCS) \
    $(DKR_API_SRCS) $(SANDBOX_HDRS) $(DKR_HDRS)
	$(CC) $(DKR_CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/docker/sandbox_test.c $(SANDBOX_SRCS) $(DKR_API_SRCS) \
	    $(ATF_LIBS) $(DKR_PKG_LIBS) $(LDLIBS) -lm

sandbox-image: $(CMCP_INIT) $(SANDBOX_RUNNER)
	regress/docker/build-sandbox-image -o $(SANDBOX_ENV) \
	    $(SANDBOX_RUNNER) $(CMCP_INIT)

docker-images: sandbox-image

sandbox-clean:
	rm -f $(SANDBOX_TEST) $(SANDBOX_ENV)
