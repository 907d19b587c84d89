# The memory benchmark, included by the top Makefile after its variables.
#
#   make bench-memory   PSS (and RSS) of the parent and its five children
#                       during a session on the private engine
#                       (regress/docker/dockerd-env start, make
#                       docker-images): per-process maxima over
#                       MEMORY_SAMPLES samples, the median of
#                       MEMORY_BENCH_RUNS sessions; figures in
#                       bench/results/memory.tsv (suite_pss_mib)

MEMORY_BENCH_RUNS?=	3

BENCH_TARGETS+=	bench-memory

.PHONY: bench-memory

bench-memory: $(PROG) $(CMCP_INIT)
	@regress/docker/dockerd-env status >/dev/null 2>&1 || { \
	    echo "bench-memory: no private engine;" \
	        "run regress/docker/dockerd-env start"; exit 1; }
	$(MAKE) -s docker-images
	@mkdir -p bench/results
	bench/memory.sh $(PROG) bench/results/memory.tsv $(MEMORY_BENCH_RUNS)
