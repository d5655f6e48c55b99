# SPDX-License-Identifier: GPL-2.0
# iotrace analyze on recorded programs whose causal shape is known: the
# expected orderings are present, and threads that never interacted get none.

# annotate NAME CMD...: record CMD into NAME.iot, analyze into NAME.jsonl
annotate()
{
	local name=$1
	shift
	record -o "$name.iot" -- "$@" >"$name.out" 2>/dev/null
	"$IOTRACE" analyze "$name.iot" --infer-causality -o "$name.jsonl" ||
		fail "analyze $name exited $?"
}

# Token passing across 4 threads: every pwrite of the token file is ordered
# after the one before it, though each was made by another thread.
test_token_ring()
{
	need_bpf
	annotate t "$PROGS/sync" token "$T"
	local ids prev=""
	ids=$(jq -r 'select(.type == "event" and .call == "pwrite64") | "\(.args.offset) \(.id)"' t.jsonl |
		sort -n | cut -d' ' -f2)
	eq "pwrites" "$(echo "$ids" | wc -l)" 12
	for id in $ids; do
		[ -z "$prev" ] || reaches t.jsonl "$prev" "$id" || fail "pwrite $id not after $prev"
		prev=$id
	done
	ge "wakeup edges" "$(head -1 t.jsonl | jq .causality_stats.edges.wakeup)" 9
}

# Barrier: each thread reads the file the next thread wrote before the barrier.
test_barrier()
{
	need_bpf
	annotate b "$PROGS/sync" barrier "$T"
	for k in 0 1 2 3; do
		local n=$(((k + 1) % 4)) w r
		w=$(ev b.jsonl ".call == \"write\" and .args.fd.path == \"$T/b$n\"")
		r=$(ev b.jsonl ".call == \"read\" and .args.fd.path == \"$T/b$n\"")
		[ -n "$w" ] && [ -n "$r" ] || fail "no write/read of b$n"
		reaches b.jsonl "$w" "$r" || fail "read of b$n ($r) not after its write ($w)"
	done
}

# A socketpair between two threads: each read after the write it consumed.
test_sockpair()
{
	need_bpf
	annotate s "$PROGS/sync" sockpair
	local wtid rtid
	wtid=$(kv s.out tid "writer") rtid=$(kv s.out tid "reader")
	wtid=${wtid%0} rtid=${rtid%0}
	for r in $(ev s.jsonl ".tid == $rtid and .call == \"read\" and .ret > 0"); do
		[ "$(jq -r "select(.id == $r) | [.deps[] | .kind] | join(\",\")" s.jsonl)" != "" ] ||
			reaches s.jsonl "$(ev s.jsonl ".tid == $wtid and .call == \"write\"" | head -1)" "$r" ||
			fail "read $r has no cause"
	done
	ge "data edges" "$(head -1 s.jsonl | jq .causality_stats.edges.data)" 1
}

# A pipe read blocked until another thread wrote; a condvar back.
test_pipe_condvar()
{
	need_bpf
	annotate p "$PROGS/ipc" "$T"
	local main w r
	main=$(kv p.out pid)
	w=$(ev p.jsonl ".tid == $main and .call == \"write\" and .args.count == 64")
	r=$(ev p.jsonl ".tid != $main and .call == \"read\" and .ret == 64")
	reaches p.jsonl "$w" "$r" || fail "pipe read $r not after write $w"
	eq "edge kind" "$(jq -r "select(.id == $r) | [.deps[] | select(.id == $w) | .kind] | join(\",\")" p.jsonl)" "data"
	eq "pipe fds" "$(jq -c 'select(.type == "event" and .call == "pipe2") | .ret_fds' p.jsonl)" \
		"[$(kv p.out pipe_r),$(kv p.out pipe_w)]"
}

# fork -> the child's first call; the child's exit -> the wait4 that reaped it.
test_fork_wait()
{
	need_bpf
	annotate f "$PROGS/forker" "$T"
	local parent child first wait
	parent=$(kv f.out parent)
	child=$(jq -r 'select(.type == "event" and .pid != '"$parent"') | .pid' f.jsonl | head -1)
	first=$(ev f.jsonl ".pid == $child" | head -1)
	wait=$(ev f.jsonl ".pid == $parent and .call == \"wait4\" and .ret == $child")
	eq "child's first call" "$(jq -r "select(.id == $first) | [.deps[].kind] | join(\",\")" f.jsonl)" "process"
	eq "wait4 dep" "$(jq -r "select(.id == $wait) | [.deps[] | select(.kind == \"process\") | .id] | length" f.jsonl)" 1
	reaches f.jsonl "$(ev f.jsonl ".pid == $child and .call == \"write\"")" "$wait" ||
		fail "wait4 not after the child's write"
}

# Two threads with their own files: no edge between them, none added by
# timing alone; only the main thread's joins depend on them.
test_no_false_edges()
{
	need_bpf
	annotate a "$PROGS/sync" apart "$T"
	local t0 t1
	t0=$(kv a.out tid "k=0") t1=$(kv a.out tid "k=1")
	eq "cross deps" "$(jq -s 'map(select(.type == "event")) | (map({key: (.id | tostring), value: .tid}) | from_entries) as $tid
		| [.[] | select(.tid == '"$t0"' or .tid == '"$t1"') | .tid as $me | .deps[]
		   | select($tid[.id | tostring] == ('"$t0"' + '"$t1"' - $me))] | length' a.jsonl)" 0
}

# Without --infer-causality: the same events, no deps.
test_without_inference()
{
	need_bpf
	record -o t.iot -- "$PROGS/sync" token "$T" >/dev/null 2>&1
	"$IOTRACE" analyze t.iot -o plain.jsonl || fail "analyze"
	"$IOTRACE" analyze t.iot --infer-causality -o inferred.jsonl || fail "analyze"
	eq "events" "$(grep -c '"type":"event"' plain.jsonl)" "$(grep -c '"type":"event"' inferred.jsonl)"
	eq "deps" "$(jq -s '[.[] | select(.type == "event") | .deps | length] | add' plain.jsonl)" 0
}

# --rules switches families off: with only "process", no wakeup edges.
test_rules()
{
	need_bpf
	record -o t.iot -- "$PROGS/sync" token "$T" >/dev/null 2>&1
	"$IOTRACE" analyze t.iot --infer-causality --rules process -o p.jsonl || fail "analyze"
	eq "kinds" "$(jq -rs '[.[] | select(.type == "event") | .deps[].kind] | unique | join(",")' p.jsonl)" "process"
	expect_exit 2 "$IOTRACE" analyze t.iot --infer-causality --rules bogus
	err_has "iotrace: "
}

# The header: version, threads, processes, files with sizes, loss.
test_header()
{
	need_bpf
	mkdir d
	echo hello >d/pre
	annotate h sh -c "cat $T/d/pre >/dev/null; echo x >$T/d/new"
	head -1 h.jsonl >hdr.json
	eq "type" "$(jq -r .type hdr.json)" header
	eq "version" "$(jq .version hdr.json)" 1
	eq "lost" "$(jq .lost_events hdr.json)" 0
	eq "pre-existing file" "$(jq -c '.files[] | select(.path == "'"$T/d/pre"'") | [.type, .size]' hdr.json)" '["file",6]'
	eq "created file not initial" "$(jq '[.files[] | select(.path == "'"$T/d/new"'")] | length' hdr.json)" 0
	eq "its directory is" "$(jq -c '[.files[] | select(.path == "'"$T/d"'") | .type]' hdr.json)" '["dir"]'
	ge "ancestors too" "$(jq '[.files[] | select(.path == "/tmp")] | length' hdr.json)" 1
	ge "threads" "$(jq '.threads | length' hdr.json)" 2
	# events: named args, ns since start, in enter order
	eq "sorted" "$(jq -s '[.[] | select(.type == "event") | .ts] | . == sort' h.jsonl)" true
	eq "named" "$(jq -r 'select(.type == "event" and .call == "openat") | .args | keys | join(",")' h.jsonl | sort -u | head -1)" "dirfd,flags,mode,pathname"
}

# Bad input: not a trace, truncated trace.
test_bad_input()
{
	need_bpf
	echo '{"type":"header"}' >j.json
	expect_exit 1 "$IOTRACE" analyze j.json
	err_has "iotrace: j.json: not an iotrace trace"
	# enough calls for several 1 MiB blocks, then cut in the last one
	record -o t.iot -- sh -c 'i=0; while [ $i -lt 4000 ]; do cat /dev/null; i=$((i+1)); done' \
		>/dev/null 2>&1
	head -c $(($(stat -c %s t.iot) - 100)) t.iot >cut.iot
	expect_exit 1 "$IOTRACE" analyze cut.iot -o cut.jsonl
	err_has "iotrace: cut.iot: truncated"
	expect_exit 1 "$IOTRACE" analyze t.iot -o /proc/no/such/out.jsonl
	err_has "iotrace: analyze: cannot write '/proc/no/such/out.jsonl'"
	head -c 32 t.iot >empty.iot		# the file header alone: no records
	expect_exit 1 "$IOTRACE" analyze empty.iot
	err_has "iotrace: empty.iot: empty trace"
	printf 'IOTRACE\0\143\0\0\0' >v99.iot
	head -c 20 /dev/zero >>v99.iot
	expect_exit 1 "$IOTRACE" analyze v99.iot
	err_has "version 99"
	ge "events kept" "$(grep -c '"type":"event"' cut.jsonl)" 1
}

# --summary: per-call counts and percentiles, text and JSON.
test_summary()
{
	need_bpf
	record -o t.iot -- "$PROGS/sync" token "$T" >/dev/null 2>&1
	"$IOTRACE" analyze t.iot --summary >s.txt || fail "summary"
	grep -q pwrite64 s.txt || fail "no pwrite64 in: $(cat s.txt)"
	"$IOTRACE" analyze t.iot --summary --json --infer-causality >s.json || fail "summary --json"
	eq "pwrite64 count" "$(jq '.. | objects | select(has("pwrite64")) | .pwrite64 | if type == "object" then .count else . end' s.json | head -1)" 12
}

# export --format chrome: valid Trace Event JSON, a slice per call, a named
# track per thread, and a pair of flow events per edge.
test_export_chrome()
{
	need_bpf
	annotate t "$PROGS/sync" token "$T"
	"$IOTRACE" export t.iot --format chrome -o t.json || fail "export exited $?"
	eq "slices" "$(jq '[.traceEvents[] | select(.ph == "X")] | length' t.json)" \
		"$(grep -c '"type":"event"' t.jsonl)"
	eq "tracks" "$(jq '[.traceEvents[] | select(.name == "thread_name")] | length' t.json)" \
		"$(head -1 t.jsonl | jq '.threads | length')"
	eq "flows" "$(jq '[.traceEvents[] | select(.ph == "s")] | length' t.json)" \
		"$(jq -s '[.[] | select(.type == "event") | .deps | length] | add' t.jsonl)"
	eq "flow ends" "$(jq '[.traceEvents[] | select(.ph == "f")] | length' t.json)" \
		"$(jq '[.traceEvents[] | select(.ph == "s")] | length' t.json)"
	jq -e '[.traceEvents[] | select(.ph == "X" and (.name | startswith("pwrite64 '"$T"'/token")))] | length == 12' t.json >/dev/null ||
		fail "pwrite slices not named with their path"
	expect_exit 2 "$IOTRACE" export t.iot --format svg
	err_has "unknown format"
}

# mmap I/O between calls rides on the next call: the shared mapping's pages
# (read through fault-around, page 3 written) come before msync.
test_mmap_pages()
{
	need_bpf
	annotate m "$PROGS/ipc" "$T"
	local ino
	ino=$(jq -r 'select(.type == "event" and .call == "mmap" and .args.fd.path == "'"$T/mapped"'") | .args.fd.ino' m.jsonl)
	[ -n "$ino" ] || fail "no mmap of $T/mapped"
	ge "page 3 before msync" "$(jq -s '[.[] | select(.type == "event" and .call == "msync")
		| .pages[]? | select(.ino == '"$ino"' and .index <= 3 and .index + .n > 3)] | length' m.jsonl)" 1
	# pages a write() dirtied inside the call are not mmap I/O
	eq "no pages on writes" "$(jq -s '[.[] | select(.type == "event" and .call == "write" and has("pages") and (.pages[] | .ino == '"$ino"'))] | length' m.jsonl)" 0
}

# A program sharing one CPU with a busy task outside the trace: the time that
# task kept it off the CPU is on its calls (outside_ns), and a replay in
# natural timing, which does not run the task, waits it out instead; think
# order's wall gaps have it already.  The recorder and kernel threads, which
# take the CPU too, are not counted (analyze's unit tests).
test_outside_preemption()
{
	need_bpf
	taskset -c 0 timeout 30 sh -c 'while :; do :; done' &
	local hog=$! sum span
	annotate p taskset -c 0 dd if=/dev/zero of=/dev/null bs=1 count=100000
	kill "$hog"
	wait "$hog" 2>/dev/null
	sum=$(jq -s '[.[] | select(.type == "event") | .outside_ns // 0] | add' p.jsonl)
	span=$(jq -s '[.[] | select(.type == "event")] | (map(.ts + .dur) | max) - (map(.ts) | min)' p.jsonl)
	# two busy tasks on one CPU: each has about half of it
	ge "outside_ns x 10 against the span ($sum of $span)" $((sum * 10)) "$span"
	replay p.jsonl root --natural
	ge "replay's outside_ns x 2" $(($(jq '[.threads[].outside_ns] | add' "$T/r.json") * 2)) "$sum"
	ge "natural wall" "$(jq .wall_ns "$T/r.json")" "$sum"
	replay p.jsonl root --natural --order think
	eq "think's outside_ns" "$(jq '[.threads[].outside_ns] | add' "$T/r.json")" 0
}
