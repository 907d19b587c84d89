# The libFuzzer harnesses (regress/fuzz), each linked from its harness and
# the sources it fuzzes, all compiled by clang into obj-fuzz/ with
# -DCMCP_FUZZ (the parser prints no errors).  Included by the top
# Makefile after its variables.
#
# Seeds are regress/fuzz/corpus/<harness>, never written: each run's
# corpus is obj-fuzz/<harness>.

FUZZ_HARNESSES=	regress/fuzz/fuzz_imsg regress/fuzz/fuzz_config \
		regress/fuzz/fuzz_inspect regress/fuzz/fuzz_json \
		regress/fuzz/fuzz_frame regress/fuzz/fuzz_front \
		regress/fuzz/fuzz_mcp \
		regress/fuzz/fuzz_policy regress/fuzz/fuzz_sbstream

CPPFLAGS.regress/fuzz= -Ibridge -Igateway -Idockerd-client -Iregress/docker \
		$(CJSON_CFLAGS)

# What each fuzzes, beside its harness.
fuzz_imsg_SRCS=	common/imsg.c
fuzz_config_SRCS= common/parse.c common/printconf.c common/log.c \
		common/json.c
fuzz_inspect_SRCS= dockerd-client/dkr_template.c dockerd-client/dkr_verify.c \
		dockerd-client/dkr_seccomp.c common/json.c common/sha256.c
fuzz_json_SRCS=	common/json.c
fuzz_frame_SRCS= bridge/frame.c common/json.c
fuzz_front_SRCS= bridge/front.c bridge/frame.c common/json.c
fuzz_mcp_SRCS=	gateway/mcp.c common/json.c common/sha256.c
fuzz_policy_SRCS= gateway/policy.c common/json.c common/parse.c \
		common/printconf.c
fuzz_sbstream_SRCS= gateway/sbcall.c common/sbstream.c common/json.c

FUZZERS+=	$(FUZZ_HARNESSES)

$(FUZZ_HARNESSES): regress/fuzz/%: obj-fuzz/regress/fuzz/%.o
	clang $(FUZZ_FLAGS) -o $@ $^ $(LDLIBS) $(LDADD)

regress/fuzz/fuzz_imsg: $(fuzz_imsg_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_config: $(fuzz_config_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_inspect: $(fuzz_inspect_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_inspect: LDADD= $(CJSON_LIBS) -lm
regress/fuzz/fuzz_json: $(fuzz_json_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_json: LDADD= $(CJSON_LIBS)
regress/fuzz/fuzz_frame: $(fuzz_frame_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_front: $(fuzz_front_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_mcp: $(fuzz_mcp_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_policy: $(fuzz_policy_SRCS:%.c=obj-fuzz/%.o)
regress/fuzz/fuzz_sbstream: $(fuzz_sbstream_SRCS:%.c=obj-fuzz/%.o)
