# The lease watchdog, included by the top Makefile after its variables.
#
#   make bench-watchdog   detection time, bridge paused (only the watchdog
#                         can notice) and bridge killed, over
#                         WATCHDOG_BENCH_RUNS sessions on the private
#                         engine (regress/docker/dockerd-env start, make
#                         docker-images); figures in
#                         bench/results/watchdog.tsv, p50/p99 also in
#                         bench/results/audit.tsv
#
# Its tests are regress/watchdog (kyua, the real engine).

WATCHDOG_BENCH_RUNS?=	20

BENCH_TARGETS+=	bench-watchdog

.PHONY: bench-watchdog

bench-watchdog: $(TPROG)
	bench/watchdog.sh $(TPROG) bench/results/watchdog.tsv \
	    $(WATCHDOG_BENCH_RUNS)
