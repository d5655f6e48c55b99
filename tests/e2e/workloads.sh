# SPDX-License-Identifier: GPL-2.0
# Real programs doing real work, short versions of issue 19's service matrix
# entries that need no network: a parallel build, SQLite in WAL mode and
# RocksDB, each recorded, analyzed with --infer-causality and replayed
# --afap and --natural.  Each replay must end (no stall), with 0 failed and
# 0 short calls, and every emulated or skipped call under a reason the
# sandbox has by design.

# Reasons a call may be emulated or skipped for in these workloads: fds that
# lead outside the sandbox (the terminal, the pipe the test feeds), writes to
# /dev/null, /proc and /sys reads, fcntl record locks (one replay process),
# a call in progress at the attach, a pipe's end-of-file answered before the
# replay's last writer went.  Anything else fails the test.
ALLOWED_REASONS='["outside_sandbox", "host_device_write", "pseudo_fs", "record_lock",
	"before_attach", "eof_early"]'

# replay_clean NAME JSONL MODE [REASONS]: replays into root-NAME-MODE and checks
# the report: no failed call, and no short one but under one of REASONS (a
# JSON list, added to ALLOWED_REASONS for this workload).
replay_clean()
{
	local name=$1 jsonl=$2 mode=$3 rep=rep-$1-$3.json ok
	ok=$(jq -cn --argjson a "$ALLOWED_REASONS" --argjson b "${4:-[]}" '$a + $b')

	"$IOTRACE" replay "$jsonl" --root "root-$name-$mode" "--$mode" --report "$rep" \
		--no-progress --stall-timeout 20 2>"replay-$name-$mode.err" ||
		fail "$name --$mode: replay exited $?: $(tail -5 "replay-$name-$mode.err")"
	echo "note: $name --$mode: $(jq -c '{issued, failed, short, emulated, skipped_total,
		reasons: (.reasons | map_values(del(.first)))}' "$rep")"
	eq "$name --$mode failed" "$(jq .failed "$rep")" 0
	eq "$name --$mode short without a reason" "$(jq --argjson ok "$ok" '.short -
		([.reasons | to_entries[] | select(.key as $r | $ok | index($r)) | .value.short] |
		add // 0)' "$rep")" 0
	eq "$name --$mode reasons outside the allowed ones" "$(jq -c --argjson ok "$ok" \
		'[.reasons | keys[] | select(. as $r | $ok | index($r) | not)]' "$rep")" "[]"
	# every emulated and skipped call is under a reason
	eq "$name --$mode emulated by reason" "$(jq '[.reasons[].emulated] | add // 0' "$rep")" \
		"$(jq .emulated "$rep")"
	eq "$name --$mode skipped by reason" "$(jq '[.reasons[].skipped] | add // 0' "$rep")" \
		"$(jq .skipped_total "$rep")"
}

# make_project DIR N: N small C files, their headers, a main and a Makefile
# that builds them with cc -pipe (a pipe between cc1 and as in each job).
make_project()
{
	local d=$1 n=$2 i
	mkdir -p "$d"
	{
		echo '#include <stdio.h>'
		for i in $(seq "$n"); do echo "#include \"m$i.h\""; done
		echo 'int main(void) { int s = 0;'
		for i in $(seq "$n"); do echo "s += f$i($i);"; done
		echo 'printf("%d\n", s); return 0; }'
	} >"$d/main.c"
	for i in $(seq "$n"); do
		echo "int f$i(int);" >"$d/m$i.h"
		cat >"$d/m$i.c" <<-C
		#include <stdio.h>
		#include <string.h>
		#include "m$i.h"
		int f$i(int x) { char b[32]; snprintf(b, sizeof(b), "%d", x * $i); return (int)strlen(b) + x; }
		C
	done
	printf '%s\n' 'CFLAGS = -O1 -pipe' 'OBJS = $(patsubst %.c,%.o,$(wildcard *.c))' \
		'prog: $(OBJS)' '	cc $(CFLAGS) -o $@ $^' '%.o: %.c' \
		'	cc $(CFLAGS) -c $< -o $@' >"$d/Makefile"
}

# make -j2 of 17 files and a main: jobserver pipes fcntl'd before use, gcc's
# readlinks of non-links, cc -> /etc/alternatives/cc -> ... reached by stat
# and exec, vfork children that only exec, cc1 | as pipes.
test_make_j2_build()
{
	need_bpf
	command -v cc >/dev/null && command -v make >/dev/null ||
		skip "cc and make are not installed (make deps)"
	make_project proj 17
	"$IOTRACE" record -o b.iot -- make -C proj -j2 >make.out 2>rec.err ||
		fail "record exited $?: $(tail -3 rec.err)"
	[ -x proj/prog ] || fail "the build made no program: $(cat make.out)"
	"$IOTRACE" info b.iot >info.json
	"$IOTRACE" dump --json b.iot >dump.json
	echo "note: captured: $(jq -c '{processes, events, lost_events, pipe2: .calls.pipe2,
		readlink: .calls.readlink, vfork: .calls.vfork, execve: .calls.execve}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "processes" "$(jq .processes info.json)" 36
	ge "pipe2" "$(jq '.calls.pipe2 // 0' info.json)" 18
	# the chain behind cc was followed to its end, a regular file
	local end
	end=$(jq -r 'select(.type == "link" and .path == "/usr/bin/cc") | .end' dump.json | head -1)
	[ -n "$end" ] || fail "no LINK record for /usr/bin/cc"
	eq "chain end of cc is a regular file (S_IFREG >> 12)" "$(jq -r --arg e "$end" 'select(
		.type == "link" and .end == $e) | (.end_mode / 4096 | floor) % 16' dump.json | head -1)" 8
	"$IOTRACE" analyze b.iot --infer-causality -o b.jsonl || fail "analyze"
	replay_clean make b.jsonl afap
	replay_clean make b.jsonl natural
	[ -L root-make-afap/usr/bin/cc ] || fail "cc is not a symlink in the sandbox"
	[ -f "root-make-afap$end" ] || fail "the end of cc's chain, $end, is not in the sandbox"
	[ -f root-make-afap"$T"/proj/prog ] || fail "the replay did not write the program"
}

# SQLite in WAL mode, synchronous=FULL, 300 one-row transactions, attached
# with -p while the database, its WAL and its shared-memory index are open
# (and mapped).  The sqlite3 shell reads its statements from a FIFO, so the
# test decides when the load starts.
test_sqlite_wal_attached()
{
	need_bpf
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (make deps)"
	local pid rec i
	mkfifo in
	sqlite3 t.db <in >sql.out 2>&1 &
	pid=$!
	exec 7>in
	echo "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;
		CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); INSERT INTO t (v) VALUES ('x');" >&7
	sleep 0.3
	"$IOTRACE" record -p "$pid" -o s.iot 2>rec.err 7>&- &
	rec=$!
	sleep 1.5
	for i in $(seq 300); do
		echo "BEGIN; INSERT INTO t (v) VALUES (hex(randomblob(50))); COMMIT;"
	done >&7
	echo "SELECT count(*) FROM t;" >&7
	exec 7>&-
	wait "$pid" || fail "sqlite3 exited $?: $(cat sql.out)"
	wait "$rec" || fail "record exited $?: $(tail -3 rec.err)"
	eq "rows" "$(tail -1 sql.out)" 301
	"$IOTRACE" info s.iot >info.json
	echo "note: captured: $(jq -c '{events, lost_events, pwrite64: .calls.pwrite64,
		fdatasync: .calls.fdatasync, fcntl: .calls.fcntl}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "WAL writes" "$(jq '.calls.pwrite64 // 0' info.json)" 300
	ge "syncs" "$(jq '.calls.fdatasync // 0' info.json)" 50
	"$IOTRACE" analyze s.iot --infer-causality -o s.jsonl || fail "analyze"
	replay_clean sqlite s.jsonl afap
	replay_clean sqlite s.jsonl natural
	# each transaction locks and unlocks: answered as recorded, and said so
	ge "record locks emulated" "$(jq '.reasons.record_lock.emulated // 0' rep-sqlite-afap.json)" 300
}

# RocksDB db_bench, two threads: fillrandom with every write synced, then
# readrandom through a 64 KiB block cache, attached with -p while its WAL,
# MANIFEST and LOG are open, flushes and compactions in background threads.
test_rocksdb_db_bench_attached()
{
	need_bpf
	command -v db_bench >/dev/null || skip "db_bench is not installed (rocksdb-tools; make deps)"
	local pid
	db_bench --benchmarks=fillrandom,readrandom --db="$T/db" --num=20000 --duration=2 \
		--threads=2 --value_size=100 --compression_type=none --write_buffer_size=65536 \
		--sync=1 --cache_size=65536 --statistics=0 >bench.out 2>&1 &
	pid=$!
	sleep 0.7
	"$IOTRACE" record -p "$pid" -o r.iot 2>rec.err || fail "record exited $?: $(tail -3 rec.err)"
	wait "$pid" || fail "db_bench exited $?: $(tail -3 bench.out)"
	grep -q '^readrandom' bench.out || fail "db_bench did not run readrandom: $(tail -3 bench.out)"
	"$IOTRACE" info r.iot >info.json
	echo "note: captured: $(jq -c '{events, lost_events, threads, pread64: .calls.pread64,
		fdatasync: .calls.fdatasync, write: .calls.write}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "threads" "$(jq .threads info.json)" 3
	ge "synced writes" "$(jq '.calls.fdatasync // 0' info.json)" 100
	"$IOTRACE" analyze r.iot --infer-causality -o r.jsonl || fail "analyze"
	# /sys/devices/system/cpu/online is read through an fd the sandbox has
	# not (pseudo_fs, then fd_not_made); write-life hints are behind a
	# pointer (arg_unknown); the final listing of the database directory
	# lists only what the trace named (dir_contents)
	local extra='["fd_not_made", "arg_unknown", "dir_contents"]'
	replay_clean rocksdb r.jsonl afap "$extra"
	replay_clean rocksdb r.jsonl natural "$extra"
}
