# Agent protocol and strict JSON: unit tests and fuzz harnesses.
# Included by the top Makefile, whose CC, CPPFLAGS, CFLAGS, LDFLAGS,
# LDLIBS, ATF_CFLAGS, ATF_LIBS and FUZZ_FLAGS it uses.

PROTO_UNIT_TESTS=	regress/common/json_test regress/bridge/frame_test
PROTO_FUZZERS=		regress/fuzz/fuzz_json regress/fuzz/fuzz_frame

CJSON_CFLAGS!=		pkg-config --cflags libcjson 2>/dev/null
CJSON_LIBS!=		pkg-config --libs libcjson 2>/dev/null

JSON_HDRS=		common/json.h
FRAME_HDRS=		common/json.h common/cmcp.h bridge/frame.h

# The top Makefile's targets pick these up.
UNIT_TESTS+=		$(PROTO_UNIT_TESTS)
FUZZERS+=		$(PROTO_FUZZERS)
SANITIZE_EXTRA+=	proto-sanitize
CLEAN_EXTRA+=		proto-clean

.PHONY: proto-sanitize proto-clean

json_test_SRCS=		regress/common/json_test.c common/json.c
frame_test_SRCS=	regress/bridge/frame_test.c bridge/frame.c \
			common/json.c

regress/common/json_test: $(json_test_SRCS) $(JSON_HDRS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    $(json_test_SRCS) $(ATF_LIBS) $(LDLIBS)

regress/bridge/frame_test: $(frame_test_SRCS) $(FRAME_HDRS)
	$(CC) $(CPPFLAGS) -Ibridge $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    $(frame_test_SRCS) $(ATF_LIBS) $(LDLIBS)

regress/fuzz/fuzz_json: regress/fuzz/fuzz_json.c common/json.c $(JSON_HDRS)
	clang $(FUZZ_FLAGS) $(CJSON_CFLAGS) -o $@ regress/fuzz/fuzz_json.c \
	    common/json.c $(CJSON_LIBS) $(LDLIBS)

regress/fuzz/fuzz_frame: regress/fuzz/fuzz_frame.c bridge/frame.c \
    common/json.c $(FRAME_HDRS)
	clang $(FUZZ_FLAGS) -Ibridge -o $@ regress/fuzz/fuzz_frame.c \
	    bridge/frame.c common/json.c $(LDLIBS)

proto-sanitize: $(json_test_SRCS) $(frame_test_SRCS) $(FRAME_HDRS)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/json_test $(json_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	$(CC) $(CPPFLAGS) -Ibridge $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/frame_test $(frame_test_SRCS) $(ATF_LIBS) $(LDLIBS)
	scripts/san-run obj-san/json_test
	scripts/san-run obj-san/frame_test

proto-clean:
	rm -f $(PROTO_UNIT_TESTS) $(PROTO_FUZZERS)
