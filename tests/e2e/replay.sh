# SPDX-License-Identifier: GPL-2.0
# iotrace replay: recorded programs replayed in a sandbox with the outcome of
# every call as in the trace; crafted traces that try to leave the sandbox or
# are not traces at all.

# annotated NAME CMD...: record CMD into NAME.iot, analyze into NAME.jsonl.
annotated()
{
	local name=$1
	shift
	record -o "$name.iot" -- "$@" >"$name.out"
	"$IOTRACE" analyze "$name.iot" --infer-causality -o "$name.jsonl" ||
		fail "analyze $name.iot exited $?"
}

# r FILTER: jq over the last report.
r()
{
	jq -r "$1" "$T/r.json"
}

# header10 N: the header of a crafted trace of N calls of one thread, pid and
# tid 10, with no files.
header10()
{
	echo '{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":'"$1"'}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[],"events":'"$1"'}'
}

# no_failures: every call had the outcome (success, which errno) it had in
# the trace.  Byte counts may differ where the trace has no edge for a read
# that hit EOF before another thread's write (see docs/replay.md).
no_failures()
{
	eq "failed ($(jq -c .failures "$T/r.json"))" "$(r .failed)" 0
}

# no_short: and every byte count too.
no_short()
{
	eq "short ($(jq -c .short_calls "$T/r.json"))" "$(r .short)" 0
}

test_fileio_afap()
{
	need_bpf
	mkdir d
	annotated t "$PROGS/fileio" "$T/d" 3
	replay t.jsonl root
	no_failures
	no_short
	eq "events" "$(r .events)" "$(($(wc -l <t.jsonl) - 1))"
	eq "timing" "$(r .timing)" afap
	ge "issued" "$(r .issued)" 40
	for k in wall_ns trace_wall_ns events failed short skipped threads calls concurrency; do
		eq "report has $k" "$(r "has(\"$k\")")" true
	done
	eq "no lag in afap" "$(r 'has("lag_ns")')" false
	eq "threads" "$(r '.threads | length')" 4
	# --afap may keep times in TSC ticks: all of them reach the report in ns,
	# so no thread is busy or waiting, and no call lasts, longer than the replay
	eq "thread times within wall" \
		"$(r '.wall_ns as $w | [.threads[] | .busy_ns + .wait_ns <= $w + 2] | all')" true
	eq "call times within wall" "$(r '.wall_ns as $w | [.calls[].replay.max <= $w] | all')" true
	# the files the trace made, at their recorded sizes, inside the root
	for k in 0 1 2; do
		eq "file$k" "$(stat -c %s "root$T/d/file$k")" 12288
	done
	# the namespace calls ran and undid themselves: sub2 and link are gone
	[ ! -e "root$T/d/sub2" ] && [ ! -L "root$T/d/link" ] || fail "sub2/link left over"
	# header files are real data, not holes
	local f
	f=$(jq -r '[.files[] | select(.type == "file" and .size > 65536)][0].path' <(head -1 t.jsonl))
	if [ "$f" != null ]; then
		ge "allocated $f" "$(($(stat -c '%b*%B' "root$f")))" "$(stat -c %s "root$f")"
	fi
	err_has_file "$T/replay.err" "iotrace: replayed"
}

# err_has_file FILE TEXT
err_has_file()
{
	grep -qF -- "$2" "$1" || {
		cat "$1" >&2
		fail "$1 lacks '$2'"
	}
}

test_demo_natural()
{
	need_bpf
	mkdir w
	annotated t "$PROGS/demo_workload" "$T/w"
	replay t.jsonl root --natural
	no_failures
	eq "timing" "$(r .timing)" natural
	for k in p50 p99 max; do
		ge "lag_ns.$k" "$(r ".lag_ns.$k")" 0
	done
	# natural pacing spins the recorded compute (on-CPU time, so a loaded
	# machine stretches the wall time but not this)
	ge "replayed compute, tenths of the recorded" \
		"$(jq -n --slurpfile r r.json --slurpfile t <(jq -c 'select(.type == "event") | .compute_ns' t.jsonl) \
			'([$r[0].threads[].compute_ns] | add) * 10 / ($t | add) | floor')" 8
	ge "threads" "$(r '.threads | length')" 5
	eq "thread times" "$(r '[.threads[] | has("busy_ns") and has("wait_ns") and has("compute_ns")] | all')" true
	ge "write p50" "$(r '.calls.write.replay.p50')" 1
	ge "demo.log" "$(stat -c %s "root$T/w/demo.log")" $((40 * 4 * 4096))
	eq "concurrency" "$(r '.concurrency | has("original") and has("replay")')" true
}

test_ipc()
{
	need_bpf
	mkdir i
	annotated t "$PROGS/ipc" "$T/i"
	replay t.jsonl root
	no_failures
	no_short
	eq "mapped" "$(stat -c %s "root$T/i/mapped")" $((8 * 4096))
	eq "mmap replayed" "$(r '.calls.mmap.count // 0 | . > 0')" true
	eq "pipe replayed" "$(r '.calls.pipe2.count // .calls.pipe.count // 0')" 1
	# TCP over loopback, both ends traced: replayed natively
	eq "accept replayed" "$(r '.calls.accept.count')" 1
	eq "recv replayed" "$(r '.calls.recvfrom.count')" 1
	eq "skipped" "$(r .skipped_total)" 0
	replay t.jsonl root --natural
	no_failures
}

# Every order and timing mode runs to the end; causal alone promises no failures.
test_orders_and_speeds()
{
	need_bpf
	mkdir w
	annotated t "$PROGS/demo_workload" "$T/w"
	for o in causal temporal single none think; do
		replay t.jsonl root --order $o
		eq "order" "$(r .order)" $o
		eq "events $o" "$(r .events)" "$(($(wc -l <t.jsonl) - 1))"
	done
	replay t.jsonl root --order causal
	no_failures
	replay t.jsonl root --order temporal --natural
	no_failures
	replay t.jsonl root --order think --natural
	no_failures
	replay t.jsonl root --speed 4
	eq "speed" "$(r .speed)" 4
	eq "speed is natural" "$(r .timing)" natural
	no_failures
}

# A root is reused for its trace (what the last replay made is removed) and
# refused for another; --prepare-only makes the initial state only.
test_root_reuse()
{
	need_bpf
	mkdir d w
	annotated f "$PROGS/fileio" "$T/d" 2
	"$IOTRACE" replay f.jsonl --root root --prepare-only --no-progress 2>err ||
		fail "prepare-only exited $?"
	[ -d "root$T/d" ] || fail "parent dir of created files missing"
	[ ! -e "root$T/d/file0" ] || fail "--prepare-only created a file the trace creates"
	replay f.jsonl root
	no_failures
	replay f.jsonl root
	no_failures
	echo stray >"root$T/d/stray"
	replay f.jsonl root
	[ ! -e "root$T/d/stray" ] || fail "a stray file survived preparation"
	annotated w "$PROGS/demo_workload" "$T/w"
	expect_exit 1 "$IOTRACE" replay w.jsonl --root root
	err_has "iotrace: "
	err_has "different trace"
	mkdir full
	echo x >full/x
	expect_exit 1 "$IOTRACE" replay w.jsonl --root full
	err_has "not empty"
}

# crafted_escape FILE: a trace whose paths try every way out of the root.
crafted_escape()
{
	cat >"$1" <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":9}],"processes":[{"pid":10,"ppid":1,"cwd":"/nowhere"}],"files":[{"path":"/../../..$T/out-hdr","type":"file","size":10},{"path":"/lnk","type":"symlink","target":"$T"},{"path":"/up","type":"symlink","target":"../../../../../../..$T"}],"events":9}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"../../../../..$T/out-1","flags":577,"mode":420},"resolved":{"pathname":"/../../../../..$T/out-1"},"ret":3,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"write","args":{"fd":{"fd":3,"path":"$T/out-1","type":"file"},"buf":1,"count":5},"ret":5,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"$T/out-2","flags":577,"mode":420},"ret":4,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/lnk/out-3","flags":577,"mode":420},"ret":5,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":4,"pid":10,"tid":10,"call":"mkdir","args":{"pathname":"/up/out-4","mode":493},"ret":0,"ts":5000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":5,"pid":10,"tid":10,"call":"symlink","args":{"target":"$T/victim","linkpath":"/pw"},"ret":0,"ts":6000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":6,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/pw","flags":577,"mode":420},"ret":6,"ts":7000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":7,"pid":10,"tid":10,"call":"rename","args":{"oldpath":"/up/out-4","newpath":"/../out-5"},"ret":0,"ts":8000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":8,"pid":10,"tid":10,"call":"unlink","args":{"pathname":"/lnk/.."},"ret":-21,"ts":9000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
}

test_escape_refused()
{
	mkdir box
	echo keep >victim
	crafted_escape t.jsonl
	"$IOTRACE" replay t.jsonl --root box/root --report r.json --no-progress 2>err ||
		fail "replay exited $?: $(cat err)"
	for f in out-hdr out-1 out-2 out-3 out-4 out-5 box/out-5; do
		[ ! -e "$T/$f" ] || fail "$T/$f was created outside the root"
	done
	# a --dev-root holds its device's files as tightly (2049 is 8:1)
	sed '1s|"files":\[|&{"path":"/../..'"$T"'/out-dev","type":"file","size":10,"dev":2049},|' \
		t.jsonl >dev.jsonl
	"$IOTRACE" replay dev.jsonl --root box/droot --dev-root 8:1=box/sys --no-progress 2>err ||
		fail "replay --dev-root exited $?: $(cat err)"
	[ ! -e "$T/out-dev" ] || fail "$T/out-dev was created outside the roots"
	[ -f "box/sys$T/out-dev" ] || fail "box/sys$T/out-dev missing"
	for f in out-hdr out-1 out-2 out-3 out-4 out-5; do
		[ ! -e "$T/$f" ] || fail "$T/$f was created outside the root"
	done
	eq "victim" "$(cat victim)" keep
	# everything landed inside instead
	for f in "$T/out-hdr" "$T/out-2" "$T/out-3" "$T/out-4" "$T/victim" /out-5; do
		[ -e "box/root$f" ] || [ "$f" = "$T/out-4" ] || fail "box/root$f missing"
	done
	[ -d "box/root/out-5" ] || fail "renamed dir not at the root's top"
}

# --dev-root: the files the trace read on another device (cp's libraries, on
# the system disk) are prepared and used under their own root; the data, on
# a tmpfs that stands for the storage being measured, stays in --root.
test_dev_root()
{
	need_bpf
	mkdir d
	mount -t tmpfs tmpfs d || skip "cannot mount a tmpfs"
	trap "umount '$T/d'" EXIT
	head -c 65536 /dev/urandom >d/in
	annotated t cp "$T/d/in" "$T/d/out"
	head -1 t.jsonl >hdr.json
	libc=$(jq -r '.files[] | select(.path | test("/libc\\.so")) | .path' hdr.json)
	[ -n "$libc" ] || fail "no libc in the header's files"
	eq "libc's dev" "$(jq ".files[] | select(.path == \"$libc\") | .dev" hdr.json)" \
		"$(stat -L -c %d "$libc")"
	sysdev=$(stat -L -c '%Hd:%Ld' "$libc")
	replay t.jsonl d/root --dev-root "$sysdev=sys"
	no_failures
	no_short
	grep -q "^iotrace: device $sysdev: [1-9][0-9]* files, [0-9]* bytes, in sys\$" "$T/replay.err" ||
		fail "no device line for $sysdev: $(cat "$T/replay.err")"
	grep -q "^iotrace: device .* in d/root\$" "$T/replay.err" ||
		fail "no device line for the data: $(cat "$T/replay.err")"
	eq "libc in the device's root" "$(stat -c %s "sys$libc")" "$(stat -L -c %s "$libc")"
	[ ! -e "d/root$libc" ] || fail "libc also in --root"
	[ -d "d/root${libc%/*}" ] || fail "libc's directory missing from --root"
	eq "data in --root" "$(stat -c %s "d/root$T/d/in")" 65536
	[ ! -e "sys$T/d/in" ] || fail "the data in the device's root"
	# both roots are reused, and each loses what is not its own
	echo stray >"sys${libc%/*}/stray"
	: >"sys$T-stray"
	replay t.jsonl d/root --dev-root "$sysdev=sys"
	no_failures
	[ ! -e "sys${libc%/*}/stray" ] && [ ! -e "sys$T-stray" ] ||
		fail "a stray file survived in the device's root"
	# without the option, the same trace puts everything in --root
	replay t.jsonl d/root
	no_failures
	[ -f "d/root$libc" ] || fail "libc not in --root without --dev-root"
	expect_exit 2 "$IOTRACE" replay t.jsonl --root d/root --dev-root "$sysdev"
	err_has "--dev-root wants MAJ:MIN=DIR"
	expect_exit 1 "$IOTRACE" replay t.jsonl --root d/root --dev-root "$sysdev=d/root/sys"
	err_has "must not contain each other"
}

test_bad_input()
{
	printf '{"type":"thing","version":1}\n' >other.json
	expect_exit 1 "$IOTRACE" replay other.json --root root
	err_has "iotrace: other.json: not an iotrace annotated trace"
	printf '{"type":"header","version":99,"files":[]}\n' >v99.jsonl
	expect_exit 1 "$IOTRACE" replay v99.jsonl --root root
	err_has "unsupported annotated trace version 99"
	crafted_escape full.jsonl
	head -c 1500 full.jsonl >trunc.jsonl
	expect_exit 1 "$IOTRACE" replay trunc.jsonl --root root
	err_has "iotrace: trunc.jsonl"
	head -3 full.jsonl >short.jsonl
	expect_exit 1 "$IOTRACE" replay short.jsonl --root root
	err_has "truncated"
	(head -2 full.jsonl; echo '{"type":"event","id":'; tail -n +3 full.jsonl) >bad.jsonl
	expect_exit 1 "$IOTRACE" replay bad.jsonl --root root
	err_has "iotrace: bad.jsonl:3: malformed JSON"
	head -c 4096 /bin/sh >bin.jsonl
	expect_exit 1 "$IOTRACE" replay bin.jsonl --root root
	err_has "not an iotrace annotated trace"
	expect_exit 2 "$IOTRACE" replay full.jsonl
	err_has "--root"
	expect_exit 2 "$IOTRACE" replay full.jsonl --root root --order sideways
	err_has "unknown order"
	[ "$(id -u)" -eq 0 ] || skip "read-only root needs a mount (root)"
	mkdir ro
	mount -t tmpfs -o ro tmpfs ro || skip "cannot mount a read-only tmpfs"
	expect_exit 1 "$IOTRACE" replay full.jsonl --root ro
	umount ro
	err_has "iotrace: ro: root is not writable"
	# a disk that fills while the initial files are written
	mkdir small
	mount -t tmpfs -o size=1m tmpfs small || skip "cannot mount a small tmpfs"
	printf '{"type":"header","version":1,"threads":[],"processes":[],"files":[{"path":"/big","type":"file","size":8388608}],"events":0}\n' >big.jsonl
	expect_exit 1 "$IOTRACE" replay big.jsonl --root small/root
	umount small
	err_has "iotrace: small/root: cannot create /big: No space left on device"
}

# A read that can never complete (no writer in the trace) is reported, not hung on.
test_stall_reported()
{
	cat >t.jsonl <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":3}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[],"events":3}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"pipe2","args":{"pipefd":1,"flags":0},"ret":0,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"read","args":{"fd":{"fd":3,"path":"pipe:[5]","type":"fifo","ino":5},"buf":1,"count":64},"ret":64,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":4,"path":"pipe:[5]","type":"fifo","ino":5}},"ret":0,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	expect_exit 1 "$IOTRACE" replay t.jsonl --root root --stall-timeout 1
	err_has "iotrace: replay stalled"
	err_has "event 1 (read)"
}

# O_DIRECT opens keep the flag, with buffers and sizes aligned for it.
test_odirect()
{
	cat >t.jsonl <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":4}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/data","type":"dir"},{"path":"/data/blob","type":"file","size":1048576}],"events":4}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/data/blob","flags":16386,"mode":0},"ret":3,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"pread64","args":{"fd":{"fd":3,"path":"/data/blob","type":"file"},"buf":1,"count":65536,"offset":8192},"ret":65536,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"pwrite64","args":{"fd":{"fd":3,"path":"/data/blob","type":"file"},"buf":1,"count":4096,"offset":4096},"ret":4096,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":3,"path":"/data/blob","type":"file"}},"ret":0,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	# a filesystem without O_DIRECT (tmpfs on old kernels) cannot run this
	dd if=/dev/zero of=probe bs=4096 count=1 oflag=direct 2>/dev/null ||
		skip "the scratch filesystem does not support O_DIRECT"
	replay t.jsonl root --timeline tl.tsv
	no_failures
	no_short
	eq "issued" "$(r .issued)" 4
	# one line per call: recorded ts and dur as in the trace, issue <= end
	eq "timeline header" "$(head -1 tl.tsv)" "$(printf 'tid\tcall\tid\tts\tdur\tissue\tend')"
	eq "timeline calls" "$(tail -n +2 tl.tsv | cut -f2 | tr '\n' ' ')" "openat pread64 pwrite64 close "
	eq "recorded times" "$(tail -n +2 tl.tsv | cut -f4,5 | tr '\t\n' ': ')" "1000:10 2000:10 3000:10 4000:10 "
	eq "issue <= end, in order" "$(tail -n +2 tl.tsv | awk -F'\t' '$6 > $7 || $6 < e { bad++ } { e = $7 } END { print bad + 0 }')" 0
}

# O_DIRECT preads recorded on 512-byte sectors, replayed on a filesystem
# of 4 KiB sectors (an ext4 on a loop device with --sector-size 4096): as
# recorded they would fail with EINVAL there; the replay widens them to the
# filesystem's alignment, as the application would have, and returns the
# recorded range's bytes.
test_odirect_realigned()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root for a loop device"
	truncate -s 64M img
	local dev
	dev=$(losetup --sector-size 4096 --direct-io=on -f --show img) || skip "no loop device"
	# shellcheck disable=SC2064 # expand now: $dev and $T are this test's
	trap "umount '$T/mnt' 2>/dev/null; losetup -d '$dev'" EXIT
	mkfs.ext4 -q -F "$dev" || fail "mkfs.ext4 $dev"
	mkdir mnt && mount "$dev" mnt || fail "mount $dev"
	cat >t.jsonl <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":4}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/blob","type":"file","size":1048576}],"events":4}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/blob","flags":16384,"mode":0},"ret":3,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"pread64","args":{"fd":{"fd":3,"path":"/blob","type":"file"},"buf":1,"count":4608,"offset":1536},"ret":4608,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"pread64","args":{"fd":{"fd":3,"path":"/blob","type":"file"},"buf":1,"count":8192,"offset":8192},"ret":8192,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":3,"path":"/blob","type":"file"}},"ret":0,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	replay t.jsonl mnt/root
	no_failures
	no_short
	eq "widened: only the misaligned pread" "$(r .dio_aligned)" 1
}

# TCP peers outside the trace, played by the replayer on loopback: a server
# the application connects to (it sources 71000 bytes the app reads) and a
# client that connects to the application's listener (200 bytes).
test_socket_external_peer()
{
	cat >t.jsonl <<-'EOF'
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":13}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[],"events":13}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"socket","args":{"domain":2,"type":1,"protocol":0},"ret":3,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"connect","args":{"sockfd":{"fd":3,"type":"socket"},"addr":1,"addrlen":16},"sock":{"family":2,"type":1,"laddr":"10.0.0.5","lport":40001,"raddr":"93.184.216.34","rport":80},"ret":0,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"sendto","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":100,"flags":0,"dest_addr":0,"addrlen":0},"ret":100,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"recvfrom","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":70000,"flags":256,"src_addr":0,"addrlen":0},"ret":70000,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":4,"pid":10,"tid":10,"call":"read","args":{"fd":{"fd":3,"type":"socket"},"buf":1,"count":4096},"ret":1000,"ts":4500,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":5,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":3,"type":"socket"}},"ret":0,"ts":5000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":6,"pid":10,"tid":10,"call":"socket","args":{"domain":10,"type":1,"protocol":0},"ret":3,"ts":6000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":7,"pid":10,"tid":10,"call":"bind","args":{"sockfd":{"fd":3,"type":"socket"},"addr":1,"addrlen":28},"sock":{"family":10,"type":1,"laddr":"::","lport":8080,"raddr":"::","rport":0},"ret":0,"ts":7000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":8,"pid":10,"tid":10,"call":"listen","args":{"sockfd":{"fd":3,"type":"socket"},"backlog":4},"sock":{"family":10,"type":1,"laddr":"::","lport":8080,"raddr":"::","rport":0},"ret":0,"ts":8000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":9,"pid":10,"tid":10,"call":"accept4","args":{"sockfd":{"fd":3,"type":"socket"},"addr":0,"addrlen":0,"flags":524288},"sock":{"family":10,"type":1,"laddr":"::1","lport":8080,"raddr":"::1","rport":50123},"ret":4,"ts":9000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":10,"pid":10,"tid":10,"call":"recvfrom","args":{"sockfd":{"fd":4,"type":"socket"},"buf":1,"len":200,"flags":256,"src_addr":0,"addrlen":0},"ret":200,"ts":10000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":11,"pid":10,"tid":10,"call":"sendto","args":{"sockfd":{"fd":4,"type":"socket"},"buf":1,"len":50,"flags":0,"dest_addr":0,"addrlen":0},"ret":50,"ts":11000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":12,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":4,"type":"socket"}},"ret":0,"ts":12000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	replay t.jsonl root --stall-timeout 10
	no_failures
	no_short
	eq "issued" "$(r .issued)" 13
	eq "skipped" "$(r .skipped_total)" 0
}

# gen_ring THREADS OPS: every thread's op j waits for the previous thread's
# op j (a ring of cross-thread deps), with a pwrite in between each wait.
gen_ring()
{
	awk -v n="$1" -v m="$2" 'BEGIN {
		printf "{\"type\":\"header\",\"version\":1,\"threads\":["
		for (k = 0; k < n; k++)
			printf "%s{\"pid\":100,\"tid\":%d,\"comm\":\"r\",\"events\":%d}", k ? "," : "", 100 + k, 2 * m + 1
		printf "],\"processes\":[{\"pid\":100,\"ppid\":1,\"cwd\":\"/\"}],\"files\":[{\"path\":\"/f\",\"type\":\"file\",\"size\":4096}],\"events\":%d}\n", n * (2 * m + 1)
		id = 0
		for (k = 0; k < n; k++) {
			printf "{\"type\":\"event\",\"id\":%d,\"pid\":100,\"tid\":%d,\"call\":\"openat\",\"args\":{\"dirfd\":\"AT_FDCWD\",\"pathname\":\"/f\",\"flags\":2,\"mode\":0},\"ret\":%d,\"ts\":%d,\"dur\":1,\"compute_ns\":0,\"deps\":[]}\n", id, 100 + k, 3 + k, id
			first[k] = id++
		}
		for (j = 0; j < m; j++)
			for (k = 0; k < n; k++) {
				dep = j ? "[{\"id\":" w[(k + n - 1) % n] ",\"kind\":\"wakeup\"}]" : "[]"
				printf "{\"type\":\"event\",\"id\":%d,\"pid\":100,\"tid\":%d,\"call\":\"futex\",\"args\":{\"uaddr\":1,\"futex_op\":128,\"val\":0},\"ret\":0,\"ts\":%d,\"dur\":1,\"compute_ns\":0,\"deps\":%s}\n", id, 100 + k, id, dep
				nw[k] = id++
				printf "{\"type\":\"event\",\"id\":%d,\"pid\":100,\"tid\":%d,\"call\":\"pwrite64\",\"args\":{\"fd\":{\"fd\":%d,\"path\":\"/f\",\"type\":\"file\"},\"buf\":1,\"count\":512,\"offset\":%d},\"ret\":512,\"ts\":%d,\"dur\":1,\"compute_ns\":0,\"deps\":[]}\n", id, 100 + k, 3 + k, 512 * (k % 8), id
				id++
				for (x = 0; x < n; x++) if (x == k) w[k] = nw[k]
			}
	}'
}

# Dependency release under many threads: a lost wakeup would stall.
test_many_threads_ring()
{
	gen_ring 48 150 >t.jsonl
	for o in causal temporal none; do
		replay t.jsonl root --order $o --stall-timeout 20
		no_failures
		eq "issued $o" "$(r .issued)" $((48 * 151))
		eq "threads" "$(r '.threads | length')" 48
	done
	replay t.jsonl root --natural --stall-timeout 20
	no_failures
}

# chmod, chown, utimensat and close_range; a chmod through a symlink that
# points out of the root changes nothing outside.
test_metadata_calls()
{
	echo keep >victim
	chmod 644 victim
	cat >t.jsonl <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":8}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/d","type":"dir"},{"path":"/d/f","type":"file","size":100},{"path":"/d/out","type":"symlink","target":"$T/victim"}],"events":8}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"chmod","args":{"pathname":"/d/f","mode":384},"ret":0,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"fchownat","args":{"dirfd":"AT_FDCWD","pathname":"/d/f","owner":1234,"group":4321,"flags":0},"ret":0,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"utimensat","args":{"dirfd":"AT_FDCWD","pathname":"/d/f","times":0,"flags":0},"ret":0,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"chmod","args":{"pathname":"/d/out","mode":511},"ret":-2,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":4,"pid":10,"tid":10,"call":"lchown","args":{"pathname":"/d/out","owner":1234,"group":1234},"ret":0,"ts":5000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":5,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/d/f","flags":2,"mode":0},"ret":3,"ts":6000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":6,"pid":10,"tid":10,"call":"fchmod","args":{"fd":{"fd":3,"path":"/d/f","type":"file"},"mode":416},"ret":0,"ts":7000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":7,"pid":10,"tid":10,"call":"close_range","args":{"first":3,"last":4294967295,"flags":0},"ret":0,"ts":8000,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	replay t.jsonl root
	no_failures
	eq "issued" "$(r .issued)" 8
	eq "mode" "$(stat -c %a root/d/f)" 640
	[ "$(id -u)" -ne 0 ] || eq "owner" "$(stat -c %u:%g root/d/f)" 1234:4321
	eq "victim mode" "$(stat -c %a victim)" 644
	eq "victim owner" "$(stat -c %u victim)" "$(id -u)"
	# a second replay starts again from the initial state
	"$IOTRACE" replay t.jsonl --root root --prepare-only --no-progress 2>/dev/null ||
		fail "prepare-only exited $?"
	eq "mode reset" "$(stat -c %a root/d/f)" 644
}

# paced JSONL NS: a replay of JSONL takes NS or more in natural timing, from a
# quarter to three quarters of that at --speed 4, and under 50 ms --afap.
paced()
{
	replay "$1" root --natural
	ge "natural wall" "$(r .wall_ns)" "$2"
	replay "$1" root --speed 4
	[ "$(r .wall_ns)" -lt $(($2 * 3 / 4)) ] || fail "--speed 4 took $(r .wall_ns) ns"
	ge "speed 4 wall" "$(r .wall_ns)" $(($2 / 4))
	replay "$1" root
	[ "$(r .wall_ns)" -lt 50000000 ] || fail "--afap took $(r .wall_ns) ns"
}

# Timed sleeps last their recorded duration, divided by --speed, and are
# skipped by --afap.  Four 100 ms sleeps, with wide margins for a busy host.
test_sleeps_and_speed()
{
	{
		header10 4
		for i in 0 1 2 3; do
			echo '{"type":"event","id":'$i',"pid":10,"tid":10,"call":"clock_nanosleep","args":{"clockid":1,"flags":0,"request":1,"remain":0},"ret":0,"ts":'$((i * 100000000))',"dur":100000000,"compute_ns":0,"deps":[]}'
		done
	} >t.jsonl
	paced t.jsonl 400000000
	eq "trace wall" "$(r .trace_wall_ns)" 400000000
}

# Waits shorter than a timer's lateness keep their recorded time in sum.
# With no CPU to spare for spinning (one CPU here, as a busy server has
# fewer than its threads), a hold can only sleep, and a sleep wakes a
# margin late (tens of us on some VMs, as long as a server's wait for its
# next request): 2000 polls of 30 us that each woke late would hold for
# about twice their time.  The replay makes a late wake up in a later one.
# Within a half: a busy CPU wakes the thread late too, and that lateness
# the replay cannot make up.
test_short_holds_keep_their_time()
{
	local n=2000 i
	{
		header10 $n
		for ((i = 0; i < n; i++)); do
			echo '{"type":"event","id":'$i',"pid":10,"tid":10,"call":"poll","args":{"fds":0,"nfds":1,"timeout":1000},"ret":0,"ts":'$((i * 35000))',"dur":30000,"compute_ns":5000,"deps":[]}'
		done
	} >h.jsonl
	taskset -c 0 "$IOTRACE" replay h.jsonl --root root --natural --report "$T/r.json" \
		--no-progress 2>"$T/replay.err" || fail "replay exited $?: $(cat "$T/replay.err")"
	no_failures
	echo "note: held $(r '.threads[0].hold_ns') ns for $((n * 30000)) recorded"
	ge "held" "$(r '.threads[0].hold_ns')" $((n * 30000 * 3 / 4))
	[ "$(r '.threads[0].hold_ns')" -le $((n * 30000 * 3 / 2)) ] ||
		fail "held $(r '.threads[0].hold_ns') ns for $((n * 30000)) recorded"
}

# outside_ns, the time a task outside the trace had the thread's CPU, is
# waited out in natural timing (/ X), and not --afap or in think order.
test_outside_waited_out()
{
	{
		header10 2
		for i in 0 1; do
			echo '{"type":"event","id":'$i',"pid":10,"tid":10,"call":"getpid","args":{},"ret":10,"ts":'$((i * 1000))',"dur":100,"compute_ns":0,"outside_ns":100000000,"deps":[]}'
		done
	} >o.jsonl
	paced o.jsonl 200000000
	replay o.jsonl root --natural
	ge "outside_ns" "$(r '.threads[0].outside_ns')" 200000000
	replay o.jsonl root --natural --order think
	eq "think's outside_ns" "$(r '.threads[0].outside_ns')" 0
}

# Between the preparation and the timed phase the replay syncs the root's
# file system and waits until its device has nothing in flight: on an ext4
# of its own (a loop device), data left dirty there (by the test, as by a
# preparation that did not sync) is on the device before the timed phase,
# and the time it took is settle_ns, apart from prepare_ns and wall_ns.  A
# second replay has nothing to write and no device to wait for.
test_settle_after_preparation()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root for a loop device"
	truncate -s 128M img
	local dev mm w0 w1
	dev=$(losetup --direct-io=on -f --show img) || skip "no loop device"
	# shellcheck disable=SC2064 # expand now: $dev and $T are this test's
	trap "umount '$T/mnt' 2>/dev/null; losetup -d '$dev'" EXIT
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dev" || fail "mkfs.ext4 $dev"
	mkdir mnt && mount "$dev" mnt || fail "mount $dev"
	mm=$(lsblk -dno MAJ:MIN "$dev" | tr -d ' ')
	{
		echo '{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":1}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/f","type":"file","size":1048576}],"events":1}'
		echo '{"type":"event","id":0,"pid":10,"tid":10,"call":"clock_nanosleep","args":{"clockid":1,"flags":0,"request":1,"remain":0},"ret":0,"ts":0,"dur":1000000,"compute_ns":0,"deps":[]}'
	} >t.jsonl
	# sectors written to the device: from before the data is dirtied to the
	# end of the replay, whose timed phase writes nothing (someone else's
	# sync may write the data first; the replay's syncfs must, if not)
	w0=$(awk '{ print $7 }' "/sys/dev/block/$mm/stat")
	head -c $((16 << 20)) /dev/urandom >mnt/dirty
	"$IOTRACE" -v replay t.jsonl --root mnt/root --no-progress --report "$T/r.json" \
		2>"$T/err" || fail "replay exited $?"
	w1=$(awk '{ print $7 }' "/sys/dev/block/$mm/stat")
	ge "KiB written to $mm by the end of the settling ($(grep settle: "$T/err"))" \
		$(((w1 - w0) / 2)) $((16 << 10))
	grep -q "settle: .*: nothing \(was \)\?in flight" "$T/err" || fail "no quiet device: $(cat "$T/err")"
	ge "prepare_ns" "$(r .prepare_ns)" 1
	ge "settle_ns" "$(r .settle_ns)" 1
	"$IOTRACE" -v replay t.jsonl --root mnt/root --no-progress --report "$T/r.json" \
		2>"$T/err" || fail "replay exited $?"
	grep -q "settle: .*waited 0 ms more: nothing was in flight" "$T/err" ||
		fail "a root with nothing to write was waited for: $(grep settle: "$T/err")"
	# --settle MS: an idle time on top, counted in settle_ns
	"$IOTRACE" replay t.jsonl --root mnt/root --no-progress --settle 200 --report "$T/r.json" \
		2>"$T/err" || fail "replay --settle 200 exited $?"
	ge "settle_ns with --settle 200" "$(r .settle_ns)" 200000000
	[ "$(r .wall_ns)" -lt 100000000 ] || fail "wall_ns $(r .wall_ns) holds the settling"
	expect_exit 2 "$IOTRACE" replay t.jsonl --root mnt/root --settle -1
	grep -q "iotrace: replay: --settle wants milliseconds" "$T/err" || fail "$(cat "$T/err")"
}

# Natural timing keeps the recorded duration of waits the trace cannot
# explain (no traced waker: a server waiting for an outside client), from the
# end of the thread's previous call; a wait with a dep is only its dep.  Two
# threads on 2 CPUs: the holds only sleep, and end on time on average, so the
# 250 ms they hold may come out a wakeup or two short.
test_unexplained_waits_held()
{
	{
		echo '{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":2},{"pid":10,"tid":11,"comm":"x","events":1}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[],"events":3}'
		echo '{"type":"event","id":0,"pid":10,"tid":10,"call":"epoll_wait","args":{"epfd":{"fd":3,"type":"anon"},"events":1,"maxevents":8,"timeout":-1},"ret":1,"ts":1000,"dur":150000000,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":1,"pid":10,"tid":11,"call":"futex","args":{"uaddr":4096,"futex_op":128,"val":0},"ret":0,"ts":2000,"dur":150000000,"compute_ns":0,"deps":[{"id":0,"kind":"wakeup"}]}'
		echo '{"type":"event","id":2,"pid":10,"tid":10,"call":"futex","args":{"uaddr":4096,"futex_op":128,"val":0},"ret":0,"ts":150002000,"dur":100000000,"compute_ns":0,"deps":[]}'
	} >t.jsonl
	replay t.jsonl root --natural
	no_failures
	ge "natural wall" "$(r .wall_ns)" 249000000
	ge "held" "$(r '.threads[] | select(.tid == 10) | .hold_ns')" 200000000
	eq "a wait with a dep is not held" "$(r '.threads[] | select(.tid == 11) | .hold_ns')" 0
	replay t.jsonl root --natural --order none
	ge "held in every order" "$(r .wall_ns)" 249000000
}

# A recorded fd number taken over by another thread: thread 10 closes fd 4,
# thread 11 gets 4 again from an open of /proc (which the replay skips) and
# reads it.  Replayed, thread 11 runs long before thread 10's close; its read
# must find its own (skipped) fd 4, not thread 10's write-only file (EBADF).
test_fd_number_reused()
{
	{
		echo '{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":3},{"pid":10,"tid":11,"comm":"x","events":2}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/f","type":"file","size":4096}],"events":5}'
		echo '{"type":"event","id":0,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/f","flags":1,"mode":0},"ret":4,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":1,"pid":10,"tid":10,"call":"pwrite64","args":{"fd":{"fd":4,"path":"/f","type":"file"},"buf":1,"count":4096,"offset":0},"ret":4096,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":2,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":4,"path":"/f","type":"file"}},"ret":0,"ts":300000000,"dur":10,"compute_ns":300000000,"deps":[]}'
		echo '{"type":"event","id":3,"pid":10,"tid":11,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/proc/sys/vm/overcommit_memory","flags":0,"mode":0},"ret":4,"ts":300000100,"dur":10,"compute_ns":20000000,"deps":[]}'
		echo '{"type":"event","id":4,"pid":10,"tid":11,"call":"read","args":{"fd":{"fd":4,"path":"/proc/sys/vm/overcommit_memory","type":"file"},"buf":1,"count":1},"ret":1,"ts":300000200,"dur":10,"compute_ns":0,"deps":[]}'
	} >t.jsonl
	local o
	for o in causal none; do
		replay t.jsonl root --natural --order "$o"
		no_failures
		eq "$o: the read of the skipped open's fd is skipped" "$(r '.skipped.read // 0')" 1
		eq "$o: issued: open, pwrite, close" "$(r .issued)" 3
	done
}

# A call on an fd that is not open yet fails and is counted; one on an fd
# whose making the replay does not do is skipped.  Thread 11 preads the fd
# thread 10 opens after a 20 ms sleep: causal waits for the open (its stage
# dep), none does not and gets EBADF.  The epoll fd (epoll_create is not
# replayed) and an fd from before the trace whose file is gone are skipped,
# in every order.
test_fd_not_open_yet()
{
	{
		echo '{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"x","events":5},{"pid":10,"tid":11,"comm":"x","events":1}],"processes":[{"pid":10,"ppid":1,"cwd":"/"}],"files":[{"path":"/f","type":"file","size":4096}],"events":6}'
		echo '{"type":"event","id":0,"pid":10,"tid":10,"call":"nanosleep","args":{"req":1,"rem":0},"ret":0,"ts":1000,"dur":20000000,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":1,"pid":10,"tid":10,"call":"openat","args":{"dirfd":"AT_FDCWD","pathname":"/f","flags":0,"mode":0},"ret":3,"ts":20002000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":2,"pid":10,"tid":11,"call":"pread64","args":{"fd":{"fd":3,"path":"/f","type":"file"},"buf":1,"count":4096,"offset":0},"ret":4096,"ts":20003000,"dur":10,"compute_ns":0,"deps":[{"id":1,"kind":"stage"}]}'
		echo '{"type":"event","id":3,"pid":10,"tid":10,"call":"epoll_create1","args":{"flags":524288},"ret":4,"ts":20004000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":4,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":4,"type":"anon"}},"ret":0,"ts":20005000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":5,"pid":10,"tid":10,"call":"read","args":{"fd":{"fd":7,"path":"/gone","type":"file"},"buf":1,"count":10},"ret":10,"ts":20006000,"dur":10,"compute_ns":0,"deps":[]}'
	} >t.jsonl
	replay t.jsonl root --natural
	no_failures
	eq "causal: the pread is replayed" "$(r '.calls.pread64.count')" 1
	eq "causal: skipped, the read of a file that is gone" "$(r .skipped_total)" 1
	replay t.jsonl root --natural --order none
	eq "none: the pread before its open fails" "$(r .failed)" 1
	eq "none: with EBADF" "$(jq -c '[.failures[] | .call, .got]' "$T/r.json")" '["pread64",-9]'
	eq "none: skipped, the read of a file that is gone" "$(r .skipped_total)" 1
}

# --user: prepared as root, replayed as nobody; the root's files are
# nobody's, the calls all succeed, and nothing of root's is left writable.
test_user_drop()
{
	need_bpf
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	mkdir d
	annotated t "$PROGS/fileio" "$T/d" 2
	chmod 755 "$T"
	mkdir rep && chown nobody rep
	"$IOTRACE" replay t.jsonl --root root --user nobody --report rep/r.json --no-progress \
		2>replay.err || fail "replay --user exited $?: $(cat replay.err)"
	eq "failed" "$(jq .failed rep/r.json)" 0
	eq "owner" "$(stat -c %U "root$T/d/file0")" nobody
	eq "root's owner" "$(stat -c %U root)" nobody
	expect_exit 1 "$IOTRACE" replay t.jsonl --root root2 --user no-such-user-here
	err_has "iotrace: replay: no user 'no-such-user-here'"
}

# mmap I/O: the pages the application touched through its shared mapping
# are touched in the replay's own mapping of the sandbox file before msync.
test_mmap_pages()
{
	need_bpf
	annotated m "$PROGS/ipc" "$T"
	ge "pages in the trace" "$(jq -s '[.[] | select(.type == "event" and .call == "msync") | .pages[]?] | length' m.jsonl)" 1
	replay m.jsonl root
	no_failures
	ge "pages touched" "$(r .pages_touched)" 2
	eq "msync replayed" "$(r '.calls.msync.count')" 1
}

# Extended attributes: reads, lists, sets and removes replay with the
# outcomes and lengths of the trace; an ACL set, whose value the trace does
# not hold, is skipped as not supported instead of failing.
test_xattr()
{
	need_bpf
	mkdir d
	annotated t "$PROGS/xattr" "$T/d"
	eq "the program's own run" "$(grep -c . t.out)" 14
	grep -qx 'get_small=-34' t.out || fail "no ERANGE: $(cat t.out)"
	replay t.jsonl root
	no_failures
	no_short
	eq "xattr calls issued" \
		"$(jq '[.calls | to_entries[] | select(.key | test("xattr")) | .value.count] | add' \
			"$T/r.json")" 13
	eq "skipped, why" "$(jq -c '.reasons | map_values(.skipped) | with_entries(select(.value > 0))' \
		"$T/r.json")" '{"not_replayed":1}'
	eq "skipped setxattr" "$(r .skipped.setxattr)" 1
}

# A pre-fork server as PostgreSQL runs it: the parent accepts and closes,
# a forked child reads the request in the chunks the trace saw (EAGAIN in
# between) and answers; its client hangs up mid-request.  A second client
# resets its connection; a connection from before the trace (no history)
# is read and written; the trace ends in the middle of a write, as a
# killed server's does.  The replayer plays every client: no call fails,
# none is short, nothing hangs.
test_socket_peer_per_connection()
{
	local s='"type":"socket","dev":9'
	cat >t.jsonl <<-EOF
	{"type":"header","version":1,"threads":[{"pid":10,"tid":10,"comm":"pm","events":11},{"pid":11,"tid":11,"comm":"be","events":7}],"processes":[{"pid":10,"ppid":1,"cwd":"/"},{"pid":11,"ppid":10,"cwd":"/"}],"files":[],"events":18}
	{"type":"event","id":0,"pid":10,"tid":10,"call":"socket","args":{"domain":2,"type":1,"protocol":0},"ret":3,"ts":1000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":1,"pid":10,"tid":10,"call":"bind","args":{"sockfd":{"fd":3,$s,"ino":400},"addr":1,"addrlen":16},"sock":{"family":2,"type":1,"ino":400,"laddr":"127.0.0.1","lport":5432,"raddr":"0.0.0.0","rport":0},"ret":0,"ts":2000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":2,"pid":10,"tid":10,"call":"listen","args":{"sockfd":{"fd":3,$s,"ino":400},"backlog":8},"sock":{"family":2,"type":1,"ino":400,"laddr":"127.0.0.1","lport":5432,"raddr":"0.0.0.0","rport":0},"ret":0,"ts":3000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":3,"pid":10,"tid":10,"call":"accept","args":{"sockfd":{"fd":3,$s,"ino":400},"addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":500,"laddr":"127.0.0.1","lport":5432,"raddr":"127.0.0.1","rport":40001},"ret":4,"ts":4000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":4,"pid":10,"tid":10,"call":"clone","args":{"flags":17},"ret":11,"ts":5000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":5,"pid":10,"tid":10,"call":"close","args":{"fd":{"fd":4,$s,"ino":500}},"ret":0,"ts":6000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":6,"pid":11,"tid":11,"call":"recvfrom","args":{"sockfd":{"fd":4,$s,"ino":500},"buf":1,"len":8192,"flags":0,"src_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":500},"ret":8,"ts":7000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":7,"pid":11,"tid":11,"call":"recvfrom","args":{"sockfd":{"fd":4,$s,"ino":500},"buf":1,"len":8192,"flags":64,"src_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":500},"ret":-11,"ts":7100,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":8,"pid":11,"tid":11,"call":"recvfrom","args":{"sockfd":{"fd":4,$s,"ino":500},"buf":1,"len":8192,"flags":0,"src_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":500},"ret":66,"ts":7200,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":9,"pid":11,"tid":11,"call":"sendto","args":{"sockfd":{"fd":4,$s,"ino":500},"buf":1,"len":300,"flags":0,"dest_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":500},"ret":300,"ts":7300,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":10,"pid":11,"tid":11,"call":"read","args":{"fd":{"fd":4,$s,"ino":500},"buf":1,"count":8192},"ret":5,"ts":7400,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":11,"pid":11,"tid":11,"call":"read","args":{"fd":{"fd":4,$s,"ino":500},"buf":1,"count":8192},"ret":0,"ts":7500,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":12,"pid":11,"tid":11,"call":"close","args":{"fd":{"fd":4,$s,"ino":500}},"ret":0,"ts":7600,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":13,"pid":10,"tid":10,"call":"accept","args":{"sockfd":{"fd":3,$s,"ino":400},"addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":501,"laddr":"127.0.0.1","lport":5432,"raddr":"127.0.0.1","rport":40002},"ret":4,"ts":8000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":14,"pid":10,"tid":10,"call":"recvfrom","args":{"sockfd":{"fd":4,$s,"ino":501},"buf":1,"len":100,"flags":0,"src_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":501},"ret":10,"ts":9000,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":15,"pid":10,"tid":10,"call":"recvfrom","args":{"sockfd":{"fd":4,$s,"ino":501},"buf":1,"len":100,"flags":0,"src_addr":0,"addrlen":0},"sock":{"family":2,"type":1,"ino":501},"ret":-104,"ts":9100,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":16,"pid":10,"tid":10,"call":"read","args":{"fd":{"fd":7,"path":"socket:[600]",$s,"ino":600},"buf":1,"count":512},"ret":30,"ts":9200,"dur":10,"compute_ns":0,"deps":[]}
	{"type":"event","id":17,"pid":10,"tid":10,"call":"write","args":{"fd":{"fd":7,"path":"socket:[600]",$s,"ino":600},"buf":1,"count":4000},"ret":1200,"ts":9300,"dur":10,"compute_ns":0,"deps":[]}
	EOF
	local mode
	for mode in --afap --natural; do
		replay t.jsonl root --stall-timeout 10 "$mode"
		no_failures
		no_short
		eq "issued $mode" "$(r .issued)" 17
		eq "emulated $mode (the connection from before the trace is played)" "$(r .emulated)" 0
		eq "skipped $mode" "$(r .skipped_total)" 0
	done
}
