# SPDX-License-Identifier: GPL-2.0
# Bad input and interruptions: a clear "iotrace: " message, the right exit
# code, no crash or hang, and nothing already recorded lost.

# a small trace to damage
small_trace()
{
	record -o "$1" -- "$PROGS/demo_workload" "$T" >/dev/null 2>&1
}

test_usage()
{
	expect_exit 2 "$IOTRACE"
	err_has "iotrace: no command given"
	expect_exit 2 "$IOTRACE" frobnicate
	err_has "iotrace: "
	expect_exit 2 "$IOTRACE" record --no-such-option
	expect_exit 2 "$IOTRACE" record
	err_has "iotrace: "
	expect_exit 2 "$IOTRACE" record -p 1 -- true
	expect_exit 2 "$IOTRACE" record -b 3 -- true
	expect_exit 2 "$IOTRACE" record -d -1 -- true
	expect_exit 2 "$IOTRACE" record --calls file,disk -- true
	err_has "unknown call family 'disk'"
	expect_exit 2 "$IOTRACE" record --calls '' -- true
	expect_exit 2 "$IOTRACE" info
	expect_exit 0 "$IOTRACE" --help
	expect_exit 0 "$IOTRACE" record --help
}

test_no_such_pid()
{
	need_bpf
	expect_exit 1 "$IOTRACE" record -p 999999999 -o t.iot
	err_has "iotrace: no process 999999999"
	expect_exit 2 "$IOTRACE" record -p 12abc -o t.iot
	err_has "invalid PID"
}

test_no_such_command()
{
	need_bpf
	expect_exit 1 "$IOTRACE" record -o t.iot -- /no/such/program
	err_has "iotrace: cannot run '/no/such/program': No such file or directory"
}

test_unwritable_output()
{
	expect_exit 1 "$IOTRACE" record -o /proc/no/such/t.iot -- true
	err_has "iotrace: cannot write /proc/no/such/t.iot"
}

test_no_privileges()
{
	need_bpf
	command -v setpriv >/dev/null || skip "no setpriv"
	expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$IOTRACE" record -o /tmp/iotrace-nopriv.iot -- true
	err_has "needs root, or CAP_BPF and CAP_PERFMON"
	rm -f /tmp/iotrace-nopriv.iot
}

test_not_a_trace()
{
	: >empty
	head -c 100000 /dev/urandom >random
	echo '{"iotrace": "annotated"}' >json
	for f in empty random json; do
		expect_exit 1 "$IOTRACE" info $f
		err_has "iotrace: $f: not an iotrace trace"
		expect_exit 1 "$IOTRACE" dump $f
		err_has "not an iotrace trace"
	done
	expect_exit 1 "$IOTRACE" info no-such-file
	err_has "iotrace: no-such-file: No such file or directory"
}

test_future_version()
{
	need_bpf
	small_trace t.iot
	# the version is the u32 at byte 8
	printf '\x63\x00\x00\x00' | dd of=t.iot bs=1 seek=8 conv=notrunc status=none
	expect_exit 1 "$IOTRACE" info t.iot
	err_has "format version 99"
}

# Cut at any byte: info reads what is complete, says so, and exits 0;
# dump prints the complete records and exits 1.
test_truncated()
{
	need_bpf
	small_trace t.iot
	local size full n
	size=$(stat -c %s t.iot)
	full=$("$IOTRACE" info t.iot | jq .records.syscall)
	for cut in 40 $((size / 3)) $((size / 2)) $((size - 1)); do
		head -c $cut t.iot >cut.iot
		expect_exit 0 "$IOTRACE" info cut.iot
		err_has "truncated"
		eq "flagged" "$(jq .truncated "$T/out")" true
		n=$(jq '.records.syscall // 0' "$T/out")
		[ "$n" -le "$full" ] || fail "more calls than the whole file"
		expect_exit 1 "$IOTRACE" dump cut.iot
		[ "$(grep -c '' "$T/out")" -ge "$n" ] || fail "dump printed less than info counted"
	done
}

test_bit_flip()
{
	need_bpf
	small_trace t.iot
	local size
	size=$(stat -c %s t.iot)
	for off in 40 100 $((size / 2)) $((size - 10)); do
		cp t.iot flip.iot
		printf '\xff' | dd of=flip.iot bs=1 seek=$off conv=notrunc status=none
		"$IOTRACE" info flip.iot >/dev/null 2>err
		rc=$?
		[ $rc -le 1 ] || fail "info exited $rc on a flipped byte at $off"
		"$IOTRACE" dump --json flip.iot >/dev/null 2>err
		rc=$?
		[ $rc -le 1 ] || fail "dump exited $rc on a flipped byte at $off"
	done
}

# SIGINT ends the recording cleanly: passed on to the command, whose death
# by it is record's exit status, then the summary and loss counters.
test_sigint()
{
	need_bpf
	"$IOTRACE" record -o t.iot -- sh -c 'echo up >started; while true; do cat /dev/null; done' \
		2>err &
	local rec=$!
	wait_for started up 30	# the recorder is attached once the command runs
	sleep 0.5
	kill -INT $rec
	wait $rec
	eq "exit" $? 130
	grep -q "events in .*, 0 lost" err || fail "summary: $(cat err)"
	eq "complete" "$("$IOTRACE" info t.iot | jq .complete)" true
	ge "calls" "$("$IOTRACE" info t.iot | jq .records.syscall)" 100
}

# SIGKILL of the recorder: what was flushed (every second) stays readable.
test_sigkill()
{
	need_bpf
	"$IOTRACE" record -o t.iot -- sh -c 'echo "up $$" >started; while true; do cat /dev/null; done' \
		2>/dev/null &
	local rec=$!
	# the file has its name once the command runs; then a flush or two
	wait_for started up 60
	sleep 2.5
	kill -KILL $rec
	wait $rec 2>/dev/null
	kill "$(awk '{ print $2 }' started)"
	"$IOTRACE" info t.iot >info.json 2>err
	[ $? -eq 0 ] || fail "info on a killed recording: $(cat err)"
	eq "complete" "$(jq .complete info.json)" false
	eq "truncated" "$(jq .truncated info.json)" true
	ge "calls" "$(jq .records.syscall info.json)" 100
}

# The disk fills: record says so, exits 1, and what fit is readable.
test_disk_full()
{
	need_bpf
	mkdir mnt
	mount -t tmpfs -o size=256k tmpfs mnt || skip "cannot mount tmpfs"
	"$IOTRACE" record -o mnt/t.iot -- sh -c 'i=0; while [ $i -lt 20000 ]; do cat /dev/null; i=$((i+1)); done' \
		>/dev/null 2>err
	local rc=$?
	cp mnt/t.iot t.iot
	umount mnt
	eq "exit" $rc 1
	grep -q "iotrace: writing mnt/t.iot: No space left on device" err || fail "message: $(cat err)"
	"$IOTRACE" info t.iot >info.json 2>/dev/null
	ge "calls kept" "$(jq '.records.syscall // 0' info.json)" 100
}
