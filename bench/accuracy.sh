#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/accuracy.sh [--quick]: replay speed and cross-configuration accuracy
# (DESIGN §7, issues 4 and 5).  Writes the "replay", "accuracy" and
# "targets-replay" sections of docs/BENCHMARKS.md.
#
# Accuracy, as //TRACE and ARTC measure it: record a workload on storage
# configuration A, replay the trace on B, run the workload itself on B;
# error = |T_replay - T_app| / T_app.  Configurations are file systems on
# loop devices with direct I/O (ext4, xfs) and one throttled with cgroup v1
# blkio.  Every figure is the median of 3 runs, page cache dropped before
# each.
#
#   BUILD=DIR    where iotrace was built (default build/)
#   --quick      three pairs of configurations, fewer calls; default: all pairs
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

bench_env "$@"
REPS=3
MODES=(causal temporal single none think)
if [ "$MODE" = quick ]; then
	PAIRS=("ext4 xfs" "xfs ext4" "ext4 throttled")
	SCALE=1
else
	PAIRS=("ext4 xfs" "xfs ext4" "ext4 throttled" "throttled ext4" "xfs throttled" "throttled xfs")
	SCALE=2
fi
# workload name, mode, threads, calls per thread
WORKLOADS=(
	"readers-1 readers 1 $((10000 * SCALE))"
	"readers-2 readers 2 $((5000 * SCALE))"
	"readers-8 readers 8 $((1250 * SCALE))"
	"pseudosync-4 pseudosync 4 $((600 * SCALE))"
	"fitness-4 fitness 4 $((200 * SCALE))"
)
FILE_MB=16
CG=/sys/fs/cgroup/blkio/iotrace-accuracy

TMP=$(mktemp -d /var/tmp/iotrace-accuracy.XXXXXX)
LOOPS=()
cleanup() {
	set +e
	for m in "$TMP"/mnt/*; do mountpoint -q "$m" && umount "$m"; done
	for l in "${LOOPS[@]}"; do losetup -d "$l"; done
	[ -d "$CG" ] && rmdir "$CG"
	rm -rf "$TMP"
}
trap cleanup EXIT
ensure_tracefs

# fs NAME TYPE: a 1 GiB loop device with direct I/O carrying TYPE at $TMP/mnt/NAME
fs() {
	local img=$TMP/$1.img dev
	truncate -s 2G "$img"
	dev=$(losetup --direct-io=on -f --show "$img")
	LOOPS+=("$dev")
	case $2 in
	ext4) mkfs.ext4 -q -F "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	esac
	mkdir -p "$TMP/mnt/$1"
	mount "$dev" "$TMP/mnt/$1"
	echo "$dev" >"$TMP/$1.dev"
}

# throttle NAME: cgroup v1 blkio limits on NAME's device (IOPS)
throttle() {
	local mm
	mm=$(lsblk -dno MAJ:MIN "$(cat "$TMP/$1.dev")" | tr -d ' ')
	mkdir -p "$CG"
	echo "$mm 5000" >"$CG/blkio.throttle.read_iops_device"
	echo "$mm 2000" >"$CG/blkio.throttle.write_iops_device"
}

# run CONFIG CMD...: CMD, inside the throttling cgroup for "throttled"
run() {
	local cfg=$1
	shift
	if [ "$cfg" = throttled ]; then
		sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"
	else
		"$@"
	fi
}

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

gcc -O2 -pthread "$ROOT/bench/work.c" -o "$TMP/work"
log "setting up ext4, xfs and throttled ext4 on loop devices"
fs ext4 ext4
fs xfs xfs
fs throttled ext4
throttle throttled

# app CONFIG WL MODE T N: median T_app over REPS runs
app() {
	local dir=$TMP/mnt/$1/app-$2 t=()
	mkdir -p "$dir"
	"$TMP/work" prep "$dir" "$4" $FILE_MB
	for ((i = 0; i < REPS; i++)); do
		drop
		t+=("$(run "$1" "$TMP/work" "$3" "$dir" "$4" "$5")")
	done
	rm -rf "$dir"
	printf '%s\n' "${t[@]}" | median
}

# record CONFIG WL MODE T N: the annotated trace of WL run on CONFIG
record() {
	local dir=$TMP/mnt/$1/rec-$2
	mkdir -p "$dir"
	"$TMP/work" prep "$dir" "$4" $FILE_MB
	drop
	run "$1" "$IOTRACE" record -o "$TMP/$2-$1.iot" -- "$TMP/work" "$3" "$dir" "$4" "$5" \
		>/dev/null 2>"$TMP/rec.err" || { cat "$TMP/rec.err" >&2; return 1; }
	rm -rf "$dir"
	"$IOTRACE" analyze "$TMP/$2-$1.iot" --infer-causality -o "$TMP/$2-$1.jsonl"
}

# replay TRACE CONFIG MODE: median replay seconds; failed calls of the last run to $TMP/failed
replay() {
	local root=$TMP/mnt/$2/root args t=()
	case $3 in
	think) args=(--natural --order none) ;; # wall gaps as compute, no deps (approximation)
	*) args=(--natural --order "$3") ;;
	esac
	rm -rf "$root"
	"$IOTRACE" replay "$1" --root "$root" --prepare-only --no-progress 2>/dev/null
	for ((i = 0; i < REPS; i++)); do
		drop
		run "$2" "$IOTRACE" replay "$1" --root "$root" "${args[@]}" --no-progress \
			--report "$TMP/r.json" 2>/dev/null || { t+=(-); continue; }
		t+=("$(jq '.wall_ns / 1e9' "$TMP/r.json")")
		jq .failed "$TMP/r.json" >"$TMP/failed"
	done
	printf '%s\n' "${t[@]}" | median
}

rows=$TMP/rows
: >"$rows"
for pair in "${PAIRS[@]}"; do
	read -r src dst <<<"$pair"
	for w in "${WORKLOADS[@]}"; do
		read -r name mode thr calls <<<"$w"
		log "$name: record on $src, replay and run on $dst"
		[ -f "$TMP/$name-$src.jsonl" ] || record "$src" "$name" "$mode" "$thr" "$calls"
		tapp=$(app "$dst" "$name" "$mode" "$thr" "$calls")
		line="$name $src $dst $tapp"
		for m in "${MODES[@]}"; do
			trep=$(replay "$TMP/$name-$src.jsonl" "$dst" "$m")
			line="$line $trep $(cat "$TMP/failed" 2>/dev/null || echo -)"
		done
		echo "$line" >>"$rows"
		rm -rf "$TMP/mnt/$dst/root"
	done
done

# Replay speed and lag on the capture microbenchmark's trace (page cache warm)
log "replay speed: the pread microbenchmark, native against --afap and --natural"
gcc -O2 -pthread "$ROOT/tests/progs/preads.c" -o "$TMP/preads"
head -c $((1 << 20)) /dev/urandom >"$TMP/mnt/ext4/data"
native=()
for ((i = 0; i < REPS; i++)); do
	s=$(date +%s%N)
	"$TMP/preads" "$TMP/mnt/ext4/data" 2 $((250000 * SCALE))
	native+=("$(awk -v a="$s" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')")
done
"$IOTRACE" record -o "$TMP/pb.iot" -- "$TMP/preads" "$TMP/mnt/ext4/data" 2 $((250000 * SCALE)) 2>/dev/null
"$IOTRACE" analyze "$TMP/pb.iot" --infer-causality -o "$TMP/pb.jsonl"
afap=() p50=() p99=() pmax=() conc=()
for ((i = 0; i < REPS; i++)); do
	"$IOTRACE" replay "$TMP/pb.jsonl" --root "$TMP/mnt/ext4/pbroot" --afap --no-progress \
		--report "$TMP/a.json" 2>/dev/null
	afap+=("$(jq '.wall_ns / 1e9' "$TMP/a.json")")
	"$IOTRACE" replay "$TMP/pb.jsonl" --root "$TMP/mnt/ext4/pbroot" --natural --no-progress \
		--report "$TMP/n.json" 2>/dev/null
	p50+=("$(jq '.lag_ns.p50 / 1000' "$TMP/n.json")")
	p99+=("$(jq '.lag_ns.p99 / 1000' "$TMP/n.json")")
	pmax+=("$(jq '.lag_ns.max / 1000' "$TMP/n.json")")
	conc+=("$(jq -r '"\(.concurrency.original) \(.concurrency.replay)"' "$TMP/n.json")")
done
tn=$(printf '%s\n' "${native[@]}" | median)
ta=$(printf '%s\n' "${afap[@]}" | median)
l50=$(printf '%s\n' "${p50[@]}" | median)
l99=$(printf '%s\n' "${p99[@]}" | median)
lmax=$(printf '%s\n' "${pmax[@]}" | median)

# ---- the doc ----
sec=$TMP/replay.md
{
	echo "## Replay speed"
	echo
	echo "Generated by \`bench/accuracy.sh$([ "$MODE" = quick ] && echo ' --quick')\`: the capture microbenchmark (2 x $((250000 * SCALE)) cached \`pread\`) natively, then its annotated trace replayed (\`--afap\`, and \`--natural\` for the lag). Medians of $REPS."
	echo
	machine_info
	echo
	echo "| | seconds | ratio to native |"
	echo "|---|---:|---:|"
	echo "| native run | $(fmt 3 "$tn") | 1 |"
	echo "| \`replay --afap\` | $(fmt 3 "$ta") | $(awk -v a="$ta" -v b="$tn" 'BEGIN { printf "%.2fx", a / b }') |"
	echo
	echo "\`--natural\` lag (actual minus intended issue time): p50 $(fmt 1 "$l50") µs, p99 $(fmt 1 "$l99") µs, max $(fmt 1 "$lmax") µs."
	echo "Concurrency (mean calls in flight), original and replay, per run: ${conc[*]}."
} >"$sec"
doc_section "$DOC" replay "$sec"

acc=$TMP/accuracy.md
{
	echo "## Accuracy across storage configurations"
	echo
	echo "Generated by \`bench/accuracy.sh$([ "$MODE" = quick ] && echo ' --quick')\`. Configurations: ext4 and xfs on 2 GiB loop devices with direct I/O, and ext4 throttled by cgroup v1 blkio to 5000 read / 2000 write IOPS. Record on the first, replay (\`--natural\`) and run the application on the second; error = \\|T_replay - T_app\\| / T_app, each T the median of $REPS runs with the page cache dropped. *think* is //TRACE's think-limited baseline, approximated as \`--natural --order none\` (recorded compute, no dependencies). Workloads (\`bench/work.c\`): ARTC's parallel readers (random O_DIRECT 4 KiB preads of each thread's own file), //TRACE's PseudoSync (write + fdatasync, then a barrier) and Fitness (threads read their region in turn, passing a token)."
	echo
	machine_info
	echo
	echo "| workload | recorded on | run on | T_app (s) | causal | temporal | single | none | think | failed (causal) |"
	echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
	awk '{
		printf "| %s | %s | %s | %.3f", $1, $2, $3, $4
		for (i = 0; i < 5; i++) {
			t = $(5 + 2 * i)
			if (t == "-") printf " | -"
			else printf " | %.1f%%", 100 * (t > $4 ? t - $4 : $4 - t) / $4
		}
		printf " | %s |\n", $6
	}' "$rows"
	echo
	echo "Mean error per mode:"
	echo
	echo "| mode | mean error | failed calls (all rows) |"
	echo "|---|---:|---:|"
	awk -v modes="${MODES[*]}" 'BEGIN { split(modes, m, " ") }
		{ for (i = 0; i < 5; i++) { t = $(5 + 2 * i); if (t != "-") { s[i] += (t > $4 ? t - $4 : $4 - t) / $4; c[i]++ } f[i] += $(6 + 2 * i) } }
		END { for (i = 0; i < 5; i++) printf "| %s | %.1f%% | %d |\n", m[i + 1], c[i] ? 100 * s[i] / c[i] : 0, f[i] }' "$rows"
} >"$acc"
doc_section "$DOC" accuracy "$acc"

causal=$(awk '{ t = $5; s += (t > $4 ? t - $4 : $4 - t) / $4; c++ } END { printf "%.1f", c ? 100 * s / c : 0 }' "$rows")
best_base=$(awk '{ for (i = 1; i < 5; i++) { t = $(5 + 2 * i); if (t != "-") { s[i] += (t > $4 ? t - $4 : $4 - t) / $4; c[i]++ } } }
	END { b = 1e9; for (i = 1; i < 5; i++) if (c[i] && 100 * s[i] / c[i] < b) b = 100 * s[i] / c[i]; printf "%.1f", b }' "$rows")
tgt=$TMP/targets.md
{
	echo "### Replay (issue 4), from the $MODE run of $(date -u +%Y-%m-%d)"
	echo
	echo "| Target | Measured | Verdict |"
	echo "|---|---:|---|"
	echo "| \`--afap\` within 1.2x of the native run (microbenchmark) | $(awk -v a="$ta" -v b="$tn" 'BEGIN { printf "%.2fx", a / b }') | $(awk -v a="$ta" -v b="$tn" 'BEGIN { print (a / b <= 1.2 ? "met" : "**missed**") }') |"
	echo "| \`--natural\` lag p50 <= 5 µs | $(fmt 1 "$l50") µs | $(awk -v l="$l50" 'BEGIN { print (l <= 5 ? "met" : "**missed**") }') |"
	echo "| \`--natural\` lag p99 <= 50 µs | $(fmt 1 "$l99") µs | $(awk -v l="$l99" 'BEGIN { print (l <= 50 ? "met" : "**missed**") }') |"
	echo "| mean cross-configuration error <= 5% (causal) | $causal% | $(awk -v e="$causal" 'BEGIN { print (e <= 5 ? "met" : "**missed**") }') |"
	echo "| causal more accurate than every baseline | causal $causal% vs best baseline $best_base% | $(awk -v a="$causal" -v b="$best_base" 'BEGIN { print (a < b ? "met" : "**missed**") }') |"
	echo
	echo "This machine has 2 CPUs shared with other work: the lag figures include every time the replay thread was descheduled."
} >"$tgt"
doc_section "$DOC" targets-replay "$tgt"
log "wrote the replay, accuracy and targets-replay sections of $DOC"
