#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/cost.sh [--quick]: the capture cost as production sees it (issue 22).
#  1. ns a traced call above the floor, per call family (bench/callbench.c:
#     pread, pwrite, send/recv, epoll_wait, futex), untraced, under the
#     floor (bench/floor.bpf.c), under the least a tracer that times each
#     call pays (the floor's clock and record pairs) and recorded by iotrace;
#  2. ns a syscall and a context switch of untraced tasks while iotrace
#     records another (idle) process, above the floor;
#  3. redis (redis-benchmark, and -P 16), nginx (wrk, keep-alive) and
#     PostgreSQL (pgbench) attached with `record -p`: throughput at
#     saturation, and p50/p99 latency at a fixed rate of half the untraced
#     saturation (bench/loadgen.c; pgbench -R), untraced vs traced;
#  4. the recorder's own CPU per million events and bytes an event there.
# Rounds interleave the configurations (their order rotates); the figures are
# medians of per-round differences or ratios. Writes the "capture-cost"
# section of docs/BENCHMARKS.md.
#
#   BUILD=DIR    where iotrace and the bench tools were built (make bench)
#   COST_ONLY=micro|services  run one half only (the other's rows stay empty)
#   COST_RESULTS=FILE  write the section from the figures of an earlier run
#                (each run keeps them in $BUILD/bench/cost-results.tsv)
#   --quick      3 rounds of the microbenchmarks, 2 of the services, short
#                runs: about three minutes; default 5 and 5, full sizes
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

case ${1:-} in
'' | --quick) ;;
-h | --help) sed -n '3,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "usage: bench/cost.sh [--quick]" >&2; exit 2 ;;
esac
bench_env "$@"

if [ "$MODE" = quick ]; then
	ROUNDS=3 SVC_ROUNDS=2 ITERS=100000
	REDIS_N=30000 REDIS_P16_N=150000 SVC_SECS=2 PG_SECS=3
else
	ROUNDS=5 SVC_ROUNDS=5 ITERS=500000
	REDIS_N=200000 REDIS_P16_N=1000000 SVC_SECS=8 PG_SECS=8
fi
FAMILIES=(pread pwrite sendrecv epoll futex)
OTHER_MODES=(null ctxsw)
CFGS=(untraced floor-sys floor-all floor-clock floor-rec iotrace iotrace-other stats-floor
	stats-iotrace)
LIMIT=120 # seconds any one run may take

TMP=$(mktemp -d /tmp/iotrace-cost.XXXXXX)
chmod 755 "$TMP" # nginx's workers and postgres run as other users
R=$TMP/results.tsv
: >"$R"
STOPS=() # commands that stop what this run started
NOTES=()

STATS_WAS=
cleanup() {
	local rc=$? s p
	trap - EXIT INT TERM
	[ -z "$STATS_WAS" ] || echo "$STATS_WAS" >/proc/sys/kernel/bpf_stats_enabled
	for s in "${STOPS[@]}"; do eval "$s" >/dev/null 2>&1 || true; done
	for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$TMP"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# put WORKLOAD CONFIG ROUND KEY VALUE: one figure of one run.
put() { printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$R"; }

# wait_for_file FILE MIN_BYTES TENTHS
wait_for_file() {
	local i
	for ((i = 0; i < $3; i++)); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# wait_for_text FILE TEXT TENTHS
wait_for_text() {
	local i
	for ((i = 0; i < $3; i++)); do
		grep -qF "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}


# proc_cpu PID: user + system seconds of a live process, all its threads.
proc_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

# --------------------------------------------------------- the hooks ---

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

# rec_start TRACE ARGS...: `iotrace record -o TRACE ARGS` in the background
# under cputime, once its programs are attached (the trace holds a 32-byte
# header until then); REC_CPU0 is its CPU time at that point.
rec_start() {
	local trace=$1
	shift
	rm -f "$trace" "$TMP/rec.cpu"
	"$CPUTIME" "$TMP/rec.cpu" "$IOTRACE" record -o "$trace" "$@" >/dev/null 2>"$TMP/rec.err" &
	REC_WRAP=$!
	if ! wait_for_file "$trace" 100 300; then
		rec_stop
		return 1
	fi
	REC_PID=$( (cat "/proc/$REC_WRAP/task/$REC_WRAP/children" 2>/dev/null ||
		pgrep -P "$REC_WRAP") | awk '{ print $1; exit }')
	REC_CPU0=$(proc_cpu "$REC_PID")
}

rec_stop() {
	[ -n "${REC_PID:-}" ] && kill -INT "$REC_PID" 2>/dev/null
	wait "$REC_WRAP" 2>/dev/null || true
	REC_PID=
}

# rec_put WL CFG ROUND TRACE: events, lost, bytes an event and the
# recorder's CPU from attached to stopped (drain included, load excluded).
rec_put() {
	local u s
	"$IOTRACE" info "$4" >"$TMP/info.json" 2>/dev/null || return 0
	put "$1" "$2" "$3" events "$(jq -r .events "$TMP/info.json")"
	put "$1" "$2" "$3" lost "$(jq -r .lost_events "$TMP/info.json")"
	put "$1" "$2" "$3" bpe "$(jq -r .bytes_per_event "$TMP/info.json")"
	u=$(grep -o 'self_user_s=[0-9.]*' "$TMP/rec.cpu" | cut -d= -f2) || return 0
	s=$(grep -o 'self_sys_s=[0-9.]*' "$TMP/rec.cpu" | cut -d= -f2) || return 0
	put "$1" "$2" "$3" rec_cpu "$(awk -v u="$u" -v s="$s" -v z="${REC_CPU0:-0}" \
		'BEGIN { print u + s - z }')"
	rm -f "$4"
}

# ------------------------------------------------ 1, 2: microbenchmarks ---

# batch_put CFG ROUND OUT: callbench's lines as ns a call, CPU and wall.
batch_put() {
	local mode calls el cpu
	while read -r mode calls el cpu; do
		put "cb-${mode#mode=}" "$1" "$2" cpu_ns "$(awk -v c="${cpu#*=}" -v n="${calls#*=}" \
			'BEGIN { print c * 1e9 / n }')"
		put "cb-${mode#mode=}" "$1" "$2" wall_ns "$(awk -v e="${el#*=}" -v n="${calls#*=}" \
			'BEGIN { print e * 1e9 / n }')"
	done <"$3"
}

# rec_start_time ROUND: how long `iotrace record -- true` takes, nearly all
# of it loading (the verifier) and attaching the programs: what a recorder
# put in front of a command delays it by.
rec_start_time() {
	local t0 t1

	t0=$(date +%s%N)
	"$IOTRACE" record -q -o "$TMP/start.iot" -- true >/dev/null 2>>"$TMP/rec.err" || return 0
	t1=$(date +%s%N)
	put rec-start iotrace "$1" wall_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e9 }')"
}

# sched_runs PID: runs and ns of the scheduler programs PID holds (bpf_stats).
sched_runs() {
	prog_runs "$1" | awk '$2 ~ /switch|waking/ { n += $3; t += $4 } END { print n + 0, t + 0 }'
}

# stats_run CFG ROUND: the ctxsw hops with the kernel timing each run of the
# scheduler programs of the floor (stats-floor) or of a recorder of another
# process (stats-iotrace): ns of those programs a hop, free of the hop's own
# noise.  bpf_stats' clock reads are in both, so their difference is not.
stats_run() {
	local pid a b rc=0
	if [ "$1" = stats-floor ]; then
		floor_start all && pid=$FLOOR_PID
	else
		rec_start "$TMP/other.iot" -p "$IDLE_PID" && pid=$REC_PID
	fi
	[ -n "${pid:-}" ] || return 1
	STATS_WAS=${STATS_WAS:-$(cat /proc/sys/kernel/bpf_stats_enabled)}
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
	a=$(sched_runs "$pid")
	timeout --kill-after=5 "$LIMIT" bash "$TMP/batch.sh" ctxsw >"$TMP/stats.out" || rc=$?
	b=$(sched_runs "$pid")
	echo "$STATS_WAS" >/proc/sys/kernel/bpf_stats_enabled
	if [ "$1" = stats-floor ]; then floor_stop; else rec_stop; fi
	[ $rc = 0 ] || return $rc
	put cb-ctxsw "$1" "$2" sched_ns "$(awk -v a="$a" -v b="$b" '{ sub(/calls=/, "", $2)
		split(a, x, " "); split(b, y, " "); print (y[2] - x[2]) / $2 }' "$TMP/stats.out")"
}

# micro_run CFG ROUND: the modes that CFG measures, one batch.
micro_run() {
	local cfg=$1 out=$TMP/cb.out rc=0 modes=("${FAMILIES[@]}" "${OTHER_MODES[@]}")
	local B=(timeout --kill-after=5 "$LIMIT" bash "$TMP/batch.sh")
	: >"$out"
	case $cfg in
	untraced) "${B[@]}" "${modes[@]}" >"$out" || rc=$? ;;
	floor-*)
		local set=${cfg#floor-}
		case $set in
		sys) set=syscalls ;;
		rec) set=record ;;
		clock) ;;
		*) set=all ;;
		esac
		# the timing pairs are a floor for the traced families only
		[ "$set" = clock ] || [ "$set" = record ] && modes=("${FAMILIES[@]}")
		if floor_start "$set"; then
			"${B[@]}" "${modes[@]}" >"$out" || rc=$?
			floor_stop
		else
			rc=1
		fi
		;;
	iotrace)
		rec_start_time "$2"
		REC_CPU0=0
		timeout --kill-after=5 "$LIMIT" "$CPUTIME" "$TMP/rec.cpu" "$IOTRACE" record \
			-o "$TMP/cb.iot" -- bash "$TMP/batch.sh" "${FAMILIES[@]}" >"$out" \
			2>"$TMP/rec.err" || rc=$?
		if [ $rc = 0 ]; then rec_put cb-families iotrace "$2" "$TMP/cb.iot"; fi
		;;
	iotrace-other)
		if rec_start "$TMP/other.iot" -p "$IDLE_PID"; then
			"${B[@]}" "${OTHER_MODES[@]}" >"$out" || rc=$?
			rec_stop
		else
			rc=1
		fi
		;;
	stats-*) stats_run "$cfg" "$2" || rc=$? ;;
	esac
	[ $rc = 0 ] || log "microbenchmarks under $cfg, round $2, failed ($rc): $(tail -c 300 "$TMP/rec.err" "$TMP/floor.err" 2>/dev/null | tr '\n' ' ')"
	batch_put "$cfg" "$2" "$out"
}

micro() {
	local r i n=${#CFGS[@]}
	mkdir -p "$TMP/cb"
	# shellcheck disable=SC2016 # expanded by the batch's shell
	printf 'for m; do "%s" -m "$m" -n %s -d "%s" || exit 1; done\n' "$CALLBENCH" "$ITERS" \
		"$TMP/cb" >"$TMP/batch.sh"
	sleep 3600 &
	IDLE_PID=$!
	for ((r = 1; r <= ROUNDS; r++)); do
		for ((i = 0; i < n; i++)); do
			local cfg=${CFGS[$(((i + r - 1) % n))]}
			log "microbenchmarks: round $r/$ROUNDS: $cfg"
			micro_run "$cfg" "$r"
		done
	done
	kill "$IDLE_PID"
	wait "$IDLE_PID" 2>/dev/null || true
}

# ----------------------------------------------------- 3, 4: services ---

# load WL CFG ROUND PARSER CMD...: one run of a load against the service
# SVC_PID, untraced or recorded with -p; PARSER puts its figures.
load() {
	local wl=$1 cfg=$2 r=$3 parser=$4 rc=0
	shift 4
	if [ "$cfg" = traced ] && ! rec_start "$TMP/svc.iot" -p "$SVC_PID"; then
		log "$wl: iotrace did not attach: $(tail -c 300 "$TMP/rec.err")"
		return 0
	fi
	if [ "$cfg" = floor ] && ! floor_start all; then
		log "$wl: the floor's programs did not attach: $(tail -c 300 "$TMP/floor.err")"
		return 0
	fi
	timeout --kill-after=5 "$LIMIT" "$@" >"$TMP/load.out" 2>"$TMP/load.err" || rc=$?
	case $cfg in
	traced)
		rec_stop
		rec_put "$wl" "$cfg" "$r" "$TMP/svc.iot"
		;;
	floor) floor_stop ;;
	esac
	if [ $rc != 0 ]; then
		log "$wl/$cfg round $r: the load exited $rc: $(tail -c 300 "$TMP/load.err")"
		return 0
	fi
	"$parser" "$wl" "$cfg" "$r"
}

# pair WL ROUND PARSER CMD...: the untraced, the floor's (iotrace's hooks,
# empty) and the traced run of a round, in an order that turns from round to
# round.
pair() {
	local wl=$1 r=$2 cfg cfgs=(untraced floor traced)
	shift 2
	for cfg in "${cfgs[@]:r%3}" "${cfgs[@]:0:r%3}"; do
		log "$wl: round $r/$SVC_ROUNDS: $cfg"
		load "$wl" "$cfg" "$r" "$@"
	done
}

parse_redis() {
	local t v
	for t in SET GET; do
		v=$(tr '\r' '\n' <"$TMP/load.out" |
			awk -v t="$t:" '$1 == t && $3 == "requests" { print $2 }' | tail -1)
		[ -n "$v" ] && put "$1" "$2" "$3" "$t" "$v"
	done
	return 0
}

parse_wrk() {
	put "$1" "$2" "$3" rps "$(awk '$1 == "Requests/sec:" { print $2 }' "$TMP/load.out")"
}

parse_loadgen() {
	local kv kvs
	read -ra kvs <"$TMP/load.out"
	for kv in "${kvs[@]}"; do
		case $kv in rate=* | p50_us=* | p99_us=* | errors=*) put "$1" "$2" "$3" "${kv%%=*}" "${kv#*=}" ;; esac
	done
}

parse_pgbench() {
	put "$1" "$2" "$3" tps "$(awk '$1 == "tps" { print $3; exit }' "$TMP/load.out")"
	put "$1" "$2" "$3" errors "$(awk '/^number of failed transactions:/ { print $5; exit }' \
		"$TMP/load.out")"
}

# parse_pgbench_log: tps, and p50/p99 of the per-transaction log, whose
# latency pgbench takes from the scheduled start under -R.
parse_pgbench_log() {
	parse_pgbench "$@"
	cat "$TMP"/pg/log/pgl.* | awk '{ print $3 }' | sort -n >"$TMP/lat"
	rm -f "$TMP"/pg/log/pgl.*
	local n
	n=$(wc -l <"$TMP/lat")
	[ "$n" -gt 0 ] || return 0
	put "$1" "$2" "$3" p50_us "$(sed -n "$(((n + 1) / 2))p" "$TMP/lat")"
	put "$1" "$2" "$3" p99_us "$(sed -n "$(((n * 99 + 99) / 100))p" "$TMP/lat")"
}

# half WL KEY: half the median untraced figure, as a whole rate.
half() { awk -v m="$(med "$1" untraced "$2")" 'BEGIN { if (m != "-") printf "%d", m / 2 }'; }

svc_redis() {
	local port r rate
	port=$(free_port)
	mkdir "$TMP/redis"
	redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no \
		--dir "$TMP/redis" --daemonize no >"$TMP/redis/log" 2>&1 &
	SVC_PID=$!
	STOPS+=("kill $SVC_PID")
	wait_for_text "$TMP/redis/log" "Ready to accept connections" 100 || {
		NOTES+=("redis skipped: redis-server did not start: $(tail -1 "$TMP/redis/log")")
		return 0
	}
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair redis "$r" parse_redis redis-benchmark -p "$port" -c 16 -n "$REDIS_N" -t set,get -q
		pair redis-p16 "$r" parse_redis redis-benchmark -p "$port" -c 16 -P 16 \
			-n "$REDIS_P16_N" -t set,get -q
	done
	rate=$(half redis SET)
	[ -n "$rate" ] || return 0
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair redis-fixed "$r" parse_loadgen "$LOADGEN" -p "$port" -k set -c 16 -r "$rate" \
			-n $((rate * SVC_SECS)) -d $((SVC_SECS + 20))
	done
	kill "$SVC_PID"
}

svc_nginx() {
	local port r rate
	port=$(free_port)
	mkdir -p "$TMP/nginx/www" "$TMP/nginx/logs"
	head -c 65536 /dev/urandom >"$TMP/nginx/www/f.bin"
	cat >"$TMP/nginx/nginx.conf" <<-CONF
		worker_processes 2;
		daemon off;
		pid $TMP/nginx/nginx.pid;
		error_log $TMP/nginx/logs/error.log;
		events { worker_connections 256; use epoll; }
		http {
			sendfile on;
			access_log off;
			keepalive_requests 1000000;
			server { listen 127.0.0.1:$port; root $TMP/nginx/www; }
		}
	CONF
	nginx -c "$TMP/nginx/nginx.conf" -p "$TMP/nginx" &
	wait_for_file "$TMP/nginx/nginx.pid" 0 100 || {
		NOTES+=("nginx skipped: it did not start: $(tail -1 "$TMP/nginx/logs/error.log")")
		return 0
	}
	sleep 0.3
	SVC_PID=$(cat "$TMP/nginx/nginx.pid")
	STOPS+=("kill $SVC_PID")
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair nginx "$r" parse_wrk wrk -t2 -c16 -d"${SVC_SECS}s" "http://127.0.0.1:$port/f.bin"
	done
	rate=$(half nginx rps)
	[ -n "$rate" ] || return 0
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair nginx-fixed "$r" parse_loadgen "$LOADGEN" -p "$port" -k http -u /f.bin -c 16 \
			-r "$rate" -n $((rate * SVC_SECS)) -d $((SVC_SECS + 20))
	done
	kill "$SVC_PID"
}

svc_postgres() {
	local bin=/usr/lib/postgresql/15/bin port r rate d=$TMP/pg
	local PG=(runuser -u postgres --)
	port=$(free_port)
	mkdir -p "$d/log"
	chown -R postgres "$d"
	"${PG[@]}" "$bin/initdb" -D "$d/data" -A trust -U postgres >"$TMP/initdb.log" 2>&1 || {
		NOTES+=("PostgreSQL skipped: initdb failed: $(tail -1 "$TMP/initdb.log")")
		return 0
	}
	STOPS+=("runuser -u postgres -- $bin/pg_ctl -D $d/data -m immediate stop")
	if ! "${PG[@]}" "$bin/pg_ctl" -D "$d/data" -l "$d/server.log" -w -t 30 -o \
		"-p $port -k $d -c listen_addresses=127.0.0.1 -c max_connections=20" start \
		>/dev/null || ! "${PG[@]}" pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s 4 \
		postgres >"$TMP/pginit.log" 2>&1; then
		NOTES+=("PostgreSQL skipped: it did not start or pgbench -i failed: $(tail -1 "$d/server.log" "$TMP/pginit.log" 2>/dev/null | tail -1)")
		return 0
	fi
	SVC_PID=$(head -1 "$d/data/postmaster.pid")
	local B=("${PG[@]}" pgbench -h 127.0.0.1 -p "$port" -U postgres -c 4 -j 2 -T "$PG_SECS")
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair postgres "$r" parse_pgbench "${B[@]}" postgres
	done
	rate=$(half postgres tps)
	[ -n "$rate" ] || return 0
	for ((r = 1; r <= SVC_ROUNDS; r++)); do
		pair postgres-fixed "$r" parse_pgbench_log "${B[@]}" -R "$rate" -l \
			--log-prefix="$d/log/pgl" postgres
	done
}

services() {
	local s
	for s in redis-server:svc_redis nginx:svc_nginx pgbench:svc_postgres; do
		if have "${s%%:*}"; then
			"${s#*:}"
		else
			NOTES+=("${s#*:} skipped: ${s%%:*} is not installed (make deps).")
		fi
	done
}

# -------------------------------------------------------------- report ---

# med WL CFG KEY: median over the rounds of one figure.
med() {
	awk -F'\t' -v w="$1" -v c="$2" -v k="$3" '$1 == w && $2 == c && $4 == k { print $5 }' "$R" |
		median
}

# maxof WL CFG KEY: the worst run.
maxof() {
	awk -F'\t' -v w="$1" -v c="$2" -v k="$3" '$1 == w && $2 == c && $4 == k { n++; if ($5 > m) m = $5 }
		END { if (n) print m + 0; else print "-" }' "$R"
}

# per_round WL CFG BASE KEY OP: median over rounds of CFG OP BASE in a round
# (OP: "-" difference, "/" ratio).
per_round() {
	awk -F'\t' -v w="$1" -v c="$2" -v b="$3" -v k="$4" -v op="$5" '
		$1 == w && $4 == k && $2 == b { base[$3] = $5 }
		$1 == w && $4 == k && $2 == c { val[$3] = $5 }
		END { for (r in val) if (r in base) {
			if (op == "-") print val[r] - base[r]
			else if (base[r] > 0) print val[r] / base[r]
		} }' "$R" | median
}

# per_mevent WL: the recorder's CPU seconds per million events, per round.
per_mevent() {
	awk -F'\t' -v w="$1" '$1 == w && $2 == "traced" && $4 == "events" { e[$3] = $5 }
		$1 == w && $2 == "traced" && $4 == "rec_cpu" { c[$3] = $5 }
		END { for (r in c) if (e[r] > 0) print c[r] * 1e6 / e[r] }' "$R" | median
}

micro_tables() {
	local m
	echo "#### Per call family: ns a traced call (CPU of the loop's threads; wall in brackets)"
	echo
	echo "| Family | untraced | floor-sys above untraced | floor-all above untraced | iotrace above untraced | **iotrace above floor-all** |"
	echo "|---|---:|---:|---:|---:|---:|"
	for m in "${FAMILIES[@]}"; do
		printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | **%s** (%s) |\n' "$m" \
			"$(fmt 0 "$(med "cb-$m" untraced cpu_ns)")" "$(fmt 0 "$(med "cb-$m" untraced wall_ns)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-sys untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-sys untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-all untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-all untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-all cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-all wall_ns -)")"
	done
	echo
	echo "#### The least a tracer that times each call pays: ns a call above floor-all (CPU; wall in brackets)"
	echo
	echo "| Family | clock at enter and exit | clocks and a 24-byte record | iotrace | **iotrace above the record pair** |"
	echo "|---|---:|---:|---:|---:|"
	for m in "${FAMILIES[@]}"; do
		printf '| %s | %s (%s) | %s (%s) | %s (%s) | **%s** (%s) |\n' "$m" \
			"$(fmt 0 "$(per_round "cb-$m" floor-clock floor-all cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-clock floor-all wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-rec floor-all cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-rec floor-all wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-all cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-all wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-rec cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace floor-rec wall_ns -)")"
	done
	echo
	echo "#### Untraced tasks while iotrace records another (idle) process: ns a call or hop"
	echo
	echo "| Workload | untraced | floor-sys above untraced | floor-all above untraced | iotrace above untraced | **iotrace above floor** |"
	echo "|---|---:|---:|---:|---:|---:|"
	for m in "${OTHER_MODES[@]}"; do
		local fl=floor-sys
		[ "$m" = ctxsw ] && fl=floor-all
		printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s (%s) | **%s** (%s) vs %s |\n' "$m" \
			"$(fmt 0 "$(med "cb-$m" untraced cpu_ns)")" "$(fmt 0 "$(med "cb-$m" untraced wall_ns)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-sys untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-sys untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-all untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" floor-all untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace-other untraced cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace-other untraced wall_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace-other $fl cpu_ns -)")" \
			"$(fmt 0 "$(per_round "cb-$m" iotrace-other $fl wall_ns -)")" "$fl"
	done
	echo
	echo "Per hop of *ctxsw*, the scheduler programs (\`sched_switch\`, \`sched_waking\`) as the kernel times"
	echo "each run (\`kernel.bpf_stats_enabled\`, in rounds of their own): iotrace's"
	echo "$(fmt 0 "$(med cb-ctxsw stats-iotrace sched_ns)") ns, the floor's $(fmt 0 "$(med cb-ctxsw stats-floor sched_ns)") ns;"
	echo "**$(fmt 0 "$(per_round cb-ctxsw stats-iotrace stats-floor sched_ns -)") ns above the floor a hop of untraced tasks**."
	echo
	echo "The traced families ran in one \`iotrace record -- CMD\` a round: $(fmt 0 "$(med cb-families iotrace events)") events,"
	echo "$(maxof cb-families iotrace lost) lost (worst round), $(fmt 1 "$(med cb-families iotrace bpe)") bytes an event."
	echo "The recorder's start, \`iotrace record -- true\` (loading, verifying and attaching its programs): $(fmt 2 "$(med rec-start iotrace wall_s)") s."
	echo
}

# sat_row WL KEY TITLE
sat_row() {
	local u t
	u=$(med "$1" untraced "$2")
	t=$(med "$1" traced "$2")
	[ "$u" = - ] && return 0
	printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$3" "$(fmt 0 "$u")" \
		"$(fmt 0 "$(med "$1" floor "$2")")" "$(fmt 0 "$t")" \
		"$(fmt 2 "$(per_round "$1" floor untraced "$2" /)")" \
		"$(fmt 2 "$(per_round "$1" traced untraced "$2" /)")" \
		"$(fmt 2 "$(per_round "$1" traced floor "$2" /)")" "$(fmt 0 "$(med "$1" traced events)")" \
		"$(maxof "$1" traced lost)" "$(fmt 1 "$(med "$1" traced bpe)")" \
		"$(fmt 2 "$(per_mevent "$1")")"
}

# fixed_row WL RATE_KEY TITLE
fixed_row() {
	[ "$(med "$1" untraced p50_us)" = - ] && return 0
	printf '| %s | %s / %s / %s | %s | %s / %s / %s | %s | %s / %s / %s | %s | %s | %s / %s / %s |\n' \
		"$3" "$(fmt 0 "$(med "$1" untraced "$2")")" "$(fmt 0 "$(med "$1" floor "$2")")" \
		"$(fmt 0 "$(med "$1" traced "$2")")" \
		"$(fmt 2 "$(per_round "$1" traced untraced "$2" /)")" \
		"$(fmt 0 "$(med "$1" untraced p50_us)")" "$(fmt 0 "$(med "$1" floor p50_us)")" \
		"$(fmt 0 "$(med "$1" traced p50_us)")" \
		"$(fmt 2 "$(per_round "$1" traced untraced p50_us /)")" \
		"$(fmt 0 "$(med "$1" untraced p99_us)")" "$(fmt 0 "$(med "$1" floor p99_us)")" \
		"$(fmt 0 "$(med "$1" traced p99_us)")" \
		"$(fmt 2 "$(per_round "$1" traced untraced p99_us /)")" \
		"$(fmt 2 "$(per_round "$1" traced floor p99_us /)")" \
		"$(maxof "$1" untraced errors)" "$(maxof "$1" floor errors)" "$(maxof "$1" traced errors)"
}

svc_tables() {
	echo "#### Services at saturation, attached with \`record -p\`"
	echo
	echo "| Service | untraced | floor | traced | floor/untraced | traced/untraced | **traced/floor** | events a run | lost (max) | bytes/event | recorder CPU s per M events |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	sat_row redis SET "redis SET, redis-benchmark -c 16 (ops/s)"
	sat_row redis GET "redis GET (same runs)"
	sat_row redis-p16 SET "redis SET, -P 16 (ops/s)"
	sat_row redis-p16 GET "redis GET, -P 16 (same runs)"
	sat_row nginx rps "nginx, 64 KiB file, wrk -t2 -c16 keep-alive (req/s)"
	sat_row postgres tps "PostgreSQL, pgbench -c4 -j2 -s 4 (tps)"
	echo
	echo "#### Services at a fixed rate of half the untraced saturation"
	echo
	echo "| Service | rate achieved, untraced / floor / traced | traced/untraced | p50 µs, untraced / floor / traced | traced/untraced | p99 µs, untraced / floor / traced | traced/untraced | **traced/floor** | errors (max), untraced / floor / traced |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	fixed_row redis-fixed rate "redis SET, bench/loadgen, 16 connections"
	fixed_row nginx-fixed rate "nginx 64 KiB, bench/loadgen, 16 keep-alive connections"
	fixed_row postgres-fixed tps "PostgreSQL, pgbench -c4 -j2 -R"
	echo
}

# verdict OK: met or missed, for the targets table.
verdict() { [ "$1" = 1 ] && echo met || echo "**missed**"; }

# target TITLE VALUE TEST: a row, TEST an awk condition on v.
target() {
	[ "$2" = - ] && return 0
	echo "| $1 | $2 | $(verdict "$(awk -v v="$2" "BEGIN { ok = ($3); print ok ? 1 : 0 }")") |"
}

targets() {
	local w k worst=- fixed=- p99=- lost v
	echo "| Target (issue 22) | Measured | Verdict |"
	echo "|---|---:|---|"
	for w in pread pwrite; do
		target "<= 100 ns above the floor a traced \`$w\` (CPU)" \
			"$(fmt 0 "$(per_round "cb-$w" iotrace floor-all cpu_ns -)")" "v <= 100"
	done
	target "<= 15 ns above the floor a syscall of an untraced task (CPU)" \
		"$(fmt 0 "$(per_round cb-null iotrace-other floor-sys cpu_ns -)")" "v <= 15"
	for k in redis:SET redis:GET redis-p16:SET redis-p16:GET nginx:rps postgres:tps; do
		v=$(per_round "${k%%:*}" traced untraced "${k#*:}" /)
		[ "$v" = - ] || worst=$(awk -v a="$worst" -v b="$v" 'BEGIN { m = (a == "-" || b < a) ? b : a; print m }')
	done
	target ">= 0.90 of untraced throughput at saturation (worst service)" "$(fmt 2 "$worst")" "v >= 0.90"
	for k in redis-fixed:rate nginx-fixed:rate postgres-fixed:tps; do
		v=$(per_round "${k%%:*}" traced untraced "${k#*:}" /)
		[ "$v" = - ] || fixed=$(awk -v a="$fixed" -v b="$v" 'BEGIN { m = (a == "-" || b < a) ? b : a; print m }')
		v=$(per_round "${k%%:*}" traced untraced p99_us /)
		[ "$v" = - ] || p99=$(awk -v a="$p99" -v b="$v" 'BEGIN { m = (a == "-" || b > a) ? b : a; print m }')
	done
	target ">= 0.95 of untraced throughput at half saturation (worst service)" "$(fmt 2 "$fixed")" "v >= 0.95"
	target "p99 within 10% at half saturation (worst traced/untraced)" "$(fmt 2 "$p99")" "v <= 1.10"
	lost=$(awk -F'\t' '$4 == "lost" && $5 > m { m = $5 } END { print m + 0 }' "$R")
	target "0 lost events (worst run of this benchmark)" "$lost" "v == 0"
}

write_section() {
	local f=$TMP/section.md n
	{
		echo "## Capture cost in production (issue 22)"
		echo
		echo "Generated by \`bench/cost.sh$([ "$MODE" = quick ] && echo ' --quick')\` ($MODE run: $ROUNDS rounds of the microbenchmarks,"
		echo "$SVC_ROUNDS of the services, configurations interleaved, medians of per-round differences or ratios)."
		echo
		machine_info
		echo "- iotrace $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
		echo
		targets
		echo
		micro_tables
		svc_tables
		echo "- *floor-sys*: empty \`tp_btf\` \`sys_enter\`/\`sys_exit\` programs (\`bench/floor.bpf.c\`); *floor-all*"
		echo "  adds empty ones on the scheduler tracepoints iotrace attaches. The families' floor is"
		echo "  floor-all (iotrace attaches all of them); an untraced syscall's is floor-sys; a hop's floor-all."
		echo "  *clock* and *record* replace floor-all's empty syscall pair with one that reads the clock at"
		echo "  enter and exit, and one that also writes a 24-byte record (times, number, result) to a per-CPU"
		echo "  batch drained through a ring buffer: the least any tracer that times each call pays (no"
		echo "  filter, no argument, no thread named), measured on the traced families in the same rounds."
		echo "- Families (\`bench/callbench.c\`, $ITERS iterations): cached 4 KiB \`pread\`/\`pwrite\` of a 16 MiB"
		echo "  file, 64-byte \`send\`+\`recv\` on an AF_UNIX socketpair, \`epoll_wait\` on a ready eventfd, a"
		echo "  futex token handed between two threads (a wake and a wait each), all traced by one"
		echo "  \`iotrace record -- CMD\` a round. *null* is \`getppid\`; *ctxsw* is a hop of a byte between two"
		echo "  processes pinned to one CPU over pipes (a write, a read and a context switch)."
		echo "- Services: started once, untraced; *traced* rounds attach \`iotrace record -p\` to the server"
		echo "  (redis-server; nginx's master with 2 workers; the postmaster, whose backends pgbench's"
		echo "  connections fork while traced) before the load and stop it after; *floor* rounds attach the"
		echo "  empty programs of floor-all instead. The three kinds of round take turns going first."
		echo "  Load generator, server and recorder share the machine's CPUs. redis without persistence; nginx with \`access_log off\`."
		echo "  The fixed rate is half the median untraced saturation of this run; \`bench/loadgen.c\` takes"
		echo "  each latency from the request's scheduled send time (no coordinated omission), and so does"
		echo "  pgbench under \`-R\` (its per-transaction log)."
		echo "- *Recorder CPU per M events*: user+system of \`iotrace record\` from attached to exited, per"
		echo "  million events of the trace. *Bytes/event*: \`iotrace info\`'s \`bytes_per_event\`."
		if [ ${#NOTES[@]} -gt 0 ]; then
			for n in "${NOTES[@]}"; do echo "- $n"; done
		fi
	} >"$f"
	doc_section "$DOC" capture-cost "$f"
}

main() {
	[ "$(id -u)" -eq 0 ] || { echo "bench: cost.sh needs root (BPF)" >&2; exit 1; }
	[ -x "$IOTRACE" ] || { echo "bench: $IOTRACE not found; build it first (make)" >&2; exit 1; }
	FLOOR_LOAD=$BUILD/bench/floor_load FLOOR_OBJ=$BUILD/bench/floor.bpf.o
	LOADGEN=$BUILD/bench/loadgen CPUTIME=$BUILD/bench/cputime CALLBENCH=$BUILD/bench/callbench
	local t
	for t in "$FLOOR_LOAD" "$FLOOR_OBJ" "$LOADGEN"; do
		[ -e "$t" ] || { echo "bench: $t not found; run make bench" >&2; exit 1; }
	done
	have jq || { echo "bench: jq is required (make deps)" >&2; exit 1; }
	mkdir -p "$BUILD/bench"
	gcc -O2 -Wall -D_GNU_SOURCE -pthread "$ROOT/bench/callbench.c" -o "$CALLBENCH"
	gcc -O2 -Wall "$ROOT/bench/cputime.c" -o "$CPUTIME"
	ensure_tracefs
	# other recorders' programs run on every syscall, the untraced runs' too
	have bpftool && NOTES+=("When the run started: load average $(cut -d' ' -f1-3 /proc/loadavg), $(bpftool prog show 2>/dev/null | grep -cE ': (tracing|raw_tracepoint|tracepoint) ' || true) BPF tracing programs loaded.")
	log "cost: $MODE run, temp dir $TMP"
	if [ -n "${COST_RESULTS:-}" ] && [ -s "$COST_RESULTS" ]; then
		log "cost: the report only, from $COST_RESULTS"
		cp "$COST_RESULTS" "$R"
	else
		[ "${COST_ONLY:-}" = services ] || micro
		[ "${COST_ONLY:-}" = micro ] || services
		cp "$R" "$BUILD/bench/cost-results.tsv"
	fi
	write_section
	log "cost: done; wrote the capture-cost section of $DOC"
}

main
