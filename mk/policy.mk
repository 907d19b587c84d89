# The gateway's decision core: unit tests and fuzzer.  Included by the top
# Makefile after its variables.
#
#   make policy-units      the ATF tests (regress/gateway/policy_test), fuzzer
#   make policy-sanitize   the tests under ASan+UBSan
#   make policy-clean

POLICY_SRCS=	gateway/policy.c common/json.c
POLICY_HDRS=	gateway/policy.h common/json.h common/config.h common/cmcp.h
# The tests and the fuzzer build their configurations with the parser.
POLICY_CONF_OBJS= obj/common/parse.o obj/common/printconf.o
POLICY_CONF_SRCS= common/parse.c common/printconf.c

POLICY_UNIT_TESTS= regress/gateway/policy_test
POLICY_FUZZERS=	regress/fuzz/fuzz_policy

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(POLICY_UNIT_TESTS)
FUZZERS+=	$(POLICY_FUZZERS)
SANITIZE_EXTRA+= policy-sanitize
CLEAN_EXTRA+=	policy-clean

.PHONY: policy-units policy-sanitize policy-clean

policy-units: $(POLICY_UNIT_TESTS) $(POLICY_FUZZERS)

regress/gateway/policy_test: regress/gateway/policy_test.c $(POLICY_SRCS) \
    $(POLICY_HDRS) $(POLICY_CONF_OBJS)
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	    -o $@ regress/gateway/policy_test.c $(POLICY_SRCS) \
	    $(POLICY_CONF_OBJS) $(ATF_LIBS) $(LDLIBS)

# The parser's generated code sets variables it never reads.
regress/fuzz/fuzz_policy: regress/fuzz/fuzz_policy.c $(POLICY_SRCS) \
    $(POLICY_HDRS) $(POLICY_CONF_SRCS)
	clang $(FUZZ_FLAGS) -Igateway -DCMCP_FUZZ \
	    -Wno-unused-but-set-variable -o $@ regress/fuzz/fuzz_policy.c \
	    $(POLICY_SRCS) $(POLICY_CONF_SRCS) $(LDLIBS)

# Each case writes its configuration into the working directory: a fresh
# one per case.
policy-sanitize: regress/gateway/policy_test.c $(POLICY_SRCS) \
    $(POLICY_HDRS) $(POLICY_CONF_SRCS)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) -Igateway $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -Wno-unused-but-set-variable -o obj-san/policy_test \
	    regress/gateway/policy_test.c $(POLICY_SRCS) \
	    $(POLICY_CONF_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/policy_test

policy-clean:
	rm -f $(POLICY_UNIT_TESTS) $(POLICY_FUZZERS) obj-san/policy_test
