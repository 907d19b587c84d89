# The parent's MCP server spawner: unit test and fixture.  Included by the
# top Makefile after its variables.
#
#   make mcps-units     the spawner's test and its fixture server
#   make mcps-sanitize  the same test under ASan+UBSan
#   make mcps-clean
#
# Only this test binary is built with -DMCPS_MUTATE: the knob that
# removes one protection at a time exists in no other build.

MCPS_SRCS=	parent/mcpserver.c common/log.c
MCPS_HDRS=	parent/mcpserver.h common/config.h common/log.h common/cmcp.h

MCPS_FIXTURES=	regress/fixtures/mcps-server
MCPS_UNIT_TESTS= regress/parent/mcpserver_test

# The fixture is static: no library but libc.
MCPS_STATIC_CFLAGS= -O2 $(WARN) -D_GNU_SOURCE -D_FORTIFY_SOURCE=2 \
		-fstack-protector-strong -static-pie -fPIE

# The top Makefile's targets pick these up.
UNIT_TESTS+=	$(MCPS_UNIT_TESTS)
EXTRA_ALL+=	$(MCPS_FIXTURES)
SANITIZE_EXTRA+= mcps-sanitize
CLEAN_EXTRA+=	mcps-clean

.PHONY: mcps-units mcps-sanitize mcps-clean

mcps-units: $(MCPS_UNIT_TESTS) $(MCPS_FIXTURES)

regress/fixtures/mcps-server: regress/fixtures/mcps-server.c
	$(CC) $(MCPS_STATIC_CFLAGS) -o $@ regress/fixtures/mcps-server.c

# The test runs the fixture, so building it builds that.
regress/parent/mcpserver_test: regress/parent/mcpserver_test.c \
    $(MCPS_SRCS) $(MCPS_HDRS) | $(MCPS_FIXTURES)
	$(CC) $(CPPFLAGS) -DMCPS_MUTATE -Iparent $(ATF_CFLAGS) $(CFLAGS) \
	    $(LDFLAGS) -o $@ regress/parent/mcpserver_test.c $(MCPS_SRCS) \
	    $(ATF_LIBS) $(LDLIBS)

mcps-sanitize: $(MCPS_FIXTURES)
	@mkdir -p obj-san
	$(CC) $(CPPFLAGS) -DMCPS_MUTATE -Iparent $(ATF_CFLAGS) $(WARN) \
	    $(SAN_FLAGS) -o obj-san/mcpserver_test \
	    regress/parent/mcpserver_test.c $(MCPS_SRCS) $(ATF_LIBS) \
	    $(LDLIBS)
	scripts/san-run obj-san/mcpserver_test \
	    -v fixtures=$(CURDIR)/regress/fixtures

mcps-clean:
	rm -f $(MCPS_FIXTURES) $(MCPS_UNIT_TESTS)
