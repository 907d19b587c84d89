# The bound matrix (regress/bounds): its fixture MCP server.  Included by
# the top Makefile after mk/mcp.mk, whose static flags and peer helpers
# it uses.
#
#   make bounds-fixtures  regress/fixtures/mcp-bounds
#   make bounds-clean

BOUNDS_FIXTURES= regress/fixtures/mcp-bounds

EXTRA_ALL+=	$(BOUNDS_FIXTURES)
CLEAN_EXTRA+=	bounds-clean

.PHONY: bounds-fixtures bounds-clean

bounds-fixtures: $(BOUNDS_FIXTURES)

regress/fixtures/mcp-bounds: regress/fixtures/mcp-bounds.c \
    $(MCP_PEER_SRCS) $(MCP_PEER_HDRS)
	$(CC) $(MCP_STATIC_CFLAGS) -o $@ regress/fixtures/mcp-bounds.c \
	    $(MCP_PEER_SRCS) $(MCP_PEER_LIBS)

bounds-clean:
	rm -f $(BOUNDS_FIXTURES)
