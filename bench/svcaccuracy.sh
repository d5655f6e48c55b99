#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/svcaccuracy.sh [--quick]: cross-configuration accuracy of real
# services (issue 19 item 4).  PostgreSQL under pgbench and nginx under a
# keep-alive load (ab -k), each with its data directory or document root on
# one of accuracy.sh's storage configurations (bench/acclib.sh): recorded
# there attached with -p, then on another configuration the trace replayed
# in every order and the service itself run under the same load, in
# interleaved rounds.  Writes the "svc-accuracy" section of
# docs/BENCHMARKS.md.
#
# What is compared: the load's span.  For the service, the load generator's
# wall time for a fixed amount of work (pgbench -t, ab -n).  For a replay,
# from the issue of its first accept to the end of its last call on an
# accepted connection (--timeline): a server's trace runs from the attach to
# the end of the recording, and its background processes (PostgreSQL's
# checkpointer, WAL writer, autovacuum) go on around the load.  Throughput
# is the work over that span: transactions or requests per second.
#
#   BUILD=DIR     where iotrace was built (default build/)
#   --quick       one pair each way, small loads, 2 rounds
#   SVC_PAIRS="A B,C D"   these pairs (default ext4 <-> xfs, ext4 <-> btrfs)
#   SVC_ONLY="pgbench nginx"   only these services
#   SVC_REPS=N    rounds (default quick 2, full 3)
#   ACC_MODES="MODE..."   replay orders (default: all five); causal-no-outside
#                 is causal on the trace without its outside_ns, to measure them
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
# shellcheck source=bench/acclib.sh
. "$ROOT/bench/acclib.sh"

bench_env "$@"
read -r -a MODES <<<"${ACC_MODES:-causal temporal single none think}"
if [ "$MODE" = quick ]; then
	PAIRS=("ext4 xfs" "xfs ext4") REPS=2 PG_TX=100 AB_N=3000
else
	PAIRS=("ext4 xfs" "xfs ext4" "ext4 btrfs" "btrfs ext4") REPS=3 PG_TX=400 AB_N=30000
fi
[ -n "${SVC_PAIRS:-}" ] && IFS=, read -r -a PAIRS <<<"$SVC_PAIRS"
REPS=${SVC_REPS:-$REPS}
SERVICES=${SVC_ONLY:-pgbench nginx}
PG_BIN=/usr/lib/postgresql/15/bin
PG_CLIENTS=4
IDLE_MS=250

# Names of our own: accuracy.sh's loop devices and cgroup are not touched
CG=/sys/fs/cgroup/blkio/iotrace-svcacc-$$
STOP="" # the command that stops the service running, however the script ends
scratch svcacc
chmod 755 "$TMP" # PostgreSQL and nginx's workers run as other users
ensure_tracefs

sysroot



secs_since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }'; }

pg() { runuser -u postgres -- "$@"; }

# pg_template CFG: an initdb'd cluster on CFG, copied for every run
pg_template() {
	local d=$TMP/mnt/$1/pg0
	[ -d "$d" ] && return 0
	mkdir -p "$d"
	chown postgres "$d"
	pg $PG_BIN/initdb -D "$d" -A trust -U postgres >"$TMP/initdb.log" 2>&1
}

# pgbench_up CFG NAME: a fresh cluster at $TMP/mnt/CFG/NAME from the template,
# started, with pgbench's tables; its postmaster's pid in SVC_PID, port in PORT
pgbench_up() {
	local d=$TMP/mnt/$1/$2
	pg_template "$1"
	rm -rf "$d"
	cp -a "$TMP/mnt/$1/pg0" "$d"
	PORT=$(free_port)
	pg $PG_BIN/pg_ctl -D "$d" -l "$d/server.log" -w -t 30 -o \
		"-p $PORT -k $d -c listen_addresses=127.0.0.1" start >/dev/null
	STOP="runuser -u postgres -- $PG_BIN/pg_ctl -D '$d' -m immediate stop"
	pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -i -s 1 postgres >"$TMP/pginit.log" 2>&1
	SVC_PID=$(head -1 "$d/postmaster.pid")
}

pgbench_load() {
	pg pgbench -h 127.0.0.1 -p "$PORT" -U postgres -c $PG_CLIENTS -j 2 -t "$PG_TX" postgres \
		>"$TMP/load.out" 2>&1
}

pgbench_down() {
	pg $PG_BIN/pg_ctl -D "$TMP/mnt/$1/$2" -m fast stop >/dev/null
	STOP=""
}

# nginx_up CFG NAME: a master and two workers serving $TMP/mnt/CFG/NAME/www
nginx_up() {
	local d=$TMP/mnt/$1/$2
	rm -rf "$d"
	mkdir -p "$d/www" "$d/logs"
	head -c 20000 /dev/urandom >"$d/www/index.html"
	PORT=$(free_port)
	cat >"$d/nginx.conf" <<-CONF
	worker_processes 2;
	daemon off;
	pid $d/nginx.pid;
	error_log $d/logs/error.log;
	events { worker_connections 64; use epoll; }
	http {
		sendfile on;
		access_log $d/logs/access.log;
		server { listen 127.0.0.1:$PORT; root $d/www; }
	}
	CONF
	chmod -R a+rX "$d"
	nginx -c "$d/nginx.conf" -p "$d" &
	STOP="kill $!"
	until_ok 10 test -s "$d/nginx.pid"
	sleep 0.3
	SVC_PID=$(cat "$d/nginx.pid")
}

nginx_load() {
	ab -k -q -n "$AB_N" -c 8 "http://127.0.0.1:$PORT/index.html" >"$TMP/load.out" 2>&1
}

nginx_down() {
	kill "$SVC_PID"
	until_ok 10 bash -c "! kill -0 $SVC_PID"
	STOP=""
}

work() { [ "$1" = pgbench ] && echo $((PG_CLIENTS * PG_TX)) || echo "$AB_N"; }

# record SVC CFG: the annotated trace $TMP/SVC-CFG.jsonl of SVC on CFG, and
# the load's window in it (window_ids)
record() {
	local t0 rec
	"$1_up" "$2" rec
	drop
	"$IOTRACE" record -p "$SVC_PID" -o "$TMP/$1-$2.iot" 2>"$TMP/rec.err" &
	rec=$!
	until_ok 60 test -e "$TMP/$1-$2.iot"
	idle
	t0=$(date +%s%N)
	"$1_load" || log "$1: the load failed on $2 while recorded"
	secs_since "$t0" >"$TMP/$1-$2.wall"
	kill "$rec"
	wait "$rec" || log "$1: record exited $?: $(tail -1 "$TMP/rec.err")"
	"$1_down" "$2" rec
	"$IOTRACE" analyze "$TMP/$1-$2.iot" --infer-causality -o "$TMP/$1-$2.jsonl"
	window_ids "$TMP/$1-$2.jsonl" >"$TMP/$1-$2.ids"
}

# window_ids JSONL: the ids of the accepts and of every call on an accepted
# connection, by socket inode
window_ids() {
	local inos
	inos=$(jq -c 'select((.call == "accept4" or .call == "accept") and .ret >= 0)
		| .sock.ino | tostring' "$1" | jq -sc 'map({(.): true}) | add // {}')
	jq -r --argjson s "$inos" 'select(.type == "event") | select(($s[.sock.ino | tostring] // false)
		or ([.args[]? | objects | select(.ino) | .ino | tostring]
		| any(. as $k | $s[$k] // false))) | .id' "$1"
}

# span IDS TIMELINE: seconds from the first issue to the last end, among IDS,
# in the replay and (second) in the recording
span() {
	awk -F'\t' 'NR == FNR { w[$1] = 1; next }
		FNR > 1 && ($3 in w) {
			if (!n++ || $6 < a) a = $6; if ($7 > b) b = $7
			if (n == 1 || $4 < c) c = $4; if ($4 + $5 > d) d = $4 + $5 }
		END { if (n) print (b - a) / 1e9, (d - c) / 1e9; else print "- -" }' "$1" "$2"
}

# app SVC CFG: one timed run of the service's load on CFG, its seconds
app() {
	local t0 s
	"$1_up" "$2" app
	drop
	idle
	t0=$(date +%s%N)
	"$1_load" || { log "$1: the load failed on $2"; echo -; "$1_down" "$2" app; return; }
	s=$(secs_since "$t0")
	"$1_down" "$2" app
	echo "$s"
}

# replay_once SVC SRC DST MODE: one replay's window in seconds, or "-"; its
# failed count appended to $TMP/failed-MODE
replay_once() {
	local jsonl=$TMP/$1-$2.jsonl
	if [ "$4" = causal-no-outside ]; then
		# what outside_ns buys: the same trace without it
		[ -f "$TMP/$1-$2.no-outside.jsonl" ] ||
			jq -c 'del(.outside_ns)' "$jsonl" >"$TMP/$1-$2.no-outside.jsonl"
		jsonl=$TMP/$1-$2.no-outside.jsonl
		mode_args causal
	else
		mode_args "$4"
	fi
	drop
	if ! "$IOTRACE" replay "$jsonl" --root "$TMP/mnt/$3/root" "${SYSROOT[@]}" "${ARGS[@]}" \
		--no-progress --settle "$IDLE_MS" --stall-timeout 60 --report "$TMP/r.json" \
		--timeline "$TMP/tl.tsv" 2>"$TMP/replay.err"; then
		log "$1: replay $4 on $3 failed: $(tail -n 1 "$TMP/replay.err")"
		echo -
		return
	fi
	jq .failed "$TMP/r.json" >>"$TMP/failed-$4"
	span "$TMP/$1-$2.ids" "$TMP/tl.tsv" | {
		read -r rs ts
		echo "$ts" >"$TMP/$1-$2.span"
		echo "$rs"
	}
}

# measure SVC SRC DST: REPS rounds, each the service then every mode;
# prints "T_app ratio_mode failed_mode ..." with medians
measure() {
	local svc=$1 src=$2 dst=$3 i m t a line
	local -A r
	local tapp=()
	rm -rf "$TMP/mnt/$dst/root" "$TMP"/sys-*
	"$IOTRACE" replay "$TMP/$svc-$src.jsonl" --root "$TMP/mnt/$dst/root" "${SYSROOT[@]}" \
		--prepare-only --no-progress 2>"$TMP/replay.err" ||
		log "$svc: preparing on $dst failed: $(tail -1 "$TMP/replay.err")"
	for m in "${MODES[@]}"; do
		: >"$TMP/failed-$m"
		r[$m]=""
	done
	for ((i = 0; i < REPS; i++)); do
		a=$(app "$svc" "$dst")
		tapp+=("$a")
		line="app $a"
		for m in "${MODES[@]}"; do
			t=$(replay_once "$svc" "$src" "$dst" "$m")
			[ "$t" != - ] && [ "$a" != - ] &&
				r[$m]+="$(awk -v r="$t" -v a="$a" 'BEGIN { print r / a }') "
			line+=" $m $t"
		done
		log "$svc $src -> $dst, round $((i + 1)): $line"
	done
	line=$(printf '%s\n' "${tapp[@]}" | median)
	for m in "${MODES[@]}"; do
		t=$(sort -n "$TMP/failed-$m" | tail -1)
		# shellcheck disable=SC2086 # the ratios, one a word
		line+=" $(printf '%s\n' ${r[$m]} | median) ${t:--}"
	done
	echo "$line"
}

log "setting up the configurations on loop devices"
configs "${PAIRS[@]}"

rows=$TMP/rows
: >"$rows"
: >"$TMP/notes"
for svc in $SERVICES; do
	case $svc in
	pgbench) [ -x $PG_BIN/pg_ctl ] && have pgbench || { log "postgresql-15 missing"; continue; } ;;
	nginx) have nginx && have ab || { log "nginx or ab missing"; continue; } ;;
	esac
	for pair in "${PAIRS[@]}"; do
		read -r src dst <<<"$pair"
		if [ ! -f "$TMP/$svc-$src.jsonl" ]; then
			log "$svc: recording on $src"
			record "$svc" "$src"
			rnote="$svc on $src: load $(fmt 2 "$(cat "$TMP/$svc-$src.wall")") s while recorded"
			rnote+=", $(wc -l <"$TMP/$svc-$src.ids") calls in the load's window"
		fi
		log "$svc: $src -> $dst"
		echo "$svc $src $dst $(work "$svc") $(measure "$svc" "$src" "$dst")" >>"$rows"
		# the window as the trace has it: what a faithful replay reproduces
		if [ -n "${rnote:-}" ]; then
			echo "$rnote, spanning $(fmt 2 "$(cat "$TMP/$svc-$src.span" 2>/dev/null)") s in the trace" >>"$TMP/notes"
			rnote=""
		fi
		rm -rf "$TMP/mnt/$dst/root"
	done
done

# the table: per pair, T_app and throughput, then per mode the median ratio
# T_replay / T_app, the error |ratio - 1| and the worst failed count
{
	echo "## Accuracy on real services"
	echo
	echo "\`bench/svcaccuracy.sh\` ($MODE): PostgreSQL under pgbench and nginx under keep-alive"
	echo "load, the data directory or document root on a loop device (as in the accuracy"
	echo "section: direct I/O, page cache dropped before every run). Recorded on the first"
	echo "configuration attached with \`-p\`, replayed \`--natural\` in each order on the"
	echo "second, and the service itself run there under the same load, in $REPS interleaved"
	echo "rounds. Compared is the load's span: the load generator's wall time for a fixed"
	echo "amount of work against the replay's, from its first accept to its last call on a"
	echo "client connection. Each cell: median of the rounds' T_replay / T_app, and the"
	echo "error |ratio - 1| (the throughput error is |1/ratio - 1|). Target: causal"
	echo "within 10% and better than every other order."
	echo
	printf '| service | record on -> replay on | T_app s | app op/s |'
	for m in "${MODES[@]}"; do printf ' %s |' "$m"; done
	printf ' failed (worst run, per order) |\n|---|---|---:|---:|'
	for m in "${MODES[@]}"; do printf -- '---:|'; done
	printf -- '---|\n'
	while read -r svc src dst n tapp rest; do
		read -r -a f <<<"$rest"
		printf '| %s | %s -> %s | %s | %s |' "$svc" "$src" "$dst" "$(fmt 2 "$tapp")" \
			"$(awk -v n="$n" -v t="$tapp" 'BEGIN { if (t + 0 > 0) printf "%.0f", n / t; else print "-" }')"
		fails=""
		for ((k = 0; k < ${#MODES[@]}; k++)); do
			ratio=${f[2 * k]}
			if [ "$ratio" = - ]; then
				printf ' - |'
			else
				printf ' %s (%s%%) |' "$(fmt 2 "$ratio")" \
					"$(awk -v r="$ratio" 'BEGIN { e = r - 1; printf "%.1f", 100 * (e < 0 ? -e : e) }')"
			fi
			fails+="${f[2 * k + 1]:--} "
		done
		printf ' %s |\n' "${fails% }"
	done <"$rows"
	echo
	echo "- pgbench: PostgreSQL $($PG_BIN/postgres --version 2>/dev/null | awk '{ print $3 }'), scale 1, \`-c$PG_CLIENTS -j2 -t$PG_TX\` ($((PG_CLIENTS * PG_TX)) transactions, each committed with a WAL fdatasync); nginx $(nginx -v 2>&1 | cut -d/ -f2), 2 workers, \`sendfile on\`, a 20 kB file, \`ab -k -c8 -n$AB_N\`."
	sed 's/^/- /' "$TMP/notes"
	echo "- $(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared machine)."
} >"$TMP/section.md"
doc_section "$DOC" svc-accuracy "$TMP/section.md"
log "wrote the svc-accuracy section of $DOC"
