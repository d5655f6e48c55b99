#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/matrix.sh [--quick]: the entries of issue 19's service matrix that
# need no network, at full size: a make -j2 build with gcc, SQLite in WAL
# mode and RocksDB db_bench, the last two attached with -p.  Each is
# recorded, analyzed with --infer-causality and replayed --afap and
# --natural; the table says what each replay reproduced, and which calls it
# could not, by reason.  The short versions are tests/e2e/workloads.sh.
# Writes the "matrix-local" section of docs/BENCHMARKS.md.
#
#   BUILD=DIR    where iotrace was built (default build/)
#   --quick      the sizes of the tests
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
# make_project
# shellcheck source=tests/e2e/workloads.sh
. "$ROOT/tests/e2e/workloads.sh"

bench_env "$@"
if [ "$MODE" = quick ]; then
	FILES=17 TXNS=300 DB_SECS=1
else
	FILES=17 TXNS=3000 DB_SECS=5
fi

TMP=$(mktemp -d /tmp/iotrace-matrix.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
ensure_tracefs
ROWS=$TMP/rows.md

# replay_row NAME JSONL INFO: a table row per replay mode
replay_row() {
	local name=$1 jsonl=$2 info=$3 mode rep rc
	for mode in afap natural; do
		rep=$TMP/$name-$mode.json
		rm -rf "$TMP/root"
		rc=0
		"$IOTRACE" replay "$jsonl" --root "$TMP/root" "--$mode" --report "$rep" \
			--no-progress --stall-timeout 30 2>"$TMP/$name-$mode.err" || rc=$?
		if [ ! -s "$rep" ]; then
			printf '| %s | %s | replay exited %s: %s |||||||\n' "$name" "$mode" "$rc" \
				"$(tail -1 "$TMP/$name-$mode.err")" >>"$ROWS"
			continue
		fi
		jq -r --arg n "$name" --arg m "$mode" --arg rc "$rc" --slurpfile i "$info" '
			"| \($n) | \($m) | \($i[0].events) | \($i[0].lost_events) | \(.issued) | \(.failed) | \(.short) | \(.emulated) | \(.skipped_total) | \(if $rc == "0" then "no" else "exit \($rc)" end) | \(.wall_ns / 1e6 | floor) / \(.trace_wall_ns / 1e6 | floor) | \(
				[.reasons | to_entries[] | .key as $k | .value | to_entries[]
				 | select(.key != "first" and .value > 0) | "\(.key) \(.value) \($k)"]
				| join(", ") | if . == "" then "-" else . end) |"' "$rep" >>"$ROWS"
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

entry_make
entry_sqlite
entry_rocksdb

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
doc_section "$DOC" matrix-local "$TMP/section.md"
log "wrote the matrix-local section of $DOC"
