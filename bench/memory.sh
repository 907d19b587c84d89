#!/bin/sh
#
# The suite's memory during a session on the private engine: the
# proportional set size (PSS, shared pages divided among the processes
# that map them) and the resident set size (RSS) of the parent and its
# five children, read from /proc/PID/smaps_rollup while the workload (a
# busybox sleep) runs.
#
# Per session: start the suite, wait until all children are ready and
# the engine lists the container as running, take SAMPLES samples
# INTERVAL seconds apart and keep each process's maximum; then let the
# session finish (SIGTERM if it outlives its time) and confirm that none
# of the six processes and no container of the session is left.
#
# Over RUNS sessions the figures are those of the median session (the
# session whose total PSS ranks ceil(RUNS/2)-th), so the per-process
# lines add up to the total.
#
# usage: memory.sh prog results.tsv [runs]
# Environment: MEMORY_SAMPLES (5), MEMORY_INTERVAL (0.2 s),
# MEMORY_SLEEP (workload's sleep, 5 s), CMCP_TEST_RUN (/run/cmcp-test).
# Figures (metric<TAB>value<TAB>unit) go to results.tsv.

set -eu

prog=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
out=$2
runs=${3:-3}
samples=${MEMORY_SAMPLES:-5}
interval=${MEMORY_INTERVAL:-0.2}
sleep_s=${MEMORY_SLEEP:-5}
top=$(cd "$(dirname "$0")/.." && pwd -P)
sock=${CMCP_TEST_RUN:-/run/cmcp-test}/docker.sock
label=org.cmcp-privsep.session
work=$top/obj/bench/memory
procs="parent bridge gateway auditor watchdog dockerd-client"

[ "$runs" -ge 1 ] 2>/dev/null || { echo "memory.sh: runs: $runs" >&2; exit 1; }
[ -x "$prog" ] || { echo "memory.sh: no program $prog" >&2; exit 1; }
[ -S "$sock" ] || { echo "memory.sh: no engine at $sock" >&2; exit 1; }
[ -r "$top/regress/docker/images.env" ] ||
    { echo "memory.sh: no test images: make docker-images" >&2; exit 1; }
. "$top/regress/docker/images.env"
rm -rf "$work"
mkdir -p "$work" "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd -P)/$(basename "$out")
# A copy: a rebuild during the runs must not pull the binary away.
cp "$prog" "$work/cmcp-privsep"
prog=$work/cmcp-privsep
cd "$work"

# the deadline: the sleep and 5 s, within the suite's 1..15 s
timeout_s=$((sleep_s + 5))
[ $timeout_s -le 15 ] ||
    { echo "memory.sh: MEMORY_SLEEP at most 10 s" >&2; exit 1; }
cat >cmcp.conf <<EOC
user bridge 61001:61001
user gateway 61002:61002
user auditor 61003:61003
user watchdog 61004:61004
user dockerd-client 61005:61005 group $(stat -c %g "$sock")
chroot "$work/root"
audit database "$work/audit/audit.db"
docker socket "$sock"
docker timeout 20s
init "$CMCP_INIT"
agent {
	image "$FIXTURE_IMAGE"
	command "/bin/busybox" "sleep" "$sleep_s"
	user 10001:10001
	memory 64M
	pids 32
	nofile 256
	timeout ${timeout_s}s
	stdout 1M
	stderr 1M
}
EOC

# containers STATE SESSION: the engine's list of the session's
# containers (all: in any state; running: running ones)
containers()
{
	_all=1
	[ "$1" = running ] && _all=0
	curl -s -m 5 --unix-socket "$sock" -G --data-urlencode "all=$_all" \
	    --data-urlencode "filters={\"label\":[\"$label=$2\"]}" \
	    http://localhost/containers/json
}

pids=""
cleanup()
{
	for p in $pids; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for s in $(cat sessions 2>/dev/null); do
		/usr/bin/docker -H "unix://$sock" ps -aq \
		    --filter "label=$label=$s" |
		    xargs -r /usr/bin/docker -H "unix://$sock" rm -f \
		    >/dev/null 2>&1 || true
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail()
{
	echo "memory.sh: $*" >&2
	[ -f suite.log ] && sed 's/^/  | /' suite.log >&2
	exit 1
}

# waitlog RE SECONDS: until the suite's log has a line matching RE
waitlog()
{
	_n=$(($2 * 50))
	while ! grep -Eq "$1" suite.log 2>/dev/null; do
		_n=$((_n - 1))
		[ $_n -gt 0 ] || fail "no '$1' after $2 s"
		kill -0 "$suite" 2>/dev/null || fail "suite exited early"
		sleep 0.02
	done
}

# one N: session N; per-process maxima in run.N (name pss_kb rss_kb)
one()
{
	rm -f suite.log summary.json
	"$prog" -dv -f cmcp.conf run >summary.json 2>suite.log &
	suite=$!
	pids=$suite
	waitlog '^all children ready$' 20
	waitlog 'container admitted and started$' 20
	sid=$(sed -n 's/^session \([0-9a-f]*\)$/\1/p' suite.log | head -n 1)
	[ -n "$sid" ] || fail "no session id"
	echo "$sid" >>sessions
	: >pids.$1
	for name in $procs; do
		if [ "$name" = parent ]; then
			p=$suite
		else
			p=$(sed -n "s/^started $name pid \([0-9]*\)\$/\1/p" \
			    suite.log)
		fi
		[ -n "$p" ] || fail "no pid for $name"
		pids="$pids $p"
		# the start time tells the process from a later one of that pid
		st=$(sed 's/^.*) //' "/proc/$p/stat" | cut -d' ' -f20)
		echo "$name $p $st" >>pids.$1
	done
	n=0
	while ! containers running "$sid" | grep -q '"Id"'; do
		n=$((n + 1))
		[ $n -lt 250 ] || fail "container of $sid not running"
		sleep 0.02
	done

	: >samples.$1
	k=0
	while [ $k -lt "$samples" ]; do
		[ $k -eq 0 ] || sleep "$interval"
		while read -r name p st; do
			r=/proc/$p/smaps_rollup
			awk -v n="$name" '/^Rss:/ { rss = $2 }
			    /^Pss:/ { pss = $2 }
			    END { if (pss == "" || rss == "") exit 1
				print n, pss, rss }' "$r" >>samples.$1 ||
			    fail "cannot read $r ($name)"
		done <pids.$1
		k=$((k + 1))
	done
	# the workload must still have run at the last sample
	containers running "$sid" | grep -q '"Id"' ||
	    fail "container of $sid ended while sampling: raise MEMORY_SLEEP"
	awk '{ if ($2 > p[$1]) p[$1] = $2; if ($3 > r[$1]) r[$1] = $3 }
	    END { for (n in p) print n, p[n], r[n] }' samples.$1 >max.$1

	# the session ends by itself; SIGTERM if it outlives its time
	n=0
	while kill -0 "$suite" 2>/dev/null; do
		n=$((n + 1))
		if [ $n -eq $(((sleep_s + 15) * 10)) ]; then
			echo "memory.sh: session $sid still running, SIGTERM" >&2
			kill -TERM "$suite" 2>/dev/null || true
		fi
		[ $n -lt $(((sleep_s + 45) * 10)) ] ||
		    fail "suite did not exit"
		sleep 0.1
	done
	rc=0
	wait "$suite" || rc=$?
	outcome=$(sed -n 's/.*"outcome":"\([a-z_]*\)".*/\1/p' summary.json)
	{ [ $rc -eq 0 ] && [ "$outcome" = completed ]; } ||
	    fail "session $sid: exit $rc, outcome '$outcome'"
	# confirm nothing is left: the six processes, the container
	while read -r name p st; do
		[ "$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null |
		    cut -d' ' -f20)" != "$st" ] ||
		    fail "$name (pid $p) still there"
	done <pids.$1
	pids=""
	left=$(containers all "$sid")
	case $left in
	'[]'|'[]'?) ;;
	*) fail "container of session $sid left: $left" ;;
	esac
}

# table FILE: per-process maxima and the total
table()
{
	for name in $procs; do
		awk -v n="$name" '$1 == n' "$1"
	done | awk '{ printf "  %-16s %10d %10d\n", $1, $2, $3
	    p += $2; r += $3 }
	    END { printf "  %-16s %10d %10d   (%.2f MiB PSS, %.2f MiB RSS)\n",
		"total", p, r, p / 1024, r / 1024 }'
}

: >totals
# (sh has no local variables: one and table use none of run's names)
for run in $(seq "$runs"); do
	one "$run"
	echo "session $run ($(tail -n 1 sessions)), maxima over $samples samples:"
	printf '  %-16s %10s %10s\n' PROCESS PSS_KIB RSS_KIB
	table "max.$run"
	awk -v i="$run" '{ p += $2 } END { print p, i }' "max.$run" >>totals
done

# the median session: rank ceil(runs/2) by total PSS
med=$(sort -n -k1,1 totals | sed -n "$(((runs + 1) / 2))p" | cut -d' ' -f2)
tmp=$(mktemp)
{
	awk '{ p += $2; r += $3 } END {
	    printf "suite_pss_mib\t%.2f\tMiB\n", p / 1024
	    printf "suite_rss_mib\t%.2f\tMiB\n", r / 1024 }' "max.$med"
	for name in $procs; do
		awk -v n="$name" '$1 == n { m = n; gsub("-", "_", m)
		    printf "%s_pss_kib\t%d\tKiB\n", m, $2 }' "max.$med"
	done
	sort -n -k1,1 totals | awk 'NR == 1 { lo = $1 } { hi = $1 } END {
	    printf "suite_pss_min_mib\t%.2f\tMiB\n", lo / 1024
	    printf "suite_pss_max_mib\t%.2f\tMiB\n", hi / 1024 }'
	printf 'memory_sessions\t%d\tsessions\n' "$runs"
} >"$tmp"
mv "$tmp" "$out"
chmod 644 "$out"

echo
echo "median session ($med of $runs, by total PSS):"
printf '  %-16s %10s %10s\n' PROCESS PSS_KIB RSS_KIB
table "max.$med"
echo "figures in $out"
