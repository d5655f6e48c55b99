# SPDX-License-Identifier: GPL-2.0
# record on a kernel without BPF task storage: the capture built to keep
# thread state in a hash by tid (IOTRACE_BPF_FALLBACK=task-storage forces it
# here) must record what the normal one records, and say it is slower.

# both NAME CMD...: records CMD into NAME.iot with task storage and into
# NAME-h.iot with the tid hash, each run in a fresh d (DIR in CMD is $T/d);
# their stdouts in NAME.out and NAME-h.out.  Checks the warning and that
# neither lost anything.
both()
{
	local name=$1 f
	shift
	rm -rf d && mkdir d && echo hi >d/before && : >d/f
	record -o "$name.iot" -- "$@" >"$name.out"
	rm -rf d && mkdir d && echo hi >d/before && : >d/f
	IOTRACE_BPF_FALLBACK=task-storage "$IOTRACE" record -o "$name-h.iot" -- "$@" \
		>"$name-h.out" 2>"$name-h.err" || fail "record with the tid hash: $(cat "$name-h.err")"
	grep -q "IOTRACE_BPF_FALLBACK=task-storage: keeping thread state in a hash by tid" \
		"$name-h.err" || fail "no warning: $(cat "$name-h.err")"
	grep -q "slower: a traced thread.s switches" "$name-h.err" || fail "warning says not what is slower"
	grep -q "at most 65536 traced threads" "$name-h.err" || fail "warning names no bound"
	for f in "$name.iot" "$name-h.iot"; do
		"$IOTRACE" info "$f" >info.json || fail "info $f"
		eq "$f lost" "$(jq .lost_events info.json)" 0
		eq "$f exits without enter" "$(jq .loss.exit_without_enter info.json)" 0
		eq "$f without state" "$(jq .loss.no_task_storage info.json)" 0
	done
}

# calls TRACE: each thread's calls, as "call=count,..." lines, sorted: the
# tids differ from run to run, what each thread did does not.  futex is left
# out: whether a join or a lock waits depends on timing.
calls()
{
	q "$1" '[.[] | select(.type == "syscall" and .call != "futex")] | group_by(.tid) |
		map([.[].call] | group_by(.) | map("\(.[0])=\(length)") | join(",")) | sort | .[]'
}

# Threads, a fork, dup2 and fds reused: the same calls per thread, and every
# read still names the file it read (fd identities emitted once per open
# file and restored by the reader, as record/fd_identity_restored checks).
test_tidhash_fdreuse()
{
	need_bpf
	both r "$PROGS/fdreuse" "$T/d"
	eq "calls per thread" "$(calls r-h.iot)" "$(calls r.iot)"
	ge "threads" "$(calls r-h.iot | grep -c '')" 3
	ge "tags" "$(grep -c '' d/expect)" 20
	fdreuse_reads_right r-h.iot
}

# A thread execs and takes the leader's tid: its state must follow it into
# the new tid (else the execve returns without its enter, and its seq
# restarts).
test_tidhash_thread_exec()
{
	need_bpf
	both x "$PROGS/threadexec" "$T/d"
	eq "calls per thread" "$(calls x-h.iot)" "$(calls x.iot)"
	local pid worker
	pid=$(kv x-h.out pid)
	worker=$(kv x-h.out worker)
	eq "new image ran" "$(kv x-h.out after)" "$pid"
	eq "exec" "$(q x-h.iot '.[] | select(.type == "exec" and .old_tid == '"$worker"') |
		"\(.pid) \(.tid) \(.seq > 0)"')" "$pid $pid true"
	eq "execve" "$(q x-h.iot '.[] | select(.type == "syscall" and .call == "execve" and
		.ret == 0 and .strs[0].s == "/proc/self/exe") | "\(.tid) \(.flags)"')" "$pid 0"
}

# Threads doing file I/O: the same calls, and the trace analyzes and replays
# with every call's outcome as recorded.
test_tidhash_replays()
{
	need_bpf
	both f "$PROGS/fileio" "$T/d" 3
	eq "calls per thread" "$(calls f-h.iot)" "$(calls f.iot)"
	eq "threads" "$(q f-h.iot '[.[] | select(.type == "syscall" and .call == "fsync") | .tid] |
		unique | length')" 3
	"$IOTRACE" analyze f-h.iot --infer-causality -o f-h.jsonl || fail "analyze exited $?"
	replay f-h.jsonl root
	eq "failed ($(jq -c .failures "$T/r.json"))" "$(jq .failed "$T/r.json")" 0
	eq "events" "$(jq .events "$T/r.json")" "$(($(wc -l <f-h.jsonl) - 1))"
	both p "$PROGS/forker" "$T/d"
	eq "forker calls per thread" "$(calls p-h.iot)" "$(calls p.iot)"
	"$IOTRACE" analyze p-h.iot --infer-causality -o p-h.jsonl || fail "analyze exited $?"
	replay p-h.jsonl root2
	eq "forker failed ($(jq -c .failures "$T/r.json"))" "$(jq .failed "$T/r.json")" 0
}

# A thread exits and a later thread of the process gets its tid (tidreuse
# sets ns_last_pid): the later one must start afresh, not carry on the dead
# one's state from the hash: its first call is its seq 1 and knows no
# on-CPU time before it (IOT_SCF_NO_CPU, 8).  Without the delete at exit and
# the start-time check the first call was seq 12 with flags 0.
test_tidhash_tid_reuse()
{
	need_bpf
	local m tid
	for m in "" task-storage; do
		rm -rf d && mkdir d && : >d/f
		IOTRACE_BPF_FALLBACK=$m "$IOTRACE" record -o t.iot -- "$PROGS/tidreuse" "$T/d" \
			>out 2>err || fail "record ($m): $(cat err)"
		tid=$(kv out tid)
		ge "tid reused ($m)" "${tid:-0}" 2
		q t.iot '[.[] | select(.tid == '"$tid"')] | sort_by(.ts)' >rec.json
		eq "two threads exited ($m)" "$(jq '[.[] | select(.type == "exit")] | length' rec.json)" 2
		# the second thread's calls: those after the first one's exit
		jq '(map(.type == "exit") | index(true)) as $e | .[$e + 1:] |
			map(select(.type == "syscall"))' rec.json >second.json
		eq "second thread's stats ($m)" \
			"$(jq '[.[] | select(.call == "newfstatat")] | length' second.json)" 3
		eq "its first call ($m)" "$(jq -r '.[0] | "\(.call) \(.seq) \(.flags)"' second.json)" \
			"newfstatat 1 8"
		eq "lost ($m)" "$("$IOTRACE" info t.iot | jq .lost_events)" 0
	done
}

# A fallback the recorder does not know is refused, not ignored.
test_tidhash_unknown_fallback()
{
	expect_exit 1 env IOTRACE_BPF_FALLBACK=tp-btf "$IOTRACE" record -o t.iot -- true
	err_has "iotrace: IOTRACE_BPF_FALLBACK: unknown fallback 'tp-btf' (known: task-storage)"
	[ ! -e t.iot ] || fail "a trace was written"
}
