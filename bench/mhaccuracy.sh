#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/mhaccuracy.sh [--quick]: cross-host replay accuracy (issue 20 item
# 5).  Each workload runs across network-namespace hosts of this machine
# (scripts/netns-hosts.sh): recorded with one `iotrace record` per host on
# storage configuration A, merged (`iotrace analyze --infer-causality
# A.iot B.iot ...`), replayed across one MPI rank per host on configuration
# B, and the application itself run on B; error = |T_replay - T_app| / T_app,
# the median of the rounds' ratios, beside the application's own spread.
# Writes the "mh-accuracy" section of docs/BENCHMARKS.md.
#
# Storage: one loop device per configuration (bench/acclib.sh: ext4, xfs,
# btrfs, direct I/O), mounted at $TMP/mnt/CFG; host i keeps its files in
# $TMP/mnt/CFG/hI, and $TMP/mnt/CFG/shared is the directory every host sees
# (the namespaces share the mount namespace: a host's storage is its
# directory).  Every timed run starts alike: page cache dropped, the system
# disk's files of the trace read back (syswarm), then IDLE_MS of nothing (the
# application's mh_ready, the replay's --settle); the application and the
# replays interleaved in every round, round k starting at the k-th of them.
# Each workload's hosts run the application once, untimed, before anything
# is recorded or timed on them.
#
# Modes:
#   causal    the merged file, --order causal: cross-host edges are MPI
#             messages, connections between traced hosts real TCP ones
#   temporal  the merged file, --order temporal: every call after the
#             previous one by the merged clock, across hosts too
#   single    each measured host's own trace analyzed and replayed alone,
#             one host at a time, its peers on other hosts played by the
#             replayer (stubbed); the span is the longest host's
#   none      the merged file, --order none
# all --natural.  The replay's span is that of the measured hosts' calls in
# --timeline (first issue to last end).
#
# Workloads are pluggable: every bench/mhwork_*.sh is sourced, and adds its
# NAME to MH_WORKLOADS and defines:
#   MHW_NAME_HOSTS=N        how many hosts it runs on
#   MHW_NAME_MEASURE="I.."  the hosts (0-based) whose calls bound the
#                           replay's span (default: all)
#   mhw_NAME_app HOSTS...   runs the application across the hosts (namespace
#                           names, host 0 first) on $MH_DATA's storage,
#                           calling mh_ready right before its timed part;
#                           prints its span in seconds ("-" if it failed)
#   mhw_NAME_record OUTDIR HOSTS...  the same, recorded: one trace per host
#                           in OUTDIR/HOST.iot (one `iotrace record` each,
#                           -p or --); mh_ready before the timed part
#   mhw_NAME_pairs OUTDIR   (optional) prints how many cross-host
#                           send -> receive pairs (or orderings) the
#                           application's own counts or logs of the recorded
#                           run imply
#   mhw_NAME_found OUTDIR   (optional) prints how many of them the merged
#                           trace OUTDIR/job.jsonl has; without it, its
#                           cross-host edges are counted
# They run in the hub namespace with bench/lib.sh and these helpers:
#   mh_on HOST CMD...  CMD in HOST's network namespace
#   mh_addr I          host I's address on the bridge
#   mh_ready           drop the page cache, read the system disk's files of
#                      the trace back (syswarm), then idle IDLE_MS
# and MH_DATA (the configuration's directory), IOTRACE, MODE (quick, full).
#
#   BUILD=DIR            where iotrace was built (default build/)
#   --quick              one pair (ext4 -> xfs), small loads, 2 rounds
#   MH_PAIRS="A B,C D"   these pairs
#   MH_ONLY="NAME..."    these workloads
#   MH_REPS=N            rounds (default quick 2, full 7)
#   MH_MODES="MODE..."   these modes (default: all four)
#   MH_SAVE=DIR          keep every cross-host replay's report and timelines,
#                        and each recording's traces and merged file
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
# shellcheck source=bench/acclib.sh
. "$ROOT/bench/acclib.sh"
# shellcheck source=scripts/orderings.sh
. "$ROOT/scripts/orderings.sh"

bench_env "$@"
read -r -a MODES <<<"${MH_MODES:-causal temporal single none}"
if [ "$MODE" = quick ]; then
	PAIRS=("ext4 xfs") REPS=2
else
	# 7 rounds: this machine's CPUs run a fixed loop 2-3x slower or faster from
	# one second to the next (docs/BENCHMARKS.md); 3 left a median at the
	# mercy of one round, and with 5 one pair's error still moved from 20%
	# to 3% between two runs
	PAIRS=("ext4 xfs" "xfs ext4" "ext4 btrfs" "btrfs ext4") REPS=7
fi
[ -n "${MH_PAIRS:-}" ] && IFS=, read -r -a PAIRS <<<"$MH_PAIRS"
REPS=${MH_REPS:-$REPS}
IDLE_MS=250
MH_SHIFT_NS=12345678 # host 1's clock moved, for the clock target
export MODE IDLE_MS

mh_on() {
	local h=$1
	shift
	nsenter --net="/var/run/netns/$h" "$@"
}

mh_addr() { echo "10.77.0.$((10 + $1))"; }

mh_ready() {
	drop
	syswarm /
	idle
}

# syswarm PREFIX...: after a drop, the system disk's files of the pair's
# trace ($SYSFILES: the binaries, libraries and plugins the hosts loaded)
# read back into the page cache under each PREFIX: / for the application,
# each rank's --dev-root copy for a replay.  The system disk is not the
# storage measured, and this machine's hosts share one page cache: the
# application's ranks load each library from disk once, a replay's ranks
# one copy each, cold, and that difference is the bench's, not the
# replay's.  Both start warm.
syswarm() {
	local p
	[ -s "${SYSFILES:-}" ] || return 0
	for p in "$@"; do
		sed "s|^|${p%/}|" "$SYSFILES" | xargs -d '\n' cat >/dev/null 2>&1 || true
	done
}

# sysfiles JOB: the paths of the system disk's files that JOB's events name
sysfiles() {
	jq -r --argjson d "$(stat -c %d /usr/lib)" '.. | objects |
		select(.dev? == $d and (.path? | type) == "string") | .path' "$1" |
		sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done
}

MH_WORKLOADS=""
for f in "$ROOT"/bench/mhwork_*.sh; do
	# shellcheck source=/dev/null
	. "$f"
done
[ -n "${MH_ONLY:-}" ] && MH_WORKLOADS=$MH_ONLY

# wl_var WL FIELD [DEFAULT]: MHW_WL_FIELD
wl_var() {
	local v="MHW_${1}_$2"
	echo "${!v:-${3:-}}"
}

# span TIMELINE...: seconds from the first issue to the last end of the
# replayed calls in the timelines, and (second) of the same calls as
# recorded
span() {
	awk -F'\t' 'FNR > 1 && NF >= 7 {
			if (!n++ || $6 < a) a = $6; if ($7 > b) b = $7
			if (n == 1 || $4 < c) c = $4; if ($4 + $5 > d) d = $4 + $5 }
		END { if (n) print (b - a) / 1e9, (d - c) / 1e9; else print "- -" }' "$@"
}

# clock_err JOB SHIFT TRACE: ns, the largest difference of a host's clock
# offset in JOB from the truth, taking the first host's as right: one clock,
# TRACE's moved by SHIFT
clock_err() {
	head -1 "$1" | jq --arg t "$3" --argjson s "$2" '
		def truth: .clock_offset_ns - (if .trace == $t then -$s else 0 end);
		(.hosts[0] | truth) as $o | [.hosts[] | truth - $o | fabs] | max'
}

# In the hub namespace, for workload MH_INNER: $RUN/rows gets a line per pair.
inner() {
	local wl=$MH_INNER pair src dst i hosts
	read -r -a hosts <<<"$NH_HOSTS"
	# One run of the application first, untimed: the first run on new
	# namespace hosts has waited a second for a connection between two
	# ranks (a TCP handshake that completed 1.0 s after the connect, a
	# retransmit's wait), and that run was the first recording
	read -r src _ <<<"${PAIRS[0]}"
	MH_DATA=$TMP/mnt/$src "mhw_${wl}_app" "${hosts[@]}" >/dev/null
	for pair in "${PAIRS[@]}"; do
		read -r src dst <<<"$pair"
		if [ ! -f "$TMP/$wl-$src/job.jsonl" ] && ! record_wl "$wl" "$src" "${hosts[@]}"; then
			log "$wl: recording on $src failed: no row for $src -> $dst"
			rm -f "$TMP/$wl-$src/job.jsonl"
			continue
		fi
		log "$wl: $src -> $dst"
		echo "$wl $src $dst $(measure "$wl" "$src" "$dst" "${hosts[@]}")" >>"$TMP/rows"
	done
}

# record_wl WL CFG HOSTS...: the traces, the merged file and each measured
# host's own annotated trace, in $TMP/WL-CFG
record_wl() {
	local wl=$1 cfg=$2 out=$TMP/$1-$2 i traces=()
	shift 2
	log "$wl: recording on $cfg"
	mkdir -p "$out"
	SYSFILES='' MH_DATA=$TMP/mnt/$cfg "mhw_${wl}_record" "$out" "$@" || return 1
	for h in "$@"; do traces+=("$out/$h.iot"); done
	"$IOTRACE" analyze --infer-causality "${traces[@]}" -o "$out/job.jsonl" 2>"$out/analyze.err" ||
		{ log "$wl: analyze failed: $(tail -1 "$out/analyze.err")"; return 1; }
	sysfiles "$out/job.jsonl" >"$out/sysfiles"
	for i in $(wl_var "$wl" MEASURE "$(seq -s ' ' 0 $(($# - 1)))"); do
		"$IOTRACE" analyze --infer-causality "${traces[i]}" -o "$out/solo-$i.jsonl" \
			2>"$out/analyze.err" ||
			{ log "$wl: analyze of host $i failed: $(tail -1 "$out/analyze.err")"; return 1; }
	done
	head -1 "$out/job.jsonl" | jq -r '[.causality_stats.edges_xhost,
		([.connections[]?] | length)] | @tsv' >"$out/stats"
	# the clock target: the hosts share this machine's clock, so each
	# host's offset is the first's; with host 1's trace moved by a known
	# amount, its offset comes back as that amount
	"$IOTRACE" analyze --infer-causality "${traces[@]}" -o "$out/shifted.jsonl" \
		--clock-shift "${traces[1]}=$MH_SHIFT_NS" 2>"$out/analyze.err" ||
		{ log "$wl: analyze with host 1's clock moved failed: $(tail -1 "$out/analyze.err")"; return 1; }
	echo "$(clock_err "$out/job.jsonl" 0 -) $(clock_err "$out/shifted.jsonl" "$MH_SHIFT_NS" \
		"${traces[1]}")" >"$out/clock"
	rm -f "$out/shifted.jsonl"
	# the measured hosts' span as recorded: what a faithful replay on the
	# same storage reproduces
	jq -rs --argjson m "[$(wl_var "$wl" MEASURE "$(seq -s , 0 $(($# - 1)))" | tr ' ' ,)]" '
		(.[0].hosts | map(.name)) as $names | ($m | map($names[.])) as $want
		| [.[1:][] | select(.type == "event") | select(.host as $h | $want | index([$h]))]
		| ((map(.ts + .dur) | max) - (map(.ts) | min)) / 1e9' "$out/job.jsonl" >"$out/span"
	log "$wl: recorded on $cfg, the measured hosts span $(cat "$out/span") s in the trace"
	# the issue's pairs: those the programs' own logs count, found by the
	# merge (mhw_WL_found, or every cross-host edge), and the cross-host
	# deps that no bytes show
	rm -f "$out/want-pairs" "$out/found-pairs"
	if type "mhw_${wl}_pairs" >/dev/null 2>&1; then
		"mhw_${wl}_pairs" "$out" >"$out/want-pairs" || rm -f "$out/want-pairs"
		! type "mhw_${wl}_found" >/dev/null 2>&1 || [ ! -f "$out/want-pairs" ] ||
			"mhw_${wl}_found" "$out" >"$out/found-pairs" || rm -f "$out/found-pairs"
	fi
	[ -f "$out/found-pairs" ] || cut -f1 "$out/stats" >"$out/found-pairs"
	xhost_false_deps "$out/job.jsonl" >"$out/false-deps" || rm -f "$out/false-deps"
	return 0
}

# devroots PAT: --dev-root options for the system disk, directories PAT-DEV
devroots() {
	local d
	for d in $(stat -c '%Hd:%Ld' /usr/lib "$TMP" | sort -u); do
		echo "--dev-root"
		echo "$d=$1-${d/:/-}"
	done
}

# replay_mh WL SRC DST MODE HOSTS...: one replay of the merged file across
# the ranks; prints "span failed xhost_waits" or "- - -"
replay_mh() {
	local wl=$1 src=$2 dst=$3 mode=$4 n i names=() dr
	shift 4
	mode_args "$mode"
	n=$#
	mapfile -t dr < <(devroots "$TMP/sys/%h")
	mapfile -t names < <(head -1 "$TMP/$wl-$src/job.jsonl" | jq -r '.hosts[].name')
	rm -f "$TMP"/tl.tsv.*
	drop
	for i in "${names[@]}"; do syswarm "$TMP/sys/$i-$(stat -c '%Hd-%Ld' /usr/lib)"; done
	if ! $NH_MPIRUN -np "$n" "$IOTRACE" replay "$TMP/$wl-$src/job.jsonl" \
		--root "$TMP/mnt/$dst/replay/%h" "${dr[@]}" "${ARGS[@]}" --no-progress \
		--settle "$IDLE_MS" --stall-timeout 60 --report "$TMP/r.json" \
		--timeline "$TMP/tl.tsv" >"$TMP/replay.out" 2>&1; then
		log "$wl: replay $mode on $dst failed: $(grep iotrace: "$TMP/replay.out" | tail -1)"
		echo "- - -"
		return
	fi
	# MH_SAVE=DIR: each replay's report and timelines kept there, to see
	# where a replay's time went
	if [ -n "${MH_SAVE:-}" ]; then
		local keep=$MH_SAVE/$wl-$src-$dst-$mode-$SECONDS
		mkdir -p "$keep" "$MH_SAVE/$wl-$src" && cp "$TMP/r.json" "$TMP"/tl.tsv.* "$keep/"
		cp -n "$TMP/$wl-$src"/*.iot "$TMP/$wl-$src/job.jsonl" "$MH_SAVE/$wl-$src/"
	fi
	local tls=()
	for i in $(wl_var "$wl" MEASURE "$(seq -s ' ' 0 $((n - 1)))"); do
		tls+=("$TMP/tl.tsv.${names[i]}")
	done
	echo "$(span "${tls[@]}" | cut -d' ' -f1) $(jq -r '"\(.failed) \(.xhost_waits)"' "$TMP/r.json")"
}

# replay_single WL SRC DST HOSTS...: each measured host's own trace
# replayed alone in its namespace, one after the other; "span failed 0"
# with the longest host's span
replay_single() {
	local wl=$1 src=$2 dst=$3 i s worst=0 failed=0 dr
	shift 3
	local hosts=("$@")
	for i in $(wl_var "$wl" MEASURE "$(seq -s ' ' 0 $(($# - 1)))"); do
		mapfile -t dr < <(devroots "$TMP/sys/solo-$i")
		drop
		syswarm "$TMP/sys/solo-$i-$(stat -c '%Hd-%Ld' /usr/lib)"
		if ! mh_on "${hosts[i]}" "$IOTRACE" replay "$TMP/$wl-$src/solo-$i.jsonl" \
			--root "$TMP/mnt/$dst/solo-$i" "${dr[@]}" --natural --order causal \
			--no-progress --settle "$IDLE_MS" --stall-timeout 60 --report "$TMP/r.json" \
			--timeline "$TMP/tl-solo.tsv" >"$TMP/replay.out" 2>&1; then
			log "$wl: replay of host $i alone on $dst failed: $(tail -1 "$TMP/replay.out")"
			echo "- - -"
			return
		fi
		s=$(span "$TMP/tl-solo.tsv" | cut -d' ' -f1)
		worst=$(awk -v a="$worst" -v b="$s" 'BEGIN { print (b > a ? b : a) }')
		failed=$((failed + $(jq .failed "$TMP/r.json")))
	done
	echo "$worst $failed 0"
}

# measure WL SRC DST HOSTS...: REPS rounds of the application and every
# mode; "T_app ratio failed waits" per mode, medians (failed: the worst)
measure() {
	local wl=$1 src=$2 dst=$3 k i m a t fl wt line spread self
	shift 3
	local -A r f w
	local tapp=()
	# roots are prepared for one trace: another pair's are not reused
	rm -rf "$TMP/sys" "$TMP/mnt/$dst/replay" "$TMP/mnt/$dst"/solo-*
	SYSFILES=$TMP/$wl-$src/sysfiles
	for m in "${MODES[@]}"; do r[$m]="" f[$m]="" w[$m]=""; done
	# the runs of round k start at the k-th of them, so that none of them
	# always comes first, after the idle of the setting up or of another
	# pair, or right after the same one
	local runs=(app "${MODES[@]}")
	local -A got
	for ((k = 0; k < REPS; k++)); do
		line=""
		for ((i = 0; i < ${#runs[@]}; i++)); do
			m=${runs[(i + k) % ${#runs[@]}]}
			if [ "$m" = app ]; then
				t=$(MH_DATA=$TMP/mnt/$dst "mhw_${wl}_app" "$@")
				fl=- wt=-
			elif [ "$m" = single ]; then
				read -r t fl wt < <(replay_single "$wl" "$src" "$dst" "$@")
			else
				read -r t fl wt < <(replay_mh "$wl" "$src" "$dst" "$m" "$@")
			fi
			got[$m]="$t $fl $wt"
			line+=" $m $t"
		done
		a=${got[app]%% *}
		tapp+=("$a")
		for m in "${MODES[@]}"; do
			read -r t fl wt <<<"${got[$m]}"
			[ "$t" != - ] && [ "$a" != - ] &&
				r[$m]+="$(awk -v r="$t" -v a="$a" 'BEGIN { print r / a }') "
			f[$m]+="$fl "
			w[$m]+="$wt "
		done
		log "$wl $src -> $dst, round $((k + 1)):$line"
	done
	line=$(printf '%s\n' "${tapp[@]}" | median)
	# the application's own spread, (max - min) / median of its rounds:
	# the noise the ratios sit in
	spread=$(printf '%s\n' "${tapp[@]}" | awk -v m="$line" '/^[0-9.]+$/ {
			if (!n++ || $1 < lo) lo = $1; if ($1 > hi) hi = $1 }
		END { if (n > 1 && m > 0) print (hi - lo) / m; else print "-" }')
	# and its error as its own replay: each round's T_app against the
	# previous one's, |ratio - 1|, the median; a replay's error is not
	# measured finer than that here
	self=$(printf '%s\n' "${tapp[@]}" | awk '/^[0-9.]+$/ {
			if (n++) { e = $1 / p - 1; print e < 0 ? -e : e } p = $1 }' | median)
	for m in "${MODES[@]}"; do
		# shellcheck disable=SC2086 # one value a word
		line+=" $(printf '%s\n' ${r[$m]} | median) $(printf '%s\n' ${f[$m]} | sort -g | tail -1)"
		# shellcheck disable=SC2086
		line+=" $(printf '%s\n' ${w[$m]} | median)"
	done
	echo "$line $spread $self"
}

if [ -n "${MH_INNER:-}" ]; then
	inner
	exit 0
fi

scratch mhacc
ensure_tracefs
export TMP

log "setting up the configurations on loop devices"
configs "${PAIRS[@]}"
for m in "$TMP"/mnt/*; do mkdir -p "$m"/{h0,h1,h2,h3,shared}; done

: >"$TMP/rows"
for wl in $MH_WORKLOADS; do
	log "$wl: on $(wl_var "$wl" HOSTS) namespace hosts"
	MH_INNER=$wl "$ROOT/scripts/netns-hosts.sh" "$(wl_var "$wl" HOSTS)" -- "$0" "$@" ||
		log "$wl: failed ($?)"
done

# cell RATIO: "ratio (error%)", or "-"
cell() {
	[ "$1" = - ] && { printf -- '-'; return; }
	printf '%s (%s%%)' "$(fmt 2 "$1")" \
		"$(awk -v r="$1" 'BEGIN { e = r - 1; printf "%.1f", 100 * (e < 0 ? -e : e) }')"
}

# pct DIGITS FRACTION: "12.5%", or "-"
pct() {
	[ "$2" = - ] && { printf -- '-'; return; }
	awk -v d="$1" -v f="$2" 'BEGIN { printf "%." d "f%%", 100 * f }'
}

# us NS: "12.3 µs", or "-"
us() {
	[ "$1" = - ] && { printf -- '-'; return; }
	awk -v n="$1" 'BEGIN { printf "%.1f µs", n / 1e3 }'
}

err_of() { awk -v r="$1" 'BEGIN { if (r == "-") print "-"; else { e = r - 1; print e < 0 ? -e : e } }'; }

# targets WL: the issue's targets for one workload, from its rows
targets() {
	local wl=$1 worst=0 failed=0 better=yes e ec want got false stats wself=-
	while read -r w src dst tapp rest; do
		[ "$w" = "$wl" ] || continue
		read -r -a v <<<"$rest"
		ec=$(err_of "${v[0]}")
		[ "${v[1]}" = - ] || failed=$((failed > v[1] ? failed : v[1]))
		[ "$ec" = - ] && { worst=-; continue; }
		if [ "$worst" != - ] && awk -v a="$worst" -v b="$ec" 'BEGIN { exit !(b >= a) }'; then
			worst=$ec wself=${v[3 * ${#MODES[@]} + 1]:--}
		fi
		for ((k = 1; k < ${#MODES[@]}; k++)); do
			e=$(err_of "${v[3 * k]}")
			[ "$e" = - ] || awk -v c="$ec" -v e="$e" 'BEGIN { exit !(c < e) }' || better=no
		done
	done <"$TMP/rows"
	stats=$TMP/$wl-$(awk -v w="$wl" '$1 == w { print $2; exit }' "$TMP/rows")
	got=$(cat "$stats/found-pairs" 2>/dev/null || echo -)
	want=$(cat "$stats/want-pairs" 2>/dev/null || echo -)
	false=$(cat "$stats/false-deps" 2>/dev/null || echo -)
	printf '| %s | 0 failed in causal | %s | %s |\n' "$wl" "$failed" \
		"$([ "$failed" = 0 ] && echo met || echo "not met")"
	printf '| %s | every cross-host pair found, no false edge | %s of %s, %s false | %s |\n' \
		"$wl" "$got" "$want" "$false" \
		"$([ "$want" = - ] && echo "no count" ||
			{ [ "$got" = "$want" ] && [ "$false" = 0 ] && echo met || echo "not met"; })"
	printf '| %s | causal error <= 10%% (worst pair) | %s | %s |\n' "$wl" \
		"$([ "$worst" = - ] && echo - || echo "$(pct 1 "$worst") (app vs app $(pct 1 "$wself"))")" \
		"$([ "$worst" != - ] && awk -v e="$worst" 'BEGIN { exit !(e <= 0.10) }' && echo met || echo "not met")"
	printf '| %s | causal better than every other mode, every pair | %s | %s |\n' "$wl" "$better" \
		"$([ "$better" = yes ] && echo met || echo "not met")"
	local f c0 c1 cw=-
	for f in "$TMP/$wl"-*/clock; do
		[ -f "$f" ] || continue
		read -r c0 c1 <"$f" || continue
		cw=$(awk -v a="$cw" -v b="$c0" -v c="$c1" 'BEGIN {
			m = a == "-" ? 0 : a; if (b > m) m = b; if (c > m) m = c; print m }')
	done
	printf '| %s | clock offset within 50 µs where the truth is known (worst recording) | %s | %s |\n' \
		"$wl" "$(us "$cw")" \
		"$([ "$cw" != - ] && awk -v c="$cw" 'BEGIN { exit !(c <= 50000) }' && echo met || echo "not met")"
}

{
	echo "## Accuracy across hosts"
	echo
	echo "\`bench/mhaccuracy.sh\` ($MODE): each workload across network-namespace hosts of this"
	echo "machine, recorded with one \`iotrace record\` per host on the first configuration"
	echo "(loop devices with direct I/O, each host its own directory on the configuration's"
	echo "device; after one untimed run of the application on the new namespace hosts),"
	echo "merged, replayed \`--natural\` across one MPI rank per host on the second,"
	echo "and the application itself run there, in $REPS interleaved rounds (each starting one run"
	echo "further on than the one before; page cache dropped,"
	echo "the system disk's files the trace names read back, the application's or each rank's copy,"
	echo "and ${IDLE_MS} ms idle before every run). Each cell: median of the rounds' T_replay /"
	echo "T_app, and the error |ratio - 1|; the replay's span is that of the measured hosts' calls"
	echo "(first issue to last end). Modes: causal (the merged file, cross-host edges as MPI"
	echo "messages, connections between traced hosts as real TCP connections between the ranks),"
	echo "temporal (every call after the previous one by the merged clock), single (each host's"
	echo "own trace replayed alone, one at a time, its peers stubbed by the replayer; the longest"
	echo "host's span), none. App spread: (max - min) / median of the application's own rounds,"
	echo "the noise the ratios sit in. App vs app: the application scored as its own replay,"
	echo "each round's T_app against the previous round's, the median of |ratio - 1|: an error"
	echo "below it is not told apart from this machine's noise. Failed: the worst round's"
	echo "failed calls; waits: the median round's cross-host waits."
	echo
	printf '| workload | record on -> replay on | T_app s | app spread | app vs app |'
	for m in "${MODES[@]}"; do printf ' %s |' "$m"; done
	printf ' failed (per mode) | cross-host waits (causal) |\n|---|---|---:|---:|---:|'
	for m in "${MODES[@]}"; do printf -- '---:|'; done
	printf -- '---|---:|\n'
	while read -r wl src dst tapp rest; do
		read -r -a v <<<"$rest"
		printf '| %s | %s -> %s | %s | %s | %s |' "$wl" "$src" "$dst" "$(fmt 2 "$tapp")" \
			"$(pct 0 "${v[3 * ${#MODES[@]}]:--}")" "$(pct 1 "${v[3 * ${#MODES[@]} + 1]:--}")"
		fails=""
		for ((k = 0; k < ${#MODES[@]}; k++)); do
			printf ' %s |' "$(cell "${v[3 * k]}")"
			fails+="${v[3 * k + 1]:--} "
		done
		printf ' %s | %s |\n' "${fails% }" "${v[2]}"
	done <"$TMP/rows"
	echo
	echo "Targets (issue 20). The pairs to find are those the programs' own counts imply:"
	echo "for the two-tier service every request and its reply, each a send -> receive pair"
	echo "found when the merge has a cross-host edge for it; for the MPI patterns every"
	echo "ordering of one rank's write or read after another's that a token or a barrier in"
	echo "the ranks' logs (tests/progs/mpiio) implies, found when the merged trace orders the"
	echo "two calls through its edges. A false edge is a cross-host dep that no bytes show"
	echo "(not a send whose bytes the receive took, nor the shutdown whose end it read)."
	echo
	echo "| workload | target | measured | |"
	echo "|---|---|---|---|"
	for wl in $MH_WORKLOADS; do targets "$wl"; done
	echo
	for wl in $MH_WORKLOADS; do
		for d in "$TMP/$wl"-*/; do
			[ -f "$d/stats" ] || continue
			read -r x c <"$d/stats"
			read -r c0 c1 <"$d/clock" || c0=- c1=-
			echo "- $wl recorded on $(basename "$d" | sed "s/^$wl-//"): $x cross-host edges in the merge, $c connections between traced hosts, the measured hosts spanning $(fmt 2 "$(cat "$d/span")") s in the trace; clock offsets $(us "$c0") from the truth, $(us "$c1") with host 1's clock moved $(fmt 2 "$(awk -v n="$MH_SHIFT_NS" 'BEGIN { print n / 1e6 }')") ms."
		done
	done
	[ -n "${TIER_N:-}" ] && echo "- tier: redis $(redis-server --version | awk '{ print $3 }' | cut -d= -f2), append-only file fsynced at every write, \`redis-benchmark -c1 -n$TIER_N -t set,get\`."
	echo "- $(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)."
} >"$TMP/section.md"
doc_section "$DOC" mh-accuracy "$TMP/section.md"
log "wrote the mh-accuracy section of $DOC"
