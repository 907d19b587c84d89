# Docker-side pieces, included by the top Makefile after its variables.
#
#   make cmcp-init        the static in-container supervisor
#   make docker-fixtures  static fixture workloads for the test images
#   make docker-units     verifier unit tests, engine test, inspect fuzzer
#   make docker-images    load the test images into the private engine
#                         (regress/docker/dockerd-env start first)
#   make docker-sanitize  verifier unit tests under ASan+UBSan
#   make bench-startup    session start to first byte and to confirmed
#                         cleanup, cmcp-privsep versus the docker CLI
#                         (private engine running); bench/results/startup.tsv
#   make docker-clean

DKR_PKGS=	libcjson libcurl
DKR_PKG_CFLAGS!= pkg-config --cflags $(DKR_PKGS) 2>/dev/null
DKR_PKG_LIBS!=	pkg-config --libs $(DKR_PKGS) 2>/dev/null
DKR_CJSON_LIBS!= pkg-config --libs libcjson 2>/dev/null
DKR_CPPFLAGS=	$(CPPFLAGS) -Iinit -Idockerd-client $(DKR_PKG_CFLAGS)

DKR_HDRS=	dockerd-client/dkr.h init/cmcp-init.h dockerd-client/dkr_sandbox.h \
		common/sbstream.h
DKR_PURE_SRCS=	dockerd-client/dkr_template.c dockerd-client/dkr_verify.c
DKR_API_SRCS=	$(DKR_PURE_SRCS) dockerd-client/dkr_api.c

CMCP_INIT=	init/cmcp-init
DKR_FIXTURES=	regress/docker/fixtures/report init/cmcp-init-dumpable
DKR_TESTS=	regress/docker/verify_test regress/docker/engine_test
DKR_FUZZER=	regress/fuzz/fuzz_inspect

# Static: it runs inside FROM-scratch images.  No libbsd, so no libmd.
STATIC_CFLAGS=	-O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE

# The suite's dockerd-client links the template, verifier and client;
# libcurl it loads itself (dkr_curl.c), so the other children do not.
DKR_SUITE_SRCS=	$(DKR_API_SRCS) dockerd-client/dkr_curl.c \
		dockerd-client/dkr_sandbox.c
SRCS+=		$(DKR_SUITE_SRCS)
$(DKR_SUITE_SRCS:%.c=obj/%.o) $(DKR_SUITE_SRCS:%.c=obj-test/%.o) \
    obj/dockerd-client/dockerd.o obj-test/dockerd-client/dockerd.o: \
    $(DKR_HDRS)
$(DKR_SUITE_SRCS:%.c=obj/%.o) $(DKR_SUITE_SRCS:%.c=obj-test/%.o) \
    obj/dockerd-client/dockerd.o obj-test/dockerd-client/dockerd.o: \
    CPPFLAGS+= -Iinit -Idockerd-client $(DKR_PKG_CFLAGS)
$(PROG) $(TPROG): LDLIBS+= $(DKR_CJSON_LIBS) -lm

# The top Makefile's targets pick these up.
UNIT_TESTS+=	regress/docker/verify_test
EXTRA_ALL+=	$(CMCP_INIT) $(DKR_FIXTURES) regress/docker/engine_test
SANITIZE_EXTRA+= docker-sanitize
BENCH_TARGETS+=	bench-startup
CLEAN_EXTRA+=	docker-clean
FUZZERS+=	$(DKR_FUZZER)

.PHONY: cmcp-init docker-fixtures docker-units docker-images \
	docker-sanitize docker-clean bench-startup

cmcp-init: $(CMCP_INIT)

$(CMCP_INIT): init/cmcp-init.c init/cmcp-init.h
	$(CC) $(STATIC_CFLAGS) -Iinit -o $@ init/cmcp-init.c

docker-fixtures: $(DKR_FIXTURES)

# Test-only mutant: a dumpable supervisor, never installed.
init/cmcp-init-dumpable: init/cmcp-init.c init/cmcp-init.h
	$(CC) $(STATIC_CFLAGS) -DCMCP_INIT_MUTANT_DUMPABLE -Iinit -o $@ \
	    init/cmcp-init.c

regress/docker/fixtures/report: regress/docker/fixtures/report.c
	$(CC) $(STATIC_CFLAGS) -o $@ regress/docker/fixtures/report.c

docker-units: $(DKR_TESTS) $(DKR_FUZZER)

regress/docker/verify_test: regress/docker/verify_test.c $(DKR_PURE_SRCS) \
    $(DKR_HDRS) regress/docker/fixtures/fixture.h
	$(CC) $(DKR_CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/docker/verify_test.c $(DKR_PURE_SRCS) $(ATF_LIBS) \
	    $(DKR_CJSON_LIBS) $(LDLIBS) -lm

regress/docker/engine_test: regress/docker/engine_test.c $(DKR_API_SRCS) \
    $(DKR_HDRS)
	$(CC) $(DKR_CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/docker/engine_test.c $(DKR_API_SRCS) $(ATF_LIBS) \
	    $(DKR_PKG_LIBS) $(LDLIBS) -lm

$(DKR_FUZZER): regress/fuzz/fuzz_inspect.c $(DKR_PURE_SRCS) $(DKR_HDRS) \
    regress/docker/fixtures/fixture.h
	clang $(FUZZ_FLAGS) -Iinit -Idockerd-client -Iregress/docker \
	    $(DKR_PKG_CFLAGS) -o $@ regress/fuzz/fuzz_inspect.c \
	    $(DKR_PURE_SRCS) $(DKR_CJSON_LIBS) $(LDLIBS) -lm

docker-images: $(CMCP_INIT) $(DKR_FIXTURES)
	regress/docker/build-images regress/docker/fixtures $(CMCP_INIT)

docker-sanitize: $(DKR_PURE_SRCS) $(DKR_HDRS) regress/docker/verify_test.c
	@mkdir -p obj-san
	$(CC) $(DKR_CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/verify_test regress/docker/verify_test.c \
	    $(DKR_PURE_SRCS) $(ATF_LIBS) $(DKR_CJSON_LIBS) $(LDLIBS) -lm
	scripts/san-run obj-san/verify_test -s $(CURDIR)/regress/docker

STARTUP_RUNS?=	11
bench/startup: bench/startup.c
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ bench/startup.c $(LDLIBS)

bench-startup: bench/startup $(TPROG) $(CMCP_INIT) $(DKR_FIXTURES)
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-startup: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/startup -n $(STARTUP_RUNS) -o bench/results/startup.tsv \
	    regress/docker/images.env $(CURDIR)/$(TPROG)

docker-clean:
	rm -f $(CMCP_INIT) $(DKR_FIXTURES) $(DKR_TESTS) $(DKR_FUZZER) \
	    bench/startup \
	    obj-san/verify_test regress/docker/images.env
