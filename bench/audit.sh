#!/bin/sh
#
# Run the audit store benchmark and merge its figures into the results
# file, keeping the lines that other benchmarks (the watchdog's) wrote.
#
# usage: audit.sh prog results.tsv [prog options]
# BENCH_DIR: where the databases go; its file system's fsync is measured.

set -eu

prog=$1
out=$2
shift 2
dir=${BENCH_DIR:-obj/bench}

mkdir -p "$dir" "$(dirname "$out")"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.new"' EXIT

fs=$(df -PT "$dir" | awk 'NR == 2 { print $2 " on " $1 }')
echo "databases in $dir ($fs)"
"$prog" "$@" -o "$tmp" "$dir"

{
	if [ -f "$out" ]; then
		awk -F '\t' 'NR == FNR { mine[$1]; next } !($1 in mine)' \
		    "$tmp" "$out"
	fi
	cat "$tmp"
} >"$tmp.new"
mv "$tmp.new" "$out"
echo "figures merged into $out"
