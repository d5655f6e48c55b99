#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/matrix.sh [--quick]: issue 19's service matrix at full size.  The
# entries that need no network: a make -j2 build with gcc, SQLite in WAL
# mode and RocksDB db_bench, the last two attached with -p.  The network
# services, each on its own port on 127.0.0.1 with its own scratch
# directory, attached with -p while their load generator runs: PostgreSQL
# under pgbench, nginx under wrk (keep-alive) and ab (a connection per
# request), redis with appendfsync always under redis-benchmark, pipelined
# and not, and memcached (threads handing connections over) under memcaslap.
# Each is recorded, analyzed with --infer-causality and replayed
# --afap and --natural; the tables say what each replay reproduced, and
# which calls it could not, by reason.  The short versions are
# tests/e2e/workloads.sh and tests/e2e/services.sh.  Writes the
# "matrix-local" and "matrix-services" sections of docs/BENCHMARKS.md.
#
#   BUILD=DIR    where iotrace was built (default build/)
#   --quick      the sizes of the tests
#   MATRIX_ONLY="NAME..."  only these entries (make sqlite rocksdb pgbench
#                nginx-wrk nginx-ab redis-P16 redis memcached); a table left without
#                rows leaves its section of the doc as it was
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
# make_project
# shellcheck source=tests/e2e/workloads.sh
. "$ROOT/tests/e2e/workloads.sh"

bench_env "$@"
# LOAD_SECS: how long wrk and pgbench run; AB_N, REDIS_N: requests
if [ "$MODE" = quick ]; then
	FILES=17 TXNS=300 DB_SECS=1 LOAD_SECS=2 AB_N=1000 REDIS_N=3000
else
	FILES=17 TXNS=3000 DB_SECS=5 LOAD_SECS=10 AB_N=20000 REDIS_N=30000
fi

TMP=$(mktemp -d /tmp/iotrace-matrix.XXXXXX)
chmod 755 "$TMP" # nginx's workers and PostgreSQL run as other users
STOP=""         # the command that stops the service running, however the script ends
cleanup() {
	set +e
	[ -n "$STOP" ] && eval "$STOP" >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
ensure_tracefs
ROWS=$TMP/rows.md
SROWS=$TMP/srows.md
: >"$ROWS"
: >"$SROWS"

# replay_row NAME JSONL INFO: a table row per replay mode, in ROWS (or OUT)
replay_row() {
	local name=$1 jsonl=$2 info=$3 mode rep rc out=${OUT:-$ROWS}
	for mode in afap natural; do
		rep=$TMP/$name-$mode.json
		rm -rf "$TMP/root"
		rc=0
		"$IOTRACE" replay "$jsonl" --root "$TMP/root" "--$mode" --report "$rep" \
			--no-progress --stall-timeout 30 2>"$TMP/$name-$mode.err" || rc=$?
		if [ ! -s "$rep" ]; then
			printf '| %s | %s | replay exited %s: %s |||||||\n' "$name" "$mode" "$rc" \
				"$(tail -1 "$TMP/$name-$mode.err")" >>"$out"
			continue
		fi
		jq -r --arg n "$name" --arg m "$mode" --arg rc "$rc" --slurpfile i "$info" '
			"| \($n) | \($m) | \($i[0].events) | \($i[0].lost_events) | \(.issued) | \(.failed) | \(.short) | \(.emulated) | \(.skipped_total) | \(if $rc == "0" then "no" else "exit \($rc)" end) | \(.wall_ns / 1e6 | floor) / \(.trace_wall_ns / 1e6 | floor) | \(
				[.reasons | to_entries[] | .key as $k | .value | to_entries[]
				 | select(.key != "first" and .value > 0) | "\(.key) \(.value) \($k)"]
				| join(", ") | if . == "" then "-" else . end) |"' "$rep" >>"$out"
	done
}

# analyze_and_replay NAME TRACE
analyze_and_replay() {
	"$IOTRACE" info "$TMP/$1.iot" >"$TMP/$1.info"
	"$IOTRACE" analyze "$TMP/$1.iot" --infer-causality -o "$TMP/$1.jsonl"
	replay_row "$1" "$TMP/$1.jsonl" "$TMP/$1.info"
}

entry_make() {
	log "make -j2 of $FILES files"
	make_project "$TMP/proj" "$FILES"
	"$IOTRACE" record -o "$TMP/make.iot" -- make -C "$TMP/proj" -j2 >/dev/null 2>&1
	analyze_and_replay make
}

entry_sqlite() {
	local pid rec i
	log "SQLite WAL, $TXNS transactions, attached"
	mkfifo "$TMP/in"
	(cd "$TMP" && exec sqlite3 t.db <in >sql.out 2>&1) &
	pid=$!
	exec 7>"$TMP/in"
	echo "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
		CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);" >&7
	sleep 0.3
	"$IOTRACE" record -p "$pid" -o "$TMP/sqlite.iot" 2>/dev/null 7>&- &
	rec=$!
	sleep 1.5
	for i in $(seq "$TXNS"); do
		echo "BEGIN; INSERT INTO t (v) VALUES (hex(randomblob(50))); COMMIT;"
	done >&7
	exec 7>&-
	wait "$pid" "$rec"
	analyze_and_replay sqlite
}

entry_rocksdb() {
	local pid
	have db_bench || { log "db_bench missing (rocksdb-tools): RocksDB left out"; return 0; }
	log "RocksDB db_bench, ${DB_SECS}s fillrandom synced + ${DB_SECS}s readrandom, attached"
	db_bench --benchmarks=fillrandom,readrandom --db="$TMP/db" --num=200000 \
		--duration="$DB_SECS" --threads=2 --value_size=100 --compression_type=none \
		--write_buffer_size=65536 --sync=1 --cache_size=65536 --statistics=0 \
		>"$TMP/db.out" 2>&1 &
	pid=$!
	sleep 0.7
	"$IOTRACE" record -p "$pid" -o "$TMP/rocksdb.iot" 2>/dev/null
	wait "$pid"
	analyze_and_replay rocksdb
}



# listening PORT: something listens on PORT
listening() { ss -Htln "sport = :$1" | grep -q .; }

# attach NAME PID SECS: record -p PID for SECS seconds into $TMP/NAME.iot in
# the background (its pid in REC), back once the programs are attached (the
# trace file is named only then): the load starts after, so its connections
# are accepted while traced.
attach() {
	"$IOTRACE" record -p "$2" -d "$3" -o "$TMP/$1.iot" 2>"$TMP/$1.rec.err" &
	REC=$!
	until_ok 60 test -e "$TMP/$1.iot" || { log "$1: the recording never started"; return 1; }
}

# service_done NAME: the recording has ended; analyze and replay it
service_done() {
	wait "$REC" || { log "$1: record exited $?: $(tail -1 "$TMP/$1.rec.err")"; return 1; }
	OUT=$SROWS analyze_and_replay "$1"
}

# redis_entry NAME PIPELINE: a redis with an append-only file fsynced at every
# write, under redis-benchmark -P PIPELINE
redis_entry() {
	local port dir=$TMP/$1 pid
	have redis-server && have redis-benchmark || { log "redis missing: left out"; return 0; }
	log "$1: redis appendfsync always, redis-benchmark -P $2, $REDIS_N requests per test"
	port=$(free_port)
	mkdir "$dir"
	redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly yes \
		--appendfsync always --dir "$dir" --daemonize no >"$dir/server.log" 2>&1 &
	pid=$!
	STOP="kill $pid"
	until_ok 10 grep -q "Ready to accept" "$dir/server.log" || return 1
	attach "$1" "$pid" $((REDIS_N / 1000 + 15)) || return 1
	timeout 120 redis-benchmark -p "$port" -n "$REDIS_N" -c 8 -P "$2" -t set,get,lpush -q \
		>"$dir/load.out" 2>&1 || log "$1: redis-benchmark failed"
	kill "$REC" 2>/dev/null || true # ends the recording (record stops on SIGTERM)
	service_done "$1"
	kill "$pid"
	STOP=""
}

# nginx_entry NAME GENERATOR: a master and two workers with sendfile, under
# wrk (keep-alive: many requests per connection) or ab (one per request)
nginx_entry() {
	local port dir=$TMP/$1 master
	have nginx && have "$2" || { log "nginx or $2 missing: left out"; return 0; }
	port=$(free_port)
	mkdir -p "$dir/www" "$dir/logs"
	head -c 20000 /dev/urandom >"$dir/www/index.html"
	cat >"$dir/nginx.conf" <<-CONF
	worker_processes 2;
	daemon off;
	pid $dir/nginx.pid;
	error_log $dir/logs/error.log;
	events { worker_connections 64; use epoll; }
	http {
		sendfile on;
		access_log $dir/logs/access.log;
		server { listen 127.0.0.1:$port; root $dir/www; }
	}
	CONF
	nginx -c "$dir/nginx.conf" -p "$dir" &
	STOP="kill $!"
	until_ok 10 test -s "$dir/nginx.pid" || return 1
	sleep 0.3
	master=$(cat "$dir/nginx.pid")
	case $2 in
	wrk)
		log "$1: nginx, wrk -t2 -c8 for ${LOAD_SECS}s"
		attach "$1" "$master" $((LOAD_SECS + 3)) || return 1
		timeout 120 wrk -t2 -c8 -d"${LOAD_SECS}s" "http://127.0.0.1:$port/index.html" \
			>"$dir/load.out" 2>&1 || log "$1: wrk failed"
		;;
	ab)
		log "$1: nginx, ab -c4, $AB_N requests"
		attach "$1" "$master" $((AB_N / 500 + 15)) || return 1
		timeout 120 ab -q -n "$AB_N" -c 4 "http://127.0.0.1:$port/index.html" \
			>"$dir/load.out" 2>&1 || log "$1: ab failed"
		;;
	esac
	kill "$REC" 2>/dev/null || true
	service_done "$1"
	kill "$master"
	STOP=""
}

# pg_entry NAME: a postmaster forking a backend per pgbench client, which
# reads its queries and fsyncs the WAL
pg_entry() {
	local bin=/usr/lib/postgresql/15/bin port dir=$TMP/$1 pm
	[ -x $bin/pg_ctl ] && have pgbench && id postgres >/dev/null 2>&1 ||
		{ log "postgresql-15 missing: left out"; return 0; }
	log "$1: PostgreSQL, pgbench -c4 -j2 for ${LOAD_SECS}s"
	port=$(free_port)
	mkdir "$dir"
	chown postgres "$dir"
	runuser -u postgres -- $bin/initdb -D "$dir/data" -A trust -U postgres >"$TMP/initdb.log" 2>&1 || return 1
	runuser -u postgres -- $bin/pg_ctl -D "$dir/data" -l "$dir/server.log" -w -t 30 -o \
		"-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=20" start >/dev/null || return 1
	STOP="runuser -u postgres -- $bin/pg_ctl -D '$dir/data' -m immediate stop"
	runuser -u postgres -- pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s 1 postgres \
		>"$TMP/pginit.log" 2>&1
	pm=$(head -1 "$dir/data/postmaster.pid")
	attach "$1" "$pm" $((LOAD_SECS + 3)) || return 1
	# connected after the attach: the backends are forked while traced
	timeout 120 runuser -u postgres -- pgbench -h 127.0.0.1 -p "$port" -U postgres \
		-c 4 -j 2 -T "$LOAD_SECS" postgres >"$dir/load.out" 2>&1 || log "$1: pgbench failed"
	kill "$REC" 2>/dev/null || true
	service_done "$1"
	runuser -u postgres -- $bin/pg_ctl -D "$dir/data" -m immediate stop >/dev/null
	STOP=""
}

# memcached_entry NAME: a listener thread handing connections to four worker
# threads, each with its own epoll loop, under memcaslap
memcached_entry() {
	local port pid
	have memcached && have memcaslap || { log "memcached missing: left out"; return 0; }
	log "$1: memcached -t 4, memcaslap -T2 -c8 for ${LOAD_SECS}s"
	port=$(free_port)
	memcached -p "$port" -l 127.0.0.1 -U 0 -t 4 -m 64 -u nobody >"$TMP/mc.log" 2>&1 &
	pid=$!
	STOP="kill $pid"
	until_ok 10 listening "$port" || return 1
	attach "$1" "$pid" $((LOAD_SECS + 3)) || return 1
	timeout 120 memcaslap -s "127.0.0.1:$port" -T 2 -c 8 -t "${LOAD_SECS}s" >"$TMP/mc.out" 2>&1 ||
		log "$1: memcaslap failed"
	kill "$REC" 2>/dev/null || true
	service_done "$1"
	kill "$pid"
	STOP=""
}

# entry NAME CMD...: runs an entry unless MATRIX_ONLY leaves it out; one that
# fails is said so and left out of its table, the others still run
entry() {
	[ -n "${MATRIX_ONLY:-}" ] && [[ " $MATRIX_ONLY " != *" $1 "* ]] && return 0
	"${@:2}" || log "$1: failed, left out"
	# an entry that failed half-way leaves its service up
	if [ -n "$STOP" ]; then
		eval "$STOP" >/dev/null 2>&1 || true
		STOP=""
	fi
}

entry make entry_make
entry sqlite entry_sqlite
entry rocksdb entry_rocksdb
entry pgbench pg_entry pgbench
entry nginx-wrk nginx_entry nginx-wrk wrk
entry nginx-ab nginx_entry nginx-ab ab
entry redis-P16 redis_entry redis-P16 16
entry redis redis_entry redis 1
entry memcached memcached_entry memcached

{
	echo "## Service matrix: builds and files"
	echo
	echo "\`bench/matrix.sh\` ($MODE): each workload recorded (SQLite and RocksDB attached"
	echo "with \`-p\` while running), analyzed with \`--infer-causality\`, replayed into an"
	echo "empty root on the same machine. *reasons*: the calls the replay could not"
	echo "reproduce as recorded, by outcome and reason (docs/replay.md, Reasons)."
	echo
	echo "| workload | mode | events | lost | calls | failed | short | emulated | skipped | stall | wall ms / trace ms | reasons |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"
	cat "$ROWS"
	echo
	echo "- make -j2 of $FILES C files and a main with \`cc -O1 -pipe\`; SQLite $(sqlite3 --version | cut -d' ' -f1), $TXNS one-row transactions, \`journal_mode=WAL\`, \`synchronous=FULL\`; $(db_bench --version 2>/dev/null | head -1 || echo 'db_bench'), two threads, ${DB_SECS}s \`fillrandom --sync=1\` then ${DB_SECS}s \`readrandom\` through a 64 KiB block cache."
	echo "- $(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs."
} >"$TMP/section.md"
# a table without rows (MATRIX_ONLY) leaves its section as it was
[ -s "$ROWS" ] && doc_section "$DOC" matrix-local "$TMP/section.md"

{
	echo "## Service matrix: network services"
	echo
	echo "\`bench/matrix.sh\` ($MODE): each server started with its own scratch directory and"
	echo "port on 127.0.0.1, attached with \`record -p\` before its load generator starts,"
	echo "recorded until the load ends, analyzed with \`--infer-causality\` and replayed into"
	echo "an empty root with the clients played by the replayer (docs/replay.md, Network"
	echo "services). *stall*: the replay did not end (\`--stall-timeout 30\`). Columns as above."
	echo
	echo "| service | mode | events | lost | calls | failed | short | emulated | skipped | stall | wall ms / trace ms | reasons |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"
	cat "$SROWS"
	echo
	echo "- pgbench: PostgreSQL $(/usr/lib/postgresql/15/bin/postgres --version 2>/dev/null | awk '{ print $3 }'), scale 1, \`-c4 -j2 -T$LOAD_SECS\` (a backend per client, forked while traced); nginx $(nginx -v 2>&1 | cut -d/ -f2), 2 workers, \`sendfile on\`, a 20 kB file, \`wrk -t2 -c8 -d${LOAD_SECS}s\` and \`ab -c4 -n$AB_N\`; redis $(redis-server --version | grep -o 'v=[0-9.]*' | cut -d= -f2), \`appendfsync always\`, \`redis-benchmark -c8 -n$REDIS_N -t set,get,lpush\` with \`-P16\` and without; memcached $(memcached -V 2>/dev/null | cut -d' ' -f2), four worker threads, \`memcaslap -T2 -c8 -t${LOAD_SECS}s\` (its default 9:1 get/set mix)."
	echo "- The recording ends with the load (\`record\` is stopped as the generator exits)."
	echo "- $(date -u +%Y-%m-%d), $(uname -r), $(nproc) CPUs."
} >"$TMP/services.md"
[ -s "$SROWS" ] && doc_section "$DOC" matrix-services "$TMP/services.md"
log "wrote the sections of $DOC with rows"
