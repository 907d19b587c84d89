# Agent fixtures (static, for the test images) and the host-side observers,
# with their tests.  Included by the top Makefile after its variables.
#
#   make agent-fixtures   agent-script, agent-adversary (regress/fixtures)
#   make observers        tcp-observer, udp-observer (regress/observers)
#   make fixtures-units   the above and their tests
#   make fixtures-sanitize the agent tests under ASan+UBSan
#   make fixtures-clean

AGENT_FIXTURES=	regress/fixtures/agent-script regress/fixtures/agent-adversary
AGENT_JSON=	regress/fixtures/agent-json.c
AGENT_HDRS=	regress/fixtures/agent-json.h
OBSERVERS=	regress/observers/tcp-observer regress/observers/udp-observer
OBS_SRCS=	regress/observers/observer.c
OBS_HDRS=	regress/observers/observer.h
FIXTURES_TESTS=	regress/fixtures/agent_test

# The agents run inside the container: static, no library but libc.
AGENT_STATIC_CFLAGS= -O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE -Iregress/fixtures

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(FIXTURES_TESTS)
EXTRA_ALL+=	$(AGENT_FIXTURES) $(OBSERVERS)
SANITIZE_EXTRA+= fixtures-sanitize
CLEAN_EXTRA+=	fixtures-clean

.PHONY: agent-fixtures observers fixtures-units fixtures-sanitize \
	fixtures-clean

agent-fixtures: $(AGENT_FIXTURES)

observers: $(OBSERVERS)

fixtures-units: $(AGENT_FIXTURES) $(OBSERVERS) $(FIXTURES_TESTS)

regress/fixtures/agent-script: regress/fixtures/agent-script.c \
    $(AGENT_JSON) $(AGENT_HDRS)
	$(CC) $(AGENT_STATIC_CFLAGS) -o $@ regress/fixtures/agent-script.c \
	    $(AGENT_JSON)

regress/fixtures/agent-adversary: regress/fixtures/agent-adversary.c \
    $(AGENT_JSON) $(AGENT_HDRS)
	$(CC) $(AGENT_STATIC_CFLAGS) -o $@ \
	    regress/fixtures/agent-adversary.c $(AGENT_JSON)

regress/observers/tcp-observer: regress/observers/tcp-observer.c \
    $(OBS_SRCS) $(OBS_HDRS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/observers/tcp-observer.c $(OBS_SRCS) $(LDLIBS)

regress/observers/udp-observer: regress/observers/udp-observer.c \
    $(OBS_SRCS) $(OBS_HDRS)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/observers/udp-observer.c $(OBS_SRCS) $(LDLIBS)

# The test runs the fixtures, so building it builds them.
regress/fixtures/agent_test: regress/fixtures/agent_test.c \
    | $(AGENT_FIXTURES) $(OBSERVERS)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ \
	    regress/fixtures/agent_test.c $(ATF_LIBS) $(LDLIBS)

# The agents themselves instrumented (dynamic: the sanitizers need it),
# run by the same test through its srcdir.
fixtures-sanitize: $(OBSERVERS)
	@mkdir -p obj-san/fixtures
	$(CC) $(WARN) $(SAN_FLAGS) -D_GNU_SOURCE -Iregress/fixtures \
	    -o obj-san/fixtures/agent-script regress/fixtures/agent-script.c \
	    $(AGENT_JSON)
	$(CC) $(WARN) $(SAN_FLAGS) -D_GNU_SOURCE -Iregress/fixtures \
	    -o obj-san/fixtures/agent-adversary \
	    regress/fixtures/agent-adversary.c $(AGENT_JSON)
	$(CC) $(CPPFLAGS) $(ATF_CFLAGS) $(WARN) $(SAN_FLAGS) \
	    -o obj-san/fixtures/agent_test regress/fixtures/agent_test.c \
	    $(ATF_LIBS) $(LDLIBS)
	cd obj-san/fixtures && $(CURDIR)/scripts/san-run ./agent_test

fixtures-clean:
	rm -f $(AGENT_FIXTURES) $(OBSERVERS) $(FIXTURES_TESTS)
	rm -rf obj-san/fixtures
