#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/progstats.sh [CALLS]: where iotrace's time goes, per BPF program.
# Turns kernel.bpf_stats_enabled on (and back to what it was), then runs the
# cached-pread microbenchmark (2 threads x CALLS, default 200000) twice:
# traced by `iotrace record -p`, and untraced while iotrace records an idle
# process. For each of this recorder's programs (found through its own fds,
# so the programs of other recorders on the machine do not count) it prints
# the runs and the ns a run (run_time_ns / run_cnt) during the workload, and
# the runs a pread call. bpf_stats adds two clock reads to every run: compare
# programs and versions measured this way, not these figures with wall time.
# When the bench's floor is built, it ends with the ns a call of the floor's
# empty syscall pair and of its pairs that time each call (clock, record).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
bench_env
CALLS=${1:-200000}
THREADS=2
[ "$(id -u)" -eq 0 ] || { echo "progstats: needs root (bpf_stats, BPF)" >&2; exit 1; }
[ -x "$IOTRACE" ] || { echo "progstats: $IOTRACE not found; run make" >&2; exit 1; }

TMP=$(mktemp -d /tmp/iotrace-progstats.XXXXXX)
STATS_WAS=$(cat /proc/sys/kernel/bpf_stats_enabled)
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	echo "$STATS_WAS" >/proc/sys/kernel/bpf_stats_enabled
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$BUILD/bench"
gcc -O2 -Wall -pthread "$ROOT/bench/pread_bench.c" -o "$BUILD/bench/pread_bench"
PREAD=$BUILD/bench/pread_bench
"$PREAD" -t "$THREADS" -n 1000 -d "$TMP" >/dev/null

# report TITLE BEFORE AFTER OUT: the difference of two snapshots, per
# program, printed and kept in OUT as "name runs ns".
report() {
	echo "== $1 ($THREADS x $CALLS pread)"
	printf '%-22s %12s %10s %12s\n' program runs ns/run runs/call
	join <(sort "$2") <(sort "$3") | awk '{ print $2, $6 - $3, $7 - $4 }' >"$4"
	awk -v calls=$((THREADS * CALLS)) '$2 > 0 {
		printf "%-22s %12d %10.1f %12.3f\n", $1, $2, $3 / $2, $2 / calls }' "$4"
}

# traced_share PROG: ns a traced call in PROG, the runs of other tasks in the
# traced run taken at the untraced run's ns a run: (T - (N - C) u) / C.
traced_share() {
	join <(grep "^$1 " "$TMP/traced") <(grep "^$1 " "$TMP/other") |
		awk -v c=$((THREADS * CALLS)) '{ u = $5 > 0 ? $5 / $4 : 0
			printf "%-22s %10.1f ns a traced call (others: %.1f ns a run)\n", $1, ($3 - ($2 - c) * u) / c, u }'
}

# record_start PID: iotrace records PID; RECORDER is its pid once attached
# (the trace holds a 32-byte header until then).
record_start() {
	"$IOTRACE" record -p "$1" -o "$TMP/t.iot" >/dev/null 2>"$TMP/rec.err" &
	RECORDER=$!
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(stat -c %s "$TMP/t.iot" 2>/dev/null || echo 0)" -gt 100 ] && return 0
		sleep 0.1
	done
	echo "progstats: iotrace did not start: $(cat "$TMP/rec.err")" >&2
	exit 1
}

record_stop() {
	kill -INT "$RECORDER"
	wait "$RECORDER" || true
	rm -f "$TMP/t.iot"
}

echo 1 >/proc/sys/kernel/bpf_stats_enabled

# Traced: a shell the recorder attaches to runs the workload once told to,
# says when it is done and lives on until the programs' figures are read (the
# recorder stops when its last process exits, and its programs go with it).
mkfifo "$TMP/go" "$TMP/done" "$TMP/end"
# shellcheck disable=SC2016 # expanded by that shell
sh -c 'read -r _ <"$1"; out=$4 done=$2 end=$3; shift 4; "$@" >"$out"; echo >"$done"
	read -r _ <"$end"' sh "$TMP/go" "$TMP/done" "$TMP/end" "$TMP/traced.out" \
	"$PREAD" -t "$THREADS" -n "$CALLS" -d "$TMP" &
WL=$!
record_start "$WL"
prog_runs "$RECORDER" >"$TMP/a"
echo go >"$TMP/go"
read -r _ <"$TMP/done"
prog_runs "$RECORDER" >"$TMP/b"
echo end >"$TMP/end"
wait "$WL"
record_stop
report "traced: $(cat "$TMP/traced.out")" "$TMP/a" "$TMP/b" "$TMP/traced"

# Untraced, while iotrace records an idle process; the floor's empty
# programs alongside, when built, give what bpf_stats and the dispatch
# themselves count in a run.
# floor_up SET: the floor's programs of SET attached; FLOOR is their loader.
floor_up() {
	rm -f "$TMP/floor.out"
	"$BUILD/bench/floor_load" "$BUILD/bench/floor.bpf.o" "$1" >"$TMP/floor.out" &
	FLOOR=$!
	for ((i = 0; i < 100; i++)); do
		[ -s "$TMP/floor.out" ] && break
		sleep 0.1
	done
}

FLOOR=
if [ -x "$BUILD/bench/floor_load" ] && [ -f "$BUILD/bench/floor.bpf.o" ]; then
	floor_up all
fi
sleep 3600 &
IDLE=$!
record_start "$IDLE"
prog_runs "$RECORDER" >"$TMP/a"
[ -n "$FLOOR" ] && prog_runs "$FLOOR" >>"$TMP/a"
"$PREAD" -t "$THREADS" -n "$CALLS" -d "$TMP" >"$TMP/other.out"
prog_runs "$RECORDER" >"$TMP/b"
[ -n "$FLOOR" ] && prog_runs "$FLOOR" >>"$TMP/b"
record_stop
kill "$IDLE"
[ -n "$FLOOR" ] && kill "$FLOOR"
report "untraced, iotrace recording another process: $(cat "$TMP/other.out")" "$TMP/a" "$TMP/b" \
	"$TMP/other"
echo "== the traced calls alone"
traced_share sys_enter_btf
traced_share sys_exit_btf

# The least a tracer that times each call pays (floor.bpf.c's clock and
# record pairs), each alone with the workload: beside the empty pair above,
# what of a traced call's time any such tracer would spend.
[ -n "$FLOOR" ] || exit 0
echo "== syscall pairs that time each call, ns a call (sys_enter + sys_exit a run)"
for set in clock record; do
	floor_up "$set"
	prog_runs "$FLOOR" >"$TMP/a"
	"$PREAD" -t "$THREADS" -n "$CALLS" -d "$TMP" >/dev/null
	prog_runs "$FLOOR" >"$TMP/b"
	kill "$FLOOR"
	wait "$FLOOR" || true
	join <(sort "$TMP/a") <(sort "$TMP/b") | awk '{ print $2, $6 - $3, $7 - $4 }' >"$TMP/$set"
done
awk '$1 ~ /^floor_sys_e/ && $2 > 0 { e += $3 / $2 } END { printf "%-22s %10.1f\n", "empty pair", e }' \
	"$TMP/other"
for set in clock record; do
	awk -v s="$set pair" '$1 ~ /^floor_(clock|rec)_/ && $2 > 0 { e += $3 / $2 }
		END { printf "%-22s %10.1f\n", s, e }' "$TMP/$set"
done
