# SPDX-License-Identifier: GPL-2.0
# iotrace record, checked against what the traced programs themselves report
# (stat results, fds, pids): capture must agree with the kernel's own answers.

# Per-thread file I/O: file identity, position before the call, size at open.
test_file_enrichment()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/fileio" "$T/d" 3 >out
	for k in 0 1 2; do
		local tid fd dev ino path
		tid=$(kv out tid "thread=$k ")
		fd=$(kv out fd "thread=$k ")
		dev=$(kv out dev "thread=$k ")
		ino=$(kv out ino "thread=$k ")
		path=$(kv out path "thread=$k ")
		q t.iot "[.[] | select(.tid == $tid and .type == \"syscall\")]" >calls.json
		# the open: its returned fd slot has the identity stat() later gave
		eq "open ret" "$(jq -r '.[] | select(.call == "openat" and .strs[0].s == "'"$path"'") | .ret' calls.json)" "$fd"
		eq "open ino" "$(jq -r '.[] | select(.call == "openat" and .ret == '"$fd"') | .fds[] | select(.which == 6) | "\(.dev) \(.ino) \(.size)"' calls.json)" "$dev $ino 0"
		# every call on the fd names the file
		eq "fd identity" "$(jq -r '[.[] | select(.fds[0].fd == '"$fd"' and .fds[0].which == 0) | "\(.fds[0].dev)/\(.fds[0].ino)/\(.fds[0].path)"] | unique | join(",")' calls.json)" "$dev/$ino/$path"
		# positions before the call: write at 100, read at 150 (after the lseek)
		eq "write pos" "$(jq -r '.[] | select(.call == "write" and .fds[0].fd == '"$fd"') | "\(.fds[0].pos) \(.ret)"' calls.json)" "100 50"
		eq "read pos" "$(jq -r '.[] | select(.call == "read" and .fds[0].fd == '"$fd"') | "\(.fds[0].pos) \(.ret)"' calls.json)" "150 1000"
		eq "pread" "$(jq -r '.[] | select(.call == "pread64" and .fds[0].fd == '"$fd"') | "\(.args[2]) \(.args[3]) \(.ret) \(.fds[0].size)"' calls.json)" "512 8192 512 12288"
		eq "pwrite" "$(jq -r '.[] | select(.call == "pwrite64" and .fds[0].fd == '"$fd"') | "\(.args[3]) \(.ret)"' calls.json)" "8192 4096"
		eq "fsync" "$(jq -r '[.[] | select(.call == "fsync" and .fds[0].fd == '"$fd"')] | length' calls.json)" 1
		eq "close" "$(jq -r '[.[] | select(.call == "close" and .fds[0].fd == '"$fd"')] | length' calls.json)" 1
		# each call knows its time: enter ts, a duration, on-CPU time before it
		ge "durations" "$(jq '[.[] | select(.dur > 0)] | length' calls.json)" 7
	done
}

# An fd's identity is emitted once per open file and restored by the reader
# (format 3): through dup2, close and reopen at the same number, files whose
# struct file and inode the kernel may hand out again, a fork and a thread
# whose file another thread swapped, every read names the file it read.
test_fd_identity_restored()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/fdreuse" "$T/d"
	ge "tags" "$(grep -c '' d/expect)" 20
	fdreuse_reads_right t.iot
}

# Without PIDFD_THREAD (Linux 6.9) the recorder cannot give a target's
# threads their task storage, and the programs fall back to the traced-process
# hash: every thread is still recorded, with a warning that says what is slower.
test_thread_pidfd_fallback()
{
	need_bpf
	mkdir d
	IOTRACE_NO_THREAD_PIDFD=1 "$IOTRACE" record -o t.iot -- "$PROGS/fileio" "$T/d" 3 >out 2>err ||
		fail "record failed: $(cat err)"
	grep -q "kernel lacks PIDFD_THREAD" err || fail "no warning: $(cat err)"
	local k tid
	for k in 0 1 2; do
		tid=$(kv out tid "thread=$k ")
		eq "thread $k fsync" "$(q t.iot '[.[] | select(.tid == '"$tid"' and .call == "fsync")] | length')" 1
	done
	eq "lost" "$("$IOTRACE" info t.iot | jq .lost_events)" 0
	eq "no enter" "$("$IOTRACE" info t.iot | jq .loss.exit_without_enter)" 0
}

# A CPU batches records and sends them to the ring when it switches or fills:
# calls made just before a long stretch of computing are still in the batch
# when --duration ends the recording, and must be read out, not dropped.
test_batched_records_drained()
{
	need_bpf
	record --duration 0.5 -o t.iot -- "$PROGS/spin" "$T/marker" 2 >out
	eq "spin ran" "$(cat out)" ready
	eq "marker open" "$(q t.iot '[.[] | select(.call == "openat" and .strs[0].s == "'"$T/marker"'")] | length')" 1
	eq "marker close" "$(q t.iot '[.[] | select(.call == "close" and .ret == 0)] | length > 0')" true
	eq "lost" "$("$IOTRACE" info t.iot | jq .lost_events)" 0
}

# The compute floor is measured at start by a calibration child whose records
# stay out of the trace: one process, no call of another pid, no loss, and
# the floor reaches analyze's header, which takes it off on-CPU compute; so
# does the floor after a switch, from the child's sleeps.
test_compute_floor()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/fileio" "$T/d" 1 >out
	"$IOTRACE" info t.iot >info.json
	local floor
	floor=$(jq .compute_floor_ns info.json)
	ge "floor" "$floor" 1
	[ "$floor" -lt 100000 ] || fail "floor $floor ns is not a syscall's cost"
	eq "processes" "$(jq .processes info.json)" 1
	eq "lost" "$(jq .lost_events info.json)" 0
	# -- CMD: the only call that can be in progress at the attach is the child's wait
	[ "$(jq .loss.exit_without_enter info.json)" -le 1 ] || fail "calls in progress: $(jq .loss info.json)"
	eq "pids" "$(q t.iot '[.[] | select(.type == "syscall") | .pid] | unique | length')" 1
	# and after a switch: its own sleeps' preads, the child's pid nowhere either
	local after
	after=$(jq .compute_floor_switch_ns info.json)
	ge "floor after a switch" "$after" 1
	[ "$after" -lt 1000000 ] || fail "floor after a switch $after ns is not a return's cost"
	eq "no nanosleep in the trace" \
		"$(q t.iot '[.[] | select(.type == "syscall" and .call == "nanosleep")] | length')" 0
	"$IOTRACE" analyze t.iot -o t.jsonl || fail "analyze exited $?"
	eq "header floor" "$(head -1 t.jsonl | jq .compute_floor_ns)" "$floor"
	eq "header floor after a switch" "$(head -1 t.jsonl | jq .compute_floor_switch_ns)" "$after"
}

# Path strings: both names of rename and symlink, readlink's result.
test_path_strings()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/fileio" "$T/d" 1 >out
	q t.iot '.[] | select(.type == "syscall" and (.call | test("^(mkdir|symlink|rename|readlink|unlink|rmdir)$"))) | "\(.call) \([.strs[] | .s] | join(" "))"' >names
	cat >want <<-EOF
	mkdir $T/d/sub
	symlink sub $T/d/link
	rename $T/d/sub $T/d/sub2
	readlink $T/d/link sub
	unlink $T/d/link
	rmdir $T/d/sub2
	EOF
	diff -u want names || fail "path strings differ"
	# the failed access() carries its errno
	eq "access" "$(q t.iot '.[] | select(.call == "access" and .strs[0].s == "'"$T/d/sub"'") | .ret')" -2
}

# Children are followed: fork, the child's calls, its exit code, exec, wait4.
test_fork_follow()
{
	need_bpf
	record -o t.iot -- "$PROGS/forker" "$T" >out
	local parent child
	parent=$(kv out parent)
	child=$(q t.iot '.[] | select(.type == "fork" and .thread == false) | .child_pid' | head -1)
	ge "child pid" "$child" 1
	eq "child open" "$(q t.iot '.[] | select(.pid == '"$child"' and .call == "openat") | .strs[0].s')" "$T/child.out"
	eq "child write" "$(q t.iot '.[] | select(.pid == '"$child"' and .call == "write") | .ret')" 6
	eq "child exit" "$(q t.iot '.[] | select(.pid == '"$child"' and .type == "exit") | "\(.code) \(.signal) \(.group_dead)"')" "7 0 true"
	eq "reaped" "$(q t.iot '.[] | select(.pid == '"$parent"' and .call == "wait4" and .ret == '"$child"') | .ret')" "$child"
	# the second child execs true: the exec is recorded, and so are true's calls
	eq "exec" "$(q t.iot '[.[] | select(.type == "exec" and .comm == "true")] | length')" 1
	eq "execve" "$(q t.iot '[.[] | select(.call == "execve" and .ret == 0 and (.strs[0].s | test("true$")))] | length')" 1
	eq "processes" "$("$IOTRACE" info t.iot | jq .processes)" 3
	eq "lost" "$("$IOTRACE" info t.iot | jq '.lost_events + .seq_gaps')" 0
}

# Attach to a running process: its fd opened before the attach has a path,
# position and identity from the snapshot, and its later calls are recorded.
test_attach_pid()
{
	need_bpf
	"$PROGS/attach_target" "$T/f" 4 >out &
	local pid=$! fd ino dev
	wait_for out ready
	fd=$(kv out fd) ino=$(kv out ino) dev=$(kv out dev)
	record -p "$pid" -d 1 -o t.iot 2>err
	kill "$pid" 2>/dev/null
	eq "snapshot" "$(q t.iot '.[] | select(.type == "fdsnap" and .fd.fd == '"$fd"') | "\(.fd.path) \(.fd.pos) \(.fd.ino) \(.fd.dev) \(.fd.size)"')" "$T/f 4096 $ino $dev 10000"
	ge "preads" "$(q t.iot '[.[] | select(.call == "pread64" and .fds[0].fd == '"$fd"' and .fds[0].ino == '"$ino"' and .ret == 512)] | length')" 20
	eq "target" "$("$IOTRACE" info t.iot | jq -c .targets)" "[$pid]"
	eq "threads" "$("$IOTRACE" info t.iot | jq .threads)" 1
	grep -q "events in .*, 0 lost" err || fail "summary: $(cat err)"
}

# Attach to a process whose threads were busy in syscalls before the attach:
# each CPU has them remembered as untraced and they have no task storage yet.
# Every thread must be recorded from the attach on, so neither the verdict
# nor the storage that marks a traced thread may be missing or stale.
test_attach_busy_threads()
{
	need_bpf
	head -c 1048576 /dev/urandom >data
	"$PROGS/preads" "$T/data" 2 20000000 &
	local pid=$! i tid n
	for ((i = 0; i < 100; i++)); do
		[ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge 3 ] && break
		sleep 0.05
	done
	sleep 0.2 # the workers' calls have gone through every CPU's verdict
	record -p "$pid" -d 0.5 -o t.iot 2>err
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# the attach snapshot names the threads; the text dump counts fast
	"$IOTRACE" dump t.iot >dump
	local tids
	tids=$(awk '$4 == "#" && $5 == "thread" && $7 == "comm" { print $6 }' dump | sort -u)
	eq "threads" "$(echo "$tids" | wc -w)" 3
	for tid in $tids; do
		[ "$tid" = "$pid" ] && continue
		n=$(awk -v t="$tid" '$2 == t && $4 ~ /^pread64\(/' dump | wc -l)
		ge "preads of thread $tid" "$n" 100
	done
}

# A master with an existing worker and a worker forked after the attach are
# all followed; with --no-children only the master is.
test_attach_descendants()
{
	need_bpf
	sh -c 'sh -c "while :; do cat /dev/null; sleep 0.05; done" & while :; do sleep 0.05; done' &
	local master=$!
	sleep 0.3
	record -p "$master" -d 1 -o all.iot
	record -p "$master" -d 1 --no-children -o master.iot
	pkill -P "$master"; kill "$master"
	# the existing worker and the sleeps and cats forked after the attach
	ge "processes" "$("$IOTRACE" info all.iot | jq .processes)" 4
	ge "cat opens" "$(q all.iot '[.[] | select(.call == "openat" and .strs[0].s == "/dev/null")] | length')" 5
	eq "only the master" "$(q master.iot '[.[] | select(.type == "syscall") | .pid] | unique | join(",")')" "$master"
}

# IPC and mappings: pipe, socketpair, TCP with addresses, eventfd, and the
# page faults and dirtied page of a shared file mapping.
test_ipc_and_mmap()
{
	need_bpf
	record -o t.iot -- "$PROGS/ipc" "$T" >out
	local port ino
	port=$(kv out tcp_port)
	eq "pipe2" "$(q t.iot '.[] | select(.call == "pipe2") | [.fds[] | "\(.which):\(.fd):\(.type)"] | join(" ")')" "7:$(kv out pipe_r):3 8:$(kv out pipe_w):3"
	eq "socketpair" "$(q t.iot '.[] | select(.call == "socketpair") | [.fds[] | .fd] | join(" ")')" "$(kv out sp0) $(kv out sp1)"
	eq "connect" "$(q t.iot '.[] | select(.call == "connect") | "\(.sock.family) \(.sock.rport) \(.ret)"')" "2 $port 0"
	eq "accept" "$(q t.iot '.[] | select(.call == "accept" or .call == "accept4") | .sock.lport')" "$port"
	eq "eventfd" "$(q t.iot '.[] | select(.call == "eventfd2") | .ret')" "$(kv out efd)"
	# the reader thread blocked in read() until main wrote: a wakeup by main
	ino=$(q t.iot '.[] | select(.call == "openat" and .strs[0].s == "'"$T/mapped"'") | .fds[0].ino')
	eq "mmap" "$(q t.iot '.[] | select(.call == "mmap" and .fds[0].ino == '"$ino"') | "\(.args[1]) \(.args[5])"')" "32768 0"
	ge "pages seen" "$(q t.iot '[.[] | select(.type == "page" and .ino == '"$ino"' and (.kind == "fault" or .kind == "map_pages"))] | length')" 1
	eq "page 3 written" "$(q t.iot '[.[] | select(.type == "page" and .ino == '"$ino"' and .kind == "fault" and .index <= 3 and .index + .npages > 3)] | length')" 1
	eq "msync" "$(q t.iot '[.[] | select(.call == "msync" and .ret == 0)] | length')" 1
}

# --calls file: the calls of the families left out are not in the trace (the
# kernel filter drops them), nor page records; the trace says what is missing,
# analyze drops the rules that would need it and replay says so.
test_calls_subset()
{
	need_bpf
	record --calls file -o t.iot -- "$PROGS/ipc" "$T" >out
	q t.iot '[.[] | select(.type == "syscall") | .call] | unique | join(" ")' >calls
	grep -qw openat calls || fail "no openat in --calls file: $(cat calls)"
	grep -qw clone3 calls || grep -qw clone calls || fail "no thread creation (proc is always on)"
	local c
	for c in pipe2 socketpair connect accept accept4 eventfd2 futex mmap msync socket; do
		grep -qw "$c" calls && fail "$c recorded with --calls file"
	done
	eq "pages" "$(q t.iot '[.[] | select(.type == "page")] | length')" 0
	"$IOTRACE" info t.iot >info.json
	eq "families" "$(jq -r .call_families info.json)" "file,proc"
	eq "left out" "$(jq -r .call_families_left_out info.json)" "sync,net,ipc,mem"
	"$IOTRACE" analyze --infer-causality t.iot -o t.jsonl 2>err || fail "analyze failed"
	grep -q "rule data dropped: it needs the net,ipc,mem calls" err || fail "no data warning: $(cat err)"
	eq "rules" "$(head -1 t.jsonl | jq -r '.causality_stats.rules | join(",")')" "process,name"
	eq "header" "$(head -1 t.jsonl | jq -r .calls_left_out)" "sync,net,ipc,mem"
	mkdir root
	"$IOTRACE" replay t.jsonl --root "$T/root" --afap >/dev/null 2>err || true
	grep -q "recorded without the sync,net,ipc,mem calls" err || fail "replay did not say: $(cat err)"
	# and the default still records everything, with no such record
	record -o all.iot -- "$PROGS/ipc" "$T" >out
	eq "all" "$("$IOTRACE" info all.iot | jq -r .call_families_left_out)" ""
	ge "pipe2 by default" "$(q all.iot '[.[] | select(.call == "pipe2")] | length')" 1
}

# The pipe reader is woken by the writer: wakeup records name the waker.
test_wakeups()
{
	need_bpf
	record -o t.iot -- "$PROGS/ipc" "$T" >out
	local main reader
	main=$(kv out pid)
	reader=$(q t.iot '.[] | select(.type == "fork" and .thread) | .child_tid' | head -1)
	ge "reader woken by main" "$(q t.iot '[.[] | select(.type == "wakeup" and .tid == '"$reader"' and .waker_tid == '"$main"')] | length')" 1
	ge "switches" "$(q t.iot '[.[] | select(.type == "switch" and .tid == '"$reader"')] | length')" 1
}

# stdin, stdout and stderr of the command pass through untouched.
test_stdio_passthrough()
{
	need_bpf
	printf 'line1\nline2\n' | "$IOTRACE" record -o t.iot -- sh -c 'cat; echo to-err >&2' >out 2>err ||
		fail "record failed"
	eq "stdout" "$(cat out)" "$(printf 'line1\nline2')"
	grep -qx to-err err || fail "stderr lost: $(cat err)"
	grep -q '^iotrace: ' err || fail "no summary on stderr"
}

# A multi-threaded workload at speed: nothing lost, no seq gaps.
test_no_loss()
{
	need_bpf
	record -o t.iot -- "$PROGS/demo_workload" "$T" >/dev/null
	"$IOTRACE" info t.iot >info.json
	eq "lost" "$(jq .lost_events info.json)" 0
	eq "gaps" "$(jq .seq_gaps info.json)" 0
	eq "complete" "$(jq .complete info.json)" true
	ge "threads" "$(jq .threads info.json)" 4
	ge "records" "$(jq .kernel_records info.json)" 1000
}

# While it keeps up, the recorder drains at SCHED_IDLE and its command runs
# at the policy it was started with; IOTRACE_RECORD_NO_IDLE=1 keeps the
# recorder's.  With both CPUs taken by busy loops an idle thread is hardly
# run: the watcher must lift the drain back before the 64 MiB ring fills
# with the ~120 MB of records 2M calls make.  The trace names the watcher
# (a HELPER record: the recorder's pid, the watcher's tid), whose
# preemptions analyze does not count as outside the trace.
test_recorder_pace()
{
	need_bpf
	local show='sleep 1; chrt -p $PPID | head -1; chrt -p $$ | head -1; echo $PPID; ls /proc/$PPID/task' hog
	local helper
	record -q -o t.iot -- sh -c "$show" >out
	eq "the recorder, keeping up" "$(sed -n '1s/.*: //p' out)" SCHED_IDLE
	eq "its command" "$(sed -n '2s/.*: //p' out)" SCHED_OTHER
	helper=$("$IOTRACE" dump --json t.iot | jq -r 'select(.type == "helper") | "\(.pid) \(.tid)"')
	eq "HELPER records" "$(echo "$helper" | grep -c .)" 1
	eq "the HELPER's pid" "${helper% *}" "$(sed -n 3p out)"
	sed -n '4,$p' out | grep -qx "${helper#* }" || fail "HELPER's tid ${helper#* } is not the recorder's: $(sed -n '4,$p' out | tr '\n' ' ')"
	[ "${helper#* }" != "${helper% *}" ] || fail "HELPER names the recorder's main thread"
	IOTRACE_RECORD_NO_IDLE=1 record -q -o t2.iot -- sh -c "$show" >out
	eq "the recorder, IOTRACE_RECORD_NO_IDLE=1" "$(sed -n '1s/.*: //p' out)" SCHED_OTHER
	eq "HELPER records, no watcher" "$("$IOTRACE" dump --json t2.iot | jq -r 'select(.type == "helper")' | grep -c .)" 0
	for hog in 1 2; do
		timeout 60 sh -c 'while :; do :; done' &
	done
	record -q -o t3.iot -- dd if=/dev/zero of=/dev/null bs=1 count=1000000 status=none
	kill $(jobs -p) 2>/dev/null
	wait
	"$IOTRACE" info t3.iot >info.json
	eq "lost, CPUs busy" "$(jq .lost_events info.json)" 0
	ge "events" "$(jq .events info.json)" 2000000
}

# -v says how long the programs took to load and attach: the delay the
# recorder puts before its command.
test_verbose_load_time()
{
	need_bpf
	"$IOTRACE" -v record -o t.iot -- true 2>"$T/err" || fail "record -v exited $?"
	grep -Eq '^iotrace: debug: BPF programs loaded and attached in [0-9]+\.[0-9]{3} s$' "$T/err" ||
		{ cat "$T/err" >&2; fail "no load time in -v's output"; }
}

# A thread other than the main one makes calls, then execs and so takes the
# process's pid as its tid: its calls before are under its own tid, the
# execve and the new image's calls under the pid, with their data intact.
test_thread_exec()
{
	need_bpf
	mkdir d
	echo hi >d/before
	record -o t.iot -- "$PROGS/threadexec" "$T/d" >out
	local pid worker ino
	pid=$(kv out pid)
	worker=$(kv out worker)
	eq "new image ran" "$(kv out after)" "$pid"
	ino=$(stat -c %i d/before)
	q t.iot '[.[] | select(.type == "syscall")]' >calls.json
	eq "opens before" "$(jq '[.[] | select(.tid == '"$worker"' and .call == "openat" and .ret >= 0 and .fds[0].ino == '"$ino"')] | length' calls.json)" 100
	eq "reads before" "$(jq '[.[] | select(.tid == '"$worker"' and .call == "read" and .ret == 3 and .fds[0].ino == '"$ino"' and .fds[0].pos == 0)] | length' calls.json)" 100
	eq "exec" "$(q t.iot '.[] | select(.type == "exec" and .old_tid == '"$worker"') | "\(.pid) \(.tid)"')" "$pid $pid"
	eq "execve" "$(jq -r '.[] | select(.call == "execve" and .ret == 0 and .strs[0].s == "/proc/self/exe") | .tid' calls.json)" "$pid"
	eq "open after" "$(jq -r '.[] | select(.call == "openat" and .strs[0].s == "'"$T/d/after"'") | "\(.tid) \(.ret >= 0)"' calls.json)" "$pid true"
	eq "lost" "$("$IOTRACE" info t.iot | jq .lost_events)" 0
}
