#!/bin/sh
#
# The watchdog's detection time (DESIGN 10) on the private engine: from
# the moment the bridge stops working to the container confirmed gone
# (the engine no longer lists it), over RUNS sessions of a workload that
# sleeps far longer.
#
#   stop  the bridge is paused (SIGSTOP): nothing reports it, only the
#         watchdog's lease can notice -- the figure of the issue
#   kill  the bridge is killed (SIGKILL): its channels close at once
#
# usage: watchdog.sh prog results.tsv [runs]
# Figures (metric<TAB>value<TAB>unit) go to results.tsv; watchdog_p50_s
# and watchdog_p99_s are also merged into audit.tsv beside it, where the
# audit benchmark's table keeps them.

set -eu

prog=$(cd "$(dirname "$1")" && pwd -P)/$(basename "$1")
out=$2
runs=${3:-20}
top=$(cd "$(dirname "$0")/.." && pwd -P)
sock=${CMCP_TEST_RUN:-/run/cmcp-test}/docker.sock
label=org.cmcp-privsep.session
work=$top/obj/bench/watchdog

[ -S "$sock" ] || { echo "watchdog.sh: no engine at $sock" >&2; exit 1; }
. "$top/regress/docker/images.env"
rm -rf "$work"
mkdir -p "$work" "$(dirname "$out")"
# A copy: a rebuild during the runs must not pull the binary away.
cp "$prog" "$work/cmcp-privsep-test"
prog=$work/cmcp-privsep-test
cd "$work"

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
	command "/bin/busybox" "sh" "-c" "exec sleep 60"
	user 10001:10001
	memory 64M
	pids 32
	nofile 256
	timeout 15s
	stdout 1M
	stderr 1M
}
EOC

now_ms()
{
	echo $(($(date +%s%N) / 1000000))
}

# listed: the engine lists a container of session $1, in any state
listed()
{
	curl -s -m 5 --unix-socket "$sock" -G --data-urlencode all=1 \
	    --data-urlencode "filters={\"label\":[\"$label=$1\"]}" \
	    http://localhost/containers/json | grep -q '"Id"'
}

pids=""
cleanup()
{
	for p in $pids; do
		kill -CONT "$p" 2>/dev/null || true
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

# one SIG: one session, the bridge signalled once admitted; prints ms
one()
{
	rm -f suite.log rc
	"$prog" -dv -f cmcp.conf -X stdout=/dev/null run >/dev/null \
	    2>suite.log &
	suite=$!
	n=0
	while ! grep -q 'container admitted and started' suite.log; do
		n=$((n + 1))
		[ $n -lt 1500 ] || { echo "no session" >&2; return 1; }
		sleep 0.02
	done
	sid=$(sed -n 's/^session \([0-9a-f]*\)$/\1/p' suite.log | head -n 1)
	echo "$sid" >>sessions
	bridge=$(sed -n 's/^started bridge pid \([0-9]*\)$/\1/p' suite.log)
	pids="$suite $(sed -n 's/^started [a-z-]* pid \([0-9]*\)$/\1/p' \
	    suite.log)"
	t0=$(now_ms)
	kill -"$1" "$bridge"
	while listed "$sid"; do
		[ $(($(now_ms) - t0)) -lt 30000 ] ||
		    { echo "container not gone" >&2; return 1; }
		sleep 0.01
	done
	t1=$(now_ms)
	wait "$suite" || true
	kill -KILL "$bridge" 2>/dev/null || true
	echo $((t1 - t0))
}

# pct P FILE: nearest-rank percentile of the values in FILE, in seconds
pct()
{
	sort -n "$2" | awk -v p="$1" '{ v[NR] = $1 } END {
	    r = int((p * NR + 99) / 100); if (r < 1) r = 1;
	    printf "%.3f", v[r] / 1000 }'
}

: >stop.ms
: >kill.ms
for i in $(seq "$runs"); do
	one STOP >>stop.ms
	one KILL >>kill.ms
	printf 'run %d: bridge paused %s ms, killed %s ms\n' "$i" \
	    "$(tail -n 1 stop.ms)" "$(tail -n 1 kill.ms)"
done

tmp=$(mktemp)
{
	printf 'watchdog_p50_s\t%s\ts\n' "$(pct 50 stop.ms)"
	printf 'watchdog_p99_s\t%s\ts\n' "$(pct 99 stop.ms)"
	printf 'watchdog_max_s\t%s\ts\n' "$(pct 100 stop.ms)"
	printf 'watchdog_kill_p50_s\t%s\ts\n' "$(pct 50 kill.ms)"
	printf 'watchdog_kill_p99_s\t%s\ts\n' "$(pct 99 kill.ms)"
	printf 'watchdog_runs\t%s\truns\n' "$runs"
} >"$tmp"
cd "$top"
mv "$tmp" "$out"
cat "$out"

# audit.tsv: the issue's table; its other lines are the audit bench's
audit=$(dirname "$out")/audit.tsv
grep -E '^watchdog_p(50|99)_s	' "$out" >"$work/mine"
{
	[ -f "$audit" ] && grep -Ev '^watchdog_p(50|99)_s	' "$audit" || true
	cat "$work/mine"
} >"$work/audit.new"
mv "$work/audit.new" "$audit"
echo "figures in $out, p50/p99 merged into $audit"
