# The official MCP servers run as upstreams by regress/upstream and
# bench/upstream: pinned by regress/upstream/npm/package-lock.json,
# installed by npm ci into obj/npm (scripts/npm-servers).  Included by
# the top Makefile after its variables.
#
#   make npm-servers    install them (idempotent; scripts/check runs it
#                       before kyua)

.PHONY: npm-servers

npm-servers:
	@scripts/npm-servers
