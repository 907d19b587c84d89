# The benchmarks (bench/), each printing its figures and writing them to
# bench/results/<name>.tsv.  All but bench-audit run sessions on the
# private engine (regress/docker/dockerd-env start) with the test images
# (make docker-images).  Included by the top Makefile after mk/fixtures.mk
# and mk/docker.mk.
#
#   make bench-startup    session start to first byte and to confirmed
#                         cleanup, cmcp-privsep versus the docker CLI
#   make bench-audit      durable appends/s, group commit, verify of 1M
#                         records; BENCH_DIR must be on the file system
#                         whose fsync is to be measured; AUDIT_BENCH_FLAGS:
#                         -b records per group commit, -n records to
#                         verify, -s seconds per append run
#   make bench-calls      per-call round trip through the confined path
#                         and its baselines
#   make bench-watchdog   detection time, bridge paused (only the watchdog
#                         can notice) and bridge killed, over
#                         WATCHDOG_BENCH_RUNS sessions; p50/p99 also in
#                         bench/results/audit.tsv
#   make bench-memory     PSS (and RSS) of the parent and its five children
#                         during a session: per-process maxima, the median
#                         of MEMORY_BENCH_RUNS sessions (suite_pss_mib)
#   make bench-upstream   per-call latency of server-everything's echo
#                         (npm-servers), confined and from the C client
#                         directly
#   make bench-servers    a server in a container of its own beside the
#                         same server on the host: session time, time to
#                         servers ready, per-call latency (SERVERS_SESSIONS
#                         of each, alternating)
#   make bench-seccomp    a container's create and start with the suite's
#                         seccomp profile beside the engine's default
#                         (SECCOMP_RUNS of each, alternating)

BENCH_PROGS=	bench/audit bench/startup bench/calls-agent bench/calls-tool \
		bench/seccomp

CPPFLAGS.bench=	-Iauditor -Igateway -Iregress/fixtures $(SQLITE_CFLAGS)

BENCH_TARGETS+=	bench-startup bench-audit bench-calls bench-watchdog \
		bench-memory bench-upstream bench-servers bench-seccomp
CLEANFILES+=	$(BENCH_PROGS)

.PHONY: $(BENCH_TARGETS)

bench/audit: obj/bench/audit.o obj/auditor/auditdb.o obj/common/auditrec.o \
    obj/common/sha256.o obj/common/log.o
	$(CC) $(LDFLAGS) -o $@ $^ $(SQLITE_LIBS) $(LDLIBS)

# The suite's own engine client and template, as dockerd-client has them.
CPPFLAGS.bench+= -Idockerd-client $(CJSON_CFLAGS) $(CURL_CFLAGS)
bench/seccomp: obj/bench/seccomp.o $(DKR_API_SRCS:%.c=obj/%.o)
	$(CC) $(LDFLAGS) -o $@ $^ $(CJSON_LIBS) $(CURL_LIBS) $(LDLIBS) -lm

bench/startup: obj/bench/startup.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The calls benchmark's agent runs in the fixture image: static, libc only.
bench/calls-agent: obj-static/bench/calls-agent.o
	$(CC) $(STATIC_CFLAGS) -o $@ $^

bench/calls-tool: obj/bench/calls-tool.o obj/gateway/mcp.o obj/common/json.o \
    obj/common/sha256.o obj/regress/fixtures/mcp-peer.o
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

STARTUP_RUNS?=	11
bench-startup: bench/startup $(TPROG) $(CMCP_INIT) $(DKR_FIXTURES)
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-startup: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/startup -n $(STARTUP_RUNS) -o bench/results/startup.tsv \
	    $(IMAGES_ENV) $(CURDIR)/$(TPROG)

BENCH_DIR?=	$(CURDIR)/obj/bench
AUDIT_BENCH_FLAGS?=
bench-audit: bench/audit
	BENCH_DIR=$(BENCH_DIR) bench/audit.sh bench/audit \
	    bench/results/audit.tsv $(AUDIT_BENCH_FLAGS)

CALLS_SESSIONS?=	30
bench-calls: $(TPROG) $(CMCP_INIT) $(DKR_FIXTURES) $(MCP_FIXTURES) \
    bench/calls-agent bench/calls-tool bench/audit
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-calls: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/calls -s $(CALLS_SESSIONS) -o bench/results/calls.tsv

WATCHDOG_BENCH_RUNS?=	20
bench-watchdog: $(TPROG)
	bench/watchdog.sh $(TPROG) bench/results/watchdog.tsv \
	    $(WATCHDOG_BENCH_RUNS)

MEMORY_BENCH_RUNS?=	3
bench-memory: $(PROG) $(CMCP_INIT)
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-memory: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/memory.sh $(PROG) bench/results/memory.tsv $(MEMORY_BENCH_RUNS)

UPSTREAM_SESSIONS?=	10
bench-upstream: npm-servers $(TPROG) $(CMCP_INIT) bench/calls-agent \
    bench/calls-tool
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-upstream: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/upstream -s $(UPSTREAM_SESSIONS) -o bench/results/upstream.tsv

SERVERS_SESSIONS?=	10
bench-servers: $(TPROG) $(CMCP_INIT) $(MCP_FIXTURES) bench/calls-agent \
    bench/calls-tool
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-servers: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/servers -s $(SERVERS_SESSIONS) -o bench/results/servers.tsv

SECCOMP_RUNS?=	15
bench-seccomp: bench/seccomp $(CMCP_INIT)
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-seccomp: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/seccomp -n $(SECCOMP_RUNS) -o bench/results/seccomp.tsv \
	    $(IMAGES_ENV)
