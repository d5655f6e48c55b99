#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/run.sh [--quick]: the capture-overhead benchmark (DESIGN §7, issues
# 2, 5 and 22). Runs each workload untraced, under `iotrace record`, `strace -f`,
# the bpftrace script bench/trace.bt and `perf trace`, several rounds, and
# writes the medians to docs/BENCHMARKS.md between its own markers. The
# microbenchmark also runs under the floor (empty programs on iotrace's
# tracepoints, bench/floor.bpf.c), traced and untraced while iotrace records
# another process, so iotrace's own share is stated above the floor.
#
#   BUILD=DIR    where iotrace was built (default build/); uses $BUILD/iotrace
#   --quick      3 rounds of reduced sizes, about a minute; default is the
#                full run: 5 rounds, full sizes, fio direct I/O and db_bench
#
# A tool that is missing or does not work here loses its column, with a note
# in the doc; nothing short of a missing iotrace binary stops the run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
# shellcheck source=bench/lib.sh
. "$BENCH/lib.sh"

MODE=full
for arg in "$@"; do
	case $arg in
	--quick) MODE=quick ;;
	-h | --help)
		sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "usage: bench/run.sh [--quick]" >&2
		exit 2
		;;
	esac
done

bench_env

# Sizes. The microbenchmark's full size is the one DESIGN §7 names; the quick
# sizes (fio randread only) keep this part near a minute with strace at
# ~20-200x, so that the whole of `make bench-quick` takes two to three.
if [ "$MODE" = quick ]; then
	ROUNDS=3
	PREAD_THREADS=2 PREAD_CALLS=50000
	FIO_SIZE=256M FIO_RUNTIME=1 FIO_DIRECT_MODES="0" FIO_RWS="randread"
	RUN_LIMIT=180
else
	ROUNDS=5
	PREAD_THREADS=2 PREAD_CALLS=500000
	FIO_SIZE=1G FIO_RUNTIME=4 FIO_DIRECT_MODES="0 1" FIO_RWS="randread randwrite"
	DB_NUM=500000 DB_DURATION=5
	RUN_LIMIT=900
fi

CONFIGS=(untraced iotrace strace bpftrace perf)
# The microbenchmark adds the floors: the empty syscall pair, and the pair
# with the empty scheduler programs (what iotrace attaches for every task).
PREAD_CONFIGS=(untraced floor-sys floor-all iotrace strace bpftrace perf)
# The same, untraced, while iotrace records an idle process: the filter's cost.
OTHER_CONFIGS=(untraced floor-sys floor-all iotrace-other)
declare -A SKIP=()   # config -> why it is skipped
NOTES=()             # lines for the doc's notes
WORKLOADS=()         # in the order they ran
declare -A WL_TITLE=() WL_METRIC=() WL_DIR=() WL_CMD=() WL_CFGS=()

TMP=$(mktemp -d /tmp/iotrace-bench.XXXXXX)
RESULTS=$TMP/results.tsv
: >"$RESULTS"

# Whatever happens, leave no temp files and no stray children behind.
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	# Children of this script only (timeout puts each run in its own group).
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---------------------------------------------------------------- tools ---

# build_helpers: the microbenchmark and the CPU-time wrapper, compiled here so
# the harness needs nothing from the Makefile beyond iotrace itself.
build_helpers() {
	mkdir -p "$BUILD/bench"
	gcc -O2 -Wall -pthread "$BENCH/pread_bench.c" -o "$BUILD/bench/pread_bench"
	gcc -O2 -Wall "$BENCH/cputime.c" -o "$BUILD/bench/cputime"
	PREAD_BENCH=$BUILD/bench/pread_bench
	CPUTIME=$BUILD/bench/cputime
	FLOOR_LOAD=$BUILD/bench/floor_load
	FLOOR_OBJ=$BUILD/bench/floor.bpf.o
}

# wait_for_file FILE MIN_BYTES TENTHS: true once FILE holds more than
# MIN_BYTES, polled every 0.1 s for at most TENTHS tenths of a second.
wait_for_file() {
	local i
	for ((i = 0; i < $3; i++)); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# floor_start SET: attach the empty programs of SET (syscalls, all) for one
# run; floor_stop detaches them.
floor_start() {
	"$FLOOR_LOAD" "$FLOOR_OBJ" "$1" >"$TMP/floor.out" 2>"$TMP/floor.err" &
	FLOOR_PID=$!
	wait_for_file "$TMP/floor.out" 0 100 && return 0
	floor_stop
	return 1
}

floor_stop() {
	kill "$FLOOR_PID" 2>/dev/null || true
	wait "$FLOOR_PID" 2>/dev/null || true
}

# other_start: `iotrace record -p` of an idle process, so that its programs
# run for every task while the workload stays untraced. The trace holds a
# 32-byte header until the programs are attached and calibrated, then the
# metadata block.
other_start() {
	"$IOTRACE" record -p "$IDLE_PID" -o "$TMP/trace.iot" >/dev/null 2>"$TMP/other.err" &
	OTHER_PID=$!
	wait_for_file "$TMP/trace.iot" 100 300 && return 0
	other_stop
	return 1
}

other_stop() {
	kill -INT "$OTHER_PID" 2>/dev/null || true
	wait "$OTHER_PID" 2>/dev/null || true
}

# check_tools: try each tracer on `true` once, so a tracer that is installed
# but cannot run here (no BPF, no perf events) is skipped, not failed 15 times.
check_tools() {
	if ! "$IOTRACE" record -o "$TMP/check.iot" -- true >/dev/null 2>"$TMP/check.err"; then
		SKIP[iotrace]="\`iotrace record\` failed here: $(head -c 200 "$TMP/check.err" | tr '\n' ' ')"
	fi
	if ! have strace; then
		SKIP[strace]="strace is not installed"
	elif ! strace -f -qq -o /dev/null -- true 2>/dev/null; then
		SKIP[strace]="strace does not run here"
	fi
	if ! have bpftrace; then
		SKIP[bpftrace]="bpftrace is not installed"
	elif ! timeout 60 bpftrace -o "$TMP/check.bt" -c /bin/true "$BENCH/trace.bt" >/dev/null 2>"$TMP/check.err"; then
		SKIP[bpftrace]="bpftrace does not run here: $(grep -m1 -i error "$TMP/check.err" | head -c 200)"
	fi
	if ! have perf; then
		SKIP[perf]="perf is not installed (package linux-perf)"
	elif ! timeout 60 perf trace -o /dev/null -- true >/dev/null 2>"$TMP/check.err"; then
		SKIP[perf]="\`perf trace\` does not run here: $(head -c 200 "$TMP/check.err" | tr '\n' ' ')"
	fi
	if [ ! -x "$FLOOR_LOAD" ] || [ ! -f "$FLOOR_OBJ" ]; then
		SKIP[floor-sys]="the floor is not built (\`make bench\` builds $FLOOR_LOAD)"
	elif ! floor_start all; then
		SKIP[floor-sys]="\`floor_load\` failed here: $(head -c 200 "$TMP/floor.err" | tr '\n' ' ')"
	else
		floor_stop
	fi
	[ -n "${SKIP[floor-sys]:-}" ] && SKIP[floor-all]=${SKIP[floor-sys]}
	[ -n "${SKIP[iotrace]:-}" ] && SKIP[iotrace-other]=${SKIP[iotrace]}
	local c
	for c in "${!SKIP[@]}"; do
		log "skipping $c: ${SKIP[$c]}"
		NOTES+=("Column **$c** skipped: ${SKIP[$c]}.")
	done
	rm -f "$TMP"/check.*
}

# tool_versions: one line naming what was measured.
tool_versions() {
	local v=()
	v+=("iotrace $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')")
	have fio && v+=("$(fio --version)")
	have strace && v+=("strace $(strace -V | awk 'NR == 1 { print $NF }')")
	have bpftrace && v+=("$(bpftrace --version)")
	have perf && v+=("$(perf version 2>/dev/null)")
	have db_bench && v+=("db_bench (rocksdb-tools $(dpkg-query -W -f='${Version}' rocksdb-tools 2>/dev/null || echo '?'))")
	local out
	out=$(printf '%s, ' "${v[@]}")
	echo "${out%, }"
}

# ------------------------------------------------------------- running ---

# run_one WORKLOAD CONFIG ROUND CMD...: run CMD under CONFIG once and append
# one line to $RESULTS:
#   workload config round ok metric recorder_cpu workload_cpu events lost bpe cpu_ns
# cpu_ns is the microbenchmark's CPU per call in its timed loop, "-" for others.
# The metric comes from the workload's own report (parse_metric), so tracer
# start-up and shutdown do not count.
run_one() {
	local wl=$1 cfg=$2 round=$3
	shift 3
	local out=$TMP/out err=$TMP/err cpu=$TMP/cpu rc=0
	local rec_cpu=- wl_cpu=- events=- lost=- bpe=- metric=- cpu_ns=-
	rm -f "$out" "$err" "$cpu" "$TMP/trace.iot" "$TMP/bt.out" "$TMP/perf.out" "$TMP/fio.json"
	# timeout gives each run its own process group and kills all of it on a hang.
	local T=(timeout --kill-after=10 "$RUN_LIMIT" "$CPUTIME" "$cpu")
	case $cfg in
	untraced) "${T[@]}" "$@" >"$out" 2>"$err" || rc=$? ;;
	floor-sys | floor-all)
		if floor_start "$([ "$cfg" = floor-sys ] && echo syscalls || echo all)"; then
			"${T[@]}" "$@" >"$out" 2>"$err" || rc=$?
			floor_stop
		else
			cp "$TMP/floor.err" "$err"
			rc=1
		fi
		;;
	iotrace-other)
		if other_start; then
			"${T[@]}" "$@" >"$out" 2>"$err" || rc=$?
			other_stop
		else
			cp "$TMP/other.err" "$err"
			rc=1
		fi
		;;
	iotrace) "${T[@]}" "$IOTRACE" record -o "$TMP/trace.iot" -- "$@" >"$out" 2>"$err" || rc=$? ;;
	strace) "${T[@]}" strace -f -qq -o /dev/null -- "$@" >"$out" 2>"$err" || rc=$? ;;
	# bpftrace -c takes one string and splits it at spaces: no spaces in paths.
	bpftrace) "${T[@]}" bpftrace -o "$TMP/bt.out" -c "$*" "$BENCH/trace.bt" >"$out" 2>"$err" || rc=$? ;;
	perf) "${T[@]}" perf trace -o "$TMP/perf.out" -- "$@" >"$out" 2>"$err" || rc=$? ;;
	esac
	metric=$(parse_metric "$wl" "$out" 2>/dev/null || true)
	if [ "$rc" -ne 0 ] || [ -z "$metric" ]; then
		log "$wl/$cfg round $round failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ' | head -c 300)"
		printf '%s\t%s\t%s\t0\t-\t-\t-\t-\t-\t-\t-\n' "$wl" "$cfg" "$round" >>"$RESULTS"
		return 0
	fi
	# cputime: self = the process it started (the tracer, or the untraced
	# workload itself); children = what that process reaped (the workload).
	if [ -s "$cpu" ]; then
		local su ss cu cs
		su=$(grep -o 'self_user_s=[0-9.]*' "$cpu" | cut -d= -f2)
		ss=$(grep -o 'self_sys_s=[0-9.]*' "$cpu" | cut -d= -f2)
		cu=$(grep -o 'child_user_s=[0-9.]*' "$cpu" | cut -d= -f2)
		cs=$(grep -o 'child_sys_s=[0-9.]*' "$cpu" | cut -d= -f2)
		if [ "$cfg" != iotrace ] && [ "$cfg" != strace ] && [ "$cfg" != bpftrace ] &&
			[ "$cfg" != perf ]; then
			wl_cpu=$(awk -v a="$su" -v b="$ss" -v c="$cu" -v d="$cs" 'BEGIN { print a + b + c + d }')
		else
			rec_cpu=$(awk -v a="$su" -v b="$ss" 'BEGIN { print a + b }')
			wl_cpu=$(awk -v c="$cu" -v d="$cs" 'BEGIN { print c + d }')
		fi
	fi
	case $cfg in
	untraced | strace | floor-*) lost=0 ;; # strace stops the tracee: it cannot lose calls
	iotrace | iotrace-other)
		if "$IOTRACE" info "$TMP/trace.iot" >"$TMP/info.json" 2>/dev/null; then
			events=$(jq -r '.events' "$TMP/info.json")
			lost=$(jq -r '.lost_events' "$TMP/info.json")
			bpe=$(jq -r '.bytes_per_event' "$TMP/info.json")
		fi
		;;
	bpftrace)
		# Text lines; bpftrace reports perf-buffer drops as "Lost N events".
		if [ -f "$TMP/bt.out" ]; then
			events=$(grep -cE '^[0-9]+ [0-9]+ ' "$TMP/bt.out" || true)
			lost=$(awk '/^Lost [0-9]+ events/ { s += $2 } END { print s + 0 }' "$TMP/bt.out")
			bpe=$(awk -v b="$(stat -c %s "$TMP/bt.out")" -v n="$events" 'BEGIN { if (n > 0) print b / n; else print "-" }')
		fi
		;;
	perf)
		if [ -f "$TMP/perf.out" ]; then
			events=$(grep -cvE 'LOST|^$' "$TMP/perf.out" || true)
			lost=$(cat "$TMP/perf.out" "$err" | awk '{ for (i = 1; i < NF; i++) if ($i == "LOST") s += $(i + 1) } END { print s + 0 }')
			# perf lets the kernel reap its workload: no CPU time to read.
			[ "$wl_cpu" = 0 ] && wl_cpu=-
			bpe=$(awk -v b="$(stat -c %s "$TMP/perf.out")" -v n="$events" 'BEGIN { if (n > 0) print b / n; else print "-" }')
		fi
		;;
	esac
	case $wl in
	pread*)
		cpu_ns=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
			END { if (v["calls"] > 0) print v["loop_cpu_s"] * 1e9 / v["calls"] }' "$out")
		;;
	esac
	printf '%s\t%s\t%s\t1\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$wl" "$cfg" "$round" \
		"$metric" "$rec_cpu" "$wl_cpu" "$events" "$lost" "$bpe" "${cpu_ns:--}" >>"$RESULTS"
	rm -f "$TMP/trace.iot" "$TMP/bt.out" "$TMP/perf.out"
}

# parse_metric WORKLOAD OUTFILE: the workload's own figure, on stdout.
parse_metric() {
	case $1 in
	pread*) grep -o 'elapsed_s=[0-9.]*' "$2" | cut -d= -f2 ;;
	fio-*)
		# group_reporting: one job entry; read + write IOPS of the whole group.
		jq -r '.jobs[0] | (.read.iops + .write.iops)' "$TMP/fio.json"
		;;
	db-*)
		# "readrandom   :  12.3 micros/op 81234 ops/sec 5.0 seconds ..."
		awk '/ops\/sec/ && / : / { for (i = 1; i < NF; i++) if ($(i + 1) == "ops/sec") { print $i; exit } }' "$2"
		;;
	esac
}

# bench_workload NAME ROUNDS CMD...: every config, ROUNDS rounds. The order
# of the configs rotates each round, so no config always runs first (after a
# cold spell) or last; ratios are taken within a round.
bench_workload() {
	local wl=$1 rounds=$2
	shift 2
	# An absolute program path: bpftrace -c refuses a name that two PATH
	# entries match (/bin and /usr/bin are one directory on merged-/usr).
	local prog
	prog=$(command -v "$1") || { NOTES+=("$wl skipped: $1 not found."); return 0; }
	set -- "$(readlink -f "$prog")" "${@:2}"
	WORKLOADS+=("$wl")
	WL_CMD[$wl]="$*"
	local cfgs
	read -ra cfgs <<<"${WL_CFGS[$wl]:-${CONFIGS[*]}}"
	WL_CFGS[$wl]="${cfgs[*]}"
	local r i n=${#cfgs[@]}
	for ((r = 1; r <= rounds; r++)); do
		for ((i = 0; i < n; i++)); do
			local cfg=${cfgs[$(((i + r - 1) % n))]}
			[ -n "${SKIP[$cfg]:-}" ] && continue
			log "$wl: round $r/$rounds: $cfg"
			run_one "$wl" "$cfg" "$r" "$@"
		done
	done
}

# ----------------------------------------------------------- workloads ---

workload_pread() {
	local dir=$TMP/pread
	mkdir -p "$dir"
	# Create and cache the files once, untraced, so no round pays for it.
	"$PREAD_BENCH" -t "$PREAD_THREADS" -n 1000 -d "$dir" >/dev/null
	WL_TITLE[pread]="Microbenchmark: $PREAD_THREADS threads x $PREAD_CALLS cached 4 KiB \`pread\`"
	WL_METRIC[pread]="elapsed s"
	WL_DIR[pread]="time"
	WL_CFGS[pread]="${PREAD_CONFIGS[*]}"
	bench_workload pread "$ROUNDS" "$PREAD_BENCH" -t "$PREAD_THREADS" -n "$PREAD_CALLS" -d "$dir"
	# The same, untraced, while iotrace records an idle process.
	sleep 3600 &
	IDLE_PID=$!
	WL_TITLE[pread-other]="The same microbenchmark, untraced, while iotrace records another (idle) process"
	WL_METRIC[pread-other]="elapsed s"
	WL_DIR[pread-other]="time"
	WL_CFGS[pread-other]="${OTHER_CONFIGS[*]}"
	bench_workload pread-other "$ROUNDS" "$PREAD_BENCH" -t "$PREAD_THREADS" -n "$PREAD_CALLS" \
		-d "$dir"
	kill "$IDLE_PID" 2>/dev/null || true
	wait "$IDLE_PID" 2>/dev/null || true
	rm -rf "$dir"
}

workload_fio() {
	if ! have fio; then
		NOTES+=("fio workloads skipped: fio is not installed.")
		return 0
	fi
	local dir=$TMP/fio direct rw wl
	mkdir -p "$dir"
	# Lay the file out once, untraced; every run then reuses it.
	fio --name=layout --filename="$dir/fio.dat" --size="$FIO_SIZE" --rw=write --bs=1M \
		--ioengine=psync --create_only=1 >/dev/null 2>&1 || true
	for direct in $FIO_DIRECT_MODES; do
		for rw in $FIO_RWS; do
			wl=fio-$rw
			[ "$direct" = 1 ] && wl=$wl-direct
			WL_TITLE[$wl]="fio $rw, 4 jobs, 4 KiB, psync, $FIO_SIZE file, ${FIO_RUNTIME}s"
			if [ "$direct" = 1 ]; then
				WL_TITLE[$wl]+=", O_DIRECT (ext4 on the VM disk)"
			else
				WL_TITLE[$wl]+=", buffered (page cache)"
			fi
			WL_METRIC[$wl]="IOPS"
			WL_DIR[$wl]=rate
			bench_workload "$wl" "$ROUNDS" fio --name="$rw" --filename="$dir/fio.dat" \
				--size="$FIO_SIZE" --rw="$rw" --bs=4k --numjobs=4 --ioengine=psync \
				--direct="$direct" --time_based --runtime="$FIO_RUNTIME" --group_reporting \
				--output-format=json --output="$TMP/fio.json"
		done
	done
	rm -rf "$dir"
}

workload_db_bench() {
	if [ "$MODE" = quick ]; then
		NOTES+=("RocksDB \`db_bench\` runs in the full benchmark only (\`make bench\`), to keep the quick run near two minutes.")
		return 0
	fi
	if ! have db_bench; then
		log "db_bench missing: trying apt-get install rocksdb-tools"
		if [ "$(id -u)" -eq 0 ] &&
			DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -qq rocksdb-tools >/dev/null 2>&1; then
			NOTES+=("rocksdb-tools was installed by this run (apt-get install -y rocksdb-tools).")
		fi
	fi
	if ! have db_bench; then
		NOTES+=("RocksDB \`db_bench\` workloads skipped: \`apt-get install rocksdb-tools\` failed or is not allowed here.")
		return 0
	fi
	local dir=$TMP/rocksdb
	mkdir -p "$dir"
	local common=(--compression_type=none --value_size=100 --key_size=16 --num="$DB_NUM"
		--statistics=0 --histogram=0)
	# readrandom reads a database filled once, untraced, before the rounds.
	if ! db_bench --benchmarks=fillrandom --db="$dir/read" --threads=1 "${common[@]}" \
		>"$TMP/dbfill.log" 2>&1; then
		NOTES+=("RocksDB readrandom skipped: filling its database failed: $(tail -n 1 "$TMP/dbfill.log").")
	else
		WL_TITLE[db-readrandom]="RocksDB db_bench readrandom, 8 threads, $DB_NUM keys, ${DB_DURATION}s"
		WL_METRIC[db-readrandom]="ops/s"
		WL_DIR[db-readrandom]=rate
		bench_workload db-readrandom "$ROUNDS" db_bench --benchmarks=readrandom \
			--db="$dir/read" --use_existing_db=1 --threads=8 --duration="$DB_DURATION" "${common[@]}"
	fi
	# fillsync starts from an empty database each run (use_existing_db=0).
	WL_TITLE[db-fillsync]="RocksDB db_bench fillsync, 8 threads, ${DB_DURATION}s"
	WL_METRIC[db-fillsync]="ops/s"
	WL_DIR[db-fillsync]=rate
	bench_workload db-fillsync "$ROUNDS" db_bench --benchmarks=fillsync \
		--db="$dir/sync" --use_existing_db=0 --threads=8 --duration="$DB_DURATION" "${common[@]}"
	rm -rf "$dir"
}

# -------------------------------------------------------------- report ---

# col WORKLOAD CONFIG FIELD: median of a results column over the ok runs.
# Fields: 5 metric, 6 recorder cpu, 7 workload cpu, 8 events, 9 lost, 10 bpe.
col() {
	awk -F'\t' -v w="$1" -v c="$2" -v f="$3" '$1 == w && $2 == c && $4 == 1 { print $f }' \
		"$RESULTS" | median
}

# maxcol WORKLOAD CONFIG FIELD: the worst run, for lost events.
maxcol() {
	awk -F'\t' -v w="$1" -v c="$2" -v f="$3" '
		$1 == w && $2 == c && $4 == 1 && $f != "-" { n++; if ($f > m) m = $f }
		END { if (n) print m + 0; else print "-" }' "$RESULTS"
}

# slowdown WORKLOAD CONFIG: median over rounds of the ratio to the untraced
# run of the same round (time: traced/untraced; rate: untraced/traced).
slowdown() {
	awk -F'\t' -v w="$1" -v c="$2" -v d="${WL_DIR[$1]}" '
		$1 == w && $4 == 1 && $2 == "untraced" { base[$3] = $5 }
		$1 == w && $4 == 1 && $2 == c { val[$3] = $5 }
		END {
			for (r in val) if ((r in base) && base[r] > 0 && val[r] > 0)
				print (d == "time") ? val[r] / base[r] : base[r] / val[r]
		}' "$RESULTS" | median
}

# above WORKLOAD CONFIG BASE FIELD: median over rounds of CONFIG's figure
# minus BASE's in the same round, per call: field 5 (elapsed s, as wall ns a
# call of one thread, the threads running side by side) or 11 (CPU ns a call).
above() {
	awk -F'\t' -v w="$1" -v c="$2" -v b="$3" -v f="$4" -v n="$PREAD_CALLS" '
		$1 == w && $4 == 1 && $2 == b && $f != "-" { base[$3] = $f }
		$1 == w && $4 == 1 && $2 == c && $f != "-" { val[$3] = $f }
		END {
			for (r in val) if (r in base)
				print (f == 5) ? (val[r] - base[r]) * 1e9 / n : val[r] - base[r]
		}' "$RESULTS" | median
}

# floor_table: each config of the microbenchmarks against untraced and the
# floors, in ns a call.
floor_table() {
	local wl cfg cfgs sd
	echo "#### Above the floor: ns a call of the microbenchmark"
	echo
	echo "| Workload | Config | Slowdown vs untraced | Wall ns/call above untraced | above floor (sys) | above floor (sys+sched) | CPU ns/call above untraced | above floor (sys) | above floor (sys+sched) |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	for wl in pread pread-other; do
		[ -n "${WL_CFGS[$wl]:-}" ] || continue
		read -ra cfgs <<<"${WL_CFGS[$wl]}"
		for cfg in "${cfgs[@]}"; do
			case $cfg in floor-* | iotrace*) ;; *) continue ;; esac
			[ -n "${SKIP[$cfg]:-}" ] && continue
			sd=$(slowdown "$wl" "$cfg")
			printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$wl" "$cfg" \
				"$([ "$sd" = - ] && echo - || echo "$(fmt 2 "$sd")x")" \
				"$(fmt 0 "$(above "$wl" "$cfg" untraced 5)")" \
				"$(fmt 0 "$(above "$wl" "$cfg" floor-sys 5)")" \
				"$(fmt 0 "$(above "$wl" "$cfg" floor-all 5)")" \
				"$(fmt 0 "$(above "$wl" "$cfg" untraced 11)")" \
				"$(fmt 0 "$(above "$wl" "$cfg" floor-sys 11)")" \
				"$(fmt 0 "$(above "$wl" "$cfg" floor-all 11)")"
		done
	done
	echo
	echo "Untraced, the microbenchmark costs $(fmt 0 "$(col pread untraced 11)") ns of CPU a call"
	echo "(user + system of its threads in the timed loop) and $(fmt 0 "$(awk -v e="$(col pread untraced 5)" -v n="$PREAD_CALLS" 'BEGIN { if (e != "-") print e * 1e9 / n; else print "-" }')") ns of wall time a call of each thread."
	echo
}

okruns() {
	awk -F'\t' -v w="$1" -v c="$2" '$1 == w && $2 == c { n++; ok += $4 } END { printf "%d/%d", ok, n }' "$RESULTS"
}

# table WORKLOAD: the Markdown table of one workload.
table() {
	local wl=$1 cfg m dig
	dig=3
	[ "${WL_DIR[$wl]}" = rate ] && dig=0
	echo "#### ${WL_TITLE[$wl]}"
	echo
	echo "| Config | ${WL_METRIC[$wl]} (median) | Slowdown vs untraced | Recorder CPU s | Workload CPU s | Events recorded | Lost events (max) | Bytes/event | Runs ok |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	local cfgs
	read -ra cfgs <<<"${WL_CFGS[$wl]}"
	for cfg in "${cfgs[@]}"; do
		if [ -n "${SKIP[$cfg]:-}" ]; then
			echo "| $cfg | skipped | | | | | | | |"
			continue
		fi
		m=$(col "$wl" "$cfg" 5)
		local sd=-
		[ "$cfg" != untraced ] && sd=$(slowdown "$wl" "$cfg")
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$cfg" \
			"$(fmt "$dig" "$m")" \
			"$([ "$sd" = - ] && echo - || echo "$(fmt 2 "$sd")x")" \
			"$(fmt 2 "$(col "$wl" "$cfg" 6)")" "$(fmt 2 "$(col "$wl" "$cfg" 7)")" \
			"$(fmt 0 "$(col "$wl" "$cfg" 8)")" "$(maxcol "$wl" "$cfg" 9)" \
			"$(fmt 1 "$(col "$wl" "$cfg" 10)")" "$(okruns "$wl" "$cfg")"
	done
	echo
	echo "Command: \`${WL_CMD[$wl]//$TMP/\$TMP}\`"
	echo
}

write_capture_section() {
	local f=$TMP/capture.md wl n
	{
		echo "## Capture overhead"
		echo
		echo "Generated by \`bench/run.sh$([ "$MODE" = quick ] && echo ' --quick')\` ($MODE run: median of $ROUNDS rounds per figure)."
		echo
		machine_info
		echo "- Tools: $(tool_versions)"
		echo
		echo "How to read the tables:"
		echo
		echo "- The workload's own figure: elapsed seconds of the timed loop (the microbenchmark times itself"
		echo "  from a barrier, so tracer start-up does not count), fio's IOPS, db_bench's ops/s."
		echo "- *Slowdown* is the median over rounds of traced/untraced (time) or untraced/traced (rate),"
		echo "  each ratio taken within one round; the order of the configs rotates from round to round."
		echo "- *Recorder CPU* is the user+system time of the tracer process itself (iotrace, strace,"
		echo "  bpftrace, perf) read from its /proc/PID/stat as a zombie (\`bench/cputime.c\`); time spent in"
		echo "  BPF programs runs in the traced threads and shows in *Workload CPU* (what the tracer reaped)."
		echo "  iotrace's figure includes loading and verifying its BPF programs, about 0.3 s of system"
		echo "  time on this machine whatever the workload (\`iotrace record -- true\`)."
		echo "- *Events recorded*: iotrace's \`info\` events (all record types: syscalls, scheduler, page"
		echo "  cache); lines of output for bpftrace and perf. *Bytes/event*: iotrace's \`bytes_per_event\`"
		echo "  in the trace file; output bytes per line (text) for bpftrace and perf."
		echo "- *Lost events*: iotrace's \`lost_events\`; bpftrace's \"Lost N events\" (perf-buffer drops);"
		echo "  perf's LOST records. strace stops the tracee at every call and loses nothing."
		echo
		echo "Tracer commands (CMD is the workload's command):"
		echo
		echo "- iotrace: \`iotrace record -o \$TMP/trace.iot -- CMD\`"
		echo "- strace: \`strace -f -qq -o /dev/null -- CMD\` (all syscalls; strace stops at every one)"
		echo "- bpftrace: \`bpftrace -o \$TMP/bt.out -c 'CMD' bench/trace.bt\` (the same syscall set as"
		echo "  iotrace, one text line per call with pid, tid, name, raw args, return value, time, duration)"
		echo "- perf: \`perf trace -o \$TMP/perf.out -- CMD\` (all syscalls)"
		echo
		echo "The floor (issue 22): \`floor-sys\` attaches empty \`tp_btf\` programs to \`sys_enter\` and"
		echo "\`sys_exit\`, \`floor-all\` adds empty ones on the scheduler tracepoints iotrace uses"
		echo "(\`sched_switch\`, \`sched_waking\`, \`sched_process_fork/exec/exit\`); \`bench/floor.bpf.c\`,"
		echo "held attached by \`bench/floor_load\`. What they cost no tracepoint-based tracer can avoid;"
		echo "iotrace's own share is what lies above \`floor-all\`. \`pread-other\` runs the microbenchmark"
		echo "untraced while \`iotrace record -p\` records an idle \`sleep\`: what every other task on the"
		echo "host pays. *CPU ns/call* is the CPU time of the microbenchmark's threads in the timed loop"
		echo "(BPF programs run in their context) per call: neither the recorder's CPU nor the time spent"
		echo "waiting for a CPU on a loaded machine counts, which makes it the figure to read on a shared"
		echo "machine. *Wall ns/call* includes both. Both are medians of per-round differences."
		echo
		floor_table
		for wl in "${WORKLOADS[@]}"; do
			table "$wl"
		done
		if [ ${#NOTES[@]} -gt 0 ]; then
			echo "Notes:"
			echo
			for n in "${NOTES[@]}"; do echo "- $n"; done
			echo
		fi
	} >"$f"
	doc_section "$DOC" capture "$f"
}

# floor_targets: the rows of issue 22's targets that the microbenchmark gives.
floor_targets() {
	local fsd isd gap other ok
	fsd=$(slowdown pread floor-all)
	isd=$(slowdown pread iotrace)
	[ "$fsd" = - ] || [ "$isd" = - ] && return 0
	gap=$(awk -v i="$isd" -v f="$fsd" 'BEGIN { print i - f }')
	ok=$(awk -v g="$gap" 'BEGIN { print (g <= 0.15) ? 1 : 0 }')
	echo "| Within 0.15 of the floor's ratio (issue 22; floor $(fmt 2 "$fsd")x) | +$(fmt 2 "$gap") | $(verdict "$ok") |"
	other=$(above pread-other iotrace-other floor-all 11)
	[ "$other" = - ] && return 0
	ok=$(awk -v o="$other" 'BEGIN { print (o <= 15) ? 1 : 0 }')
	echo "| <= 15 ns above the floor per syscall of an untraced task (issue 22; CPU ns) | $(fmt 0 "$other") | $(verdict "$ok") |"
}

write_targets_section() {
	local f=$TMP/targets.md sd lost bpe
	sd=$(slowdown pread iotrace)
	lost=$(maxcol pread iotrace 9)
	bpe=$(col pread iotrace 10)
	verdict() { # verdict OK-BOOL
		if [ "$1" = 1 ]; then echo "met"; else echo "**missed**"; fi
	}
	local ok_sd ok_lost ok_bpe
	ok_sd=$(awk -v s="$sd" 'BEGIN { print (s != "-" && s <= 1.3) ? 1 : 0 }')
	ok_lost=$(awk -v l="$lost" 'BEGIN { print (l != "-" && l == 0) ? 1 : 0 }')
	ok_bpe=$(awk -v b="$bpe" 'BEGIN { print (b != "-" && b <= 32) ? 1 : 0 }')
	{
		echo "### Capture (issue 2), from the $MODE run of $(date -u '+%Y-%m-%d')"
		echo
		echo "| Target | Measured (microbenchmark, $PREAD_THREADS x $PREAD_CALLS \`pread\`) | Verdict |"
		echo "|---|---:|---|"
		echo "| Overhead <= 1.3x | $([ "$sd" = - ] && echo n/a || echo "$(fmt 2 "$sd")x") | $(verdict "$ok_sd") |"
		echo "| 0 lost events | $lost (worst run) | $(verdict "$ok_lost") |"
		echo "| <= 32 bytes per event in the file | $(fmt 1 "$bpe") | $(verdict "$ok_bpe") |"
		floor_targets
		echo
		if [ "$ok_sd" != 1 ] && [ "$sd" != - ]; then
			echo "The overhead target is missed: under iotrace the microbenchmark takes $(fmt 2 "$sd") times as long"
			echo "as untraced, against at most 1.3. The cost is per call, in the traced threads: see the"
			echo "*Workload CPU* column of the microbenchmark table (the BPF programs run on the"
			echo "\`sys_enter\`/\`sys_exit\` path of every call) against the recorder's own CPU."
			echo
		fi
		[ "$MODE" = quick ] && echo "Quick run: reduced sizes, $ROUNDS rounds; \`make bench\` gives the full figures." && echo
	} >"$f"
	doc_section "$DOC" targets-capture "$f"
}

# ensure_doc: a new doc gets its skeleton; an existing one keeps every section
# that another part of the harness wrote, and gains only the missing ones.
ensure_doc() {
	mkdir -p "$(dirname "$DOC")"
	if [ ! -s "$DOC" ]; then
		cat >"$DOC" <<-'EOF'
			# iotrace benchmarks

			Generated by `make bench` (`bench/run.sh`) and `make bench-quick` (`bench/run.sh --quick`);
			each part of the harness rewrites only its own sections, between `<!-- BEGIN name -->` and
			`<!-- END name -->` markers. Do not edit inside the markers by hand. The method is that of
			`DESIGN.md` §7: medians of several runs, ratios taken within one run, machine and kernel
			stated with each section.

			## Targets vs measured

		EOF
	fi
	local s f=$TMP/placeholder.md
	for s in targets-capture capture analysis replay accuracy; do
		grep -qF "<!-- BEGIN $s -->" "$DOC" && continue
		# shellcheck disable=SC2016 # backquotes are Markdown here
		case $s in
		targets-capture | capture) echo "(not yet measured)" >"$f" ;;
		analysis)
			printf '## Analysis\n\n_Placeholder: analysis speed (events per second, memory per event) is produced by a later part of the harness, not yet built. No figures yet._\n' >"$f"
			;;
		replay)
			printf '## Replay\n\n_Placeholder: `--afap` replay speed against the native run, `--natural` lag percentiles and concurrency kept are produced by a later part of the harness, not yet built. No figures yet._\n' >"$f"
			;;
		accuracy)
			printf '## Accuracy\n\n_Placeholder: cross-configuration replay accuracy (|T_replay - T_app| / T_app per `--order` mode, error CDFs, timelines) is produced by a later part of the harness, not yet built. No figures yet._\n' >"$f"
			;;
		esac
		doc_section "$DOC" "$s" "$f"
	done
}

# ---------------------------------------------------------------- main ---

main() {
	if [ ! -x "$IOTRACE" ]; then
		echo "bench: $IOTRACE not found; build it first (make, or make BUILD=$BUILD)" >&2
		exit 1
	fi
	[ "$(id -u)" -eq 0 ] || log "not root: BPF tracers will probably be skipped"
	have jq || { echo "bench: jq is required (make deps)" >&2; exit 1; }
	ensure_tracefs
	build_helpers
	check_tools
	local t0=$SECONDS
	log "$MODE run, $ROUNDS rounds, temp dir $TMP"
	workload_pread
	workload_fio
	workload_db_bench
	ensure_doc
	write_targets_section
	write_capture_section
	log "done in $((SECONDS - t0)) s; wrote $DOC"
	column -t -s$'\t' "$RESULTS" >&2 || true
}

main
