# The official MCP servers run as upstreams by regress/upstream and
# bench/upstream: pinned by regress/upstream/npm/package-lock.json,
# installed by npm ci into obj/npm (scripts/npm-servers).  Included by
# the top Makefile after its variables (after mk/session.mk).
#
#   make npm-servers    install them (idempotent; scripts/check runs it
#                       before kyua)
#   make bench-upstream per-call latency of server-everything's echo,
#                       confined and from the C client directly (private
#                       engine running); bench/results/upstream.tsv

BENCH_TARGETS+=	bench-upstream

.PHONY: npm-servers bench-upstream

npm-servers:
	@scripts/npm-servers

UPSTREAM_SESSIONS?=	10
bench-upstream: npm-servers $(TPROG) $(CMCP_INIT) bench/calls-agent \
    bench/calls-tool
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-upstream: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/upstream -s $(UPSTREAM_SESSIONS) -o bench/results/upstream.tsv
