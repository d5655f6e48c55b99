# SPDX-License-Identifier: GPL-2.0
# record and info behave as strace and perf record users expect: the
# command's exit status, stop signals passed on to it, FILE.old, no file
# after a failed start, a live status on a terminal only, one usage line
# per option error, and one meaning of events and duration in every output.

# The span the way record's summary prints it (loader/record.c fmt_span).
fmt_span()
{
	awk -v ns="$1" 'BEGIN {
		if (ns < 1e6) printf "%.1f us", ns / 1e3
		else if (ns < 1e9) printf "%.2f ms", ns / 1e6
		else printf "%.3f s", ns / 1e9 }'
}

test_exit_status()
{
	need_bpf
	expect_exit 0 "$IOTRACE" record -o t.iot -- true
	expect_exit 1 "$IOTRACE" record -o t.iot -- false
	err_has "iotrace: false exited with status 1"
	expect_exit 7 "$IOTRACE" record -o t.iot -- sh -c 'exit 7'
	# killed by a signal: 128 + N, as a shell reports it
	expect_exit 137 "$IOTRACE" record -o t.iot -- sh -c 'kill -9 $$'
	err_has "killed by signal 9"
	# the recording of a command that failed is whole all the same
	eq "complete" "$("$IOTRACE" info t.iot | jq .complete)" true
	eq "its exit" "$(q t.iot '[.[] | select(.type == "exit" and .group_dead)] | length')" 1
}

# The first SIGINT or SIGTERM goes on to the command, which shows it got
# it; the recording ends when the command has exited, with its status.
test_signal_forwarded()
{
	need_bpf
	local sig rec
	for sig in INT TERM; do
		rm -f started got
		"$IOTRACE" record -o "$sig.iot" -- sh -c "trap 'echo $sig >got; exit 3' $sig
			echo up >started; while :; do sleep 0.05; done" 2>err &
		rec=$!
		wait_for started up 60
		kill -"$sig" $rec
		wait $rec
		eq "$sig: exit" $? 3
		eq "$sig: the command got it" "$(cat got)" "$sig"
		eq "$sig: complete" "$("$IOTRACE" info "$sig.iot" | jq .complete)" true
		eq "$sig: its exit traced" \
			"$(q "$sig.iot" '[.[] | select(.type == "exit" and .group_dead)] | length > 0')" true
	done
}

# A command that ignores the signal keeps the recording going; a second
# signal stops it at once, and the command goes on untraced.
test_second_signal_stops()
{
	need_bpf
	local rec child
	"$IOTRACE" record -o t.iot -- sh -c 'trap "" INT; echo "up $$" >started
		while :; do sleep 0.05; done' 2>err &
	rec=$!
	wait_for started up 60
	child=$(awk '{ print $2 }' started)
	kill -INT $rec
	sleep 1
	kill -0 $rec 2>/dev/null || { kill $child; fail "record stopped on the first signal"; }
	kill -INT $rec
	wait $rec
	eq "exit" $? 0
	kill -0 "$child" 2>/dev/null || fail "the command did not go on"
	kill "$child"
	grep -q "sh goes on, untraced" err || fail "no word of the command: $(cat err)"
	eq "complete" "$("$IOTRACE" info t.iot | jq .complete)" true
}

test_old_kept_and_force()
{
	need_bpf
	echo precious >t.iot
	"$IOTRACE" record -o t.iot -- true 2>err || fail "record exited $?"
	eq "kept" "$(cat t.iot.old)" precious
	grep -q "kept the previous t.iot as t.iot.old" err || fail "not said: $(cat err)"
	"$IOTRACE" info t.iot >/dev/null || fail "the new trace does not read"
	cp t.iot first.iot
	record -o t.iot -- true 2>/dev/null
	cmp -s t.iot.old first.iot || fail "the second recording did not keep the first"
	rm t.iot.old
	record -f -o t.iot -- true 2>/dev/null
	[ ! -e t.iot.old ] || fail "-f kept an .old"
	cmp -s t.iot first.iot && fail "-f did not replace the file"
	"$IOTRACE" info t.iot >/dev/null || fail "the forced trace does not read"
}

# A start that fails leaves no file, hidden or not, and the old one as it was.
test_failed_start_leaves_nothing()
{
	need_bpf
	expect_exit 1 "$IOTRACE" record -o new.iot -- /no/such/program
	[ ! -e new.iot ] || fail "a trace of a command that never ran"
	expect_exit 1 "$IOTRACE" record -o new.iot -p 999999999
	err_has "iotrace: no process 999999999"
	[ ! -e new.iot ] || fail "a trace of a process that does not exist"
	echo precious >t.iot
	expect_exit 1 "$IOTRACE" record -o t.iot -- /no/such/program
	eq "untouched" "$(cat t.iot)" precious
	[ ! -e t.iot.old ] || fail "moved aside for nothing"
	eq "stray files" "$(ls -A | grep -v -x -e t.iot -e out -e err -e .log)" ""
	command -v setpriv >/dev/null || skip "no setpriv"
	local np
	np=$(mktemp -d /tmp/iotrace-np.XXXXXX)
	chmod 777 "$np"
	expect_exit 1 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$IOTRACE" record -o "$np/t.iot" -- true
	local left
	left=$(ls -A "$np")
	rm -rf "$np"
	err_has "needs root, or CAP_BPF and CAP_PERFMON"
	eq "no file without privileges" "$left" ""
}

# On a terminal (a pty here) the status line is redrawn and then replaced by
# the summary; not on a file, and not with -q, which drops the summary too.
test_live_status()
{
	need_bpf
	command -v script >/dev/null || skip "no script(1)"
	sleep 60 &
	local sl=$!
	script -qec "'$IOTRACE' record -p $sl -o tty.iot --duration 1.5" /dev/null </dev/null \
		>pty.out 2>&1 || fail "record on a pty exited $?: $(cat -v pty.out)"
	grep -q "Ctrl-C to stop" pty.out || fail "no status on a terminal: $(cat -v pty.out)"
	# what follows the last erase is the summary
	eq "replaced by the summary" \
		"$(tr -d '\r' <pty.out | awk -F'\033\\[K' '{ print $NF }' | grep -c '^iotrace: tty.iot: .* events in ')" 1
	"$IOTRACE" record -p $sl -o file.iot --duration 1 2>err || fail "record exited $?"
	grep -q "Ctrl-C" err && fail "a status line in a file: $(cat -v err)"
	grep -q "events in" err || fail "no summary: $(cat err)"
	script -qec "'$IOTRACE' record -q -p $sl -o quiet.iot --duration 1" /dev/null </dev/null \
		>quiet.out 2>&1 || fail "record -q exited $?"
	kill $sl
	eq "-q on a terminal" "$(cat -v quiet.out)" ""
	"$IOTRACE" info quiet.iot >/dev/null || fail "record -q wrote no trace"
}

# One trace: the same events and duration in record's summary, info,
# analyze's header and --summary, and the replay report.
test_one_vocabulary()
{
	need_bpf
	mkdir w
	record -o t.iot -- "$PROGS/demo_workload" "$T/w" >/dev/null 2>rec.err
	local line ev span dur
	line=$(grep -E '^iotrace: t.iot: [0-9]+ events in ' rec.err) || fail "summary: $(cat rec.err)"
	ev=$(echo "$line" | sed -E 's/^iotrace: t.iot: ([0-9]+) events in .*/\1/')
	span=$(echo "$line" | sed -E 's/.* events in ([0-9.]+ [mu]?s),.*/\1/')
	"$IOTRACE" info t.iot >info.json
	eq "info events" "$(jq .events info.json)" "$ev"
	eq "info calls" "$(jq '[.calls[]] | add' info.json)" "$ev"
	dur=$(jq .duration_ns info.json)
	ge "duration" "$dur" 1
	eq "record's duration" "$span" "$(fmt_span "$dur")"
	"$IOTRACE" analyze t.iot --infer-causality -o t.jsonl || fail "analyze exited $?"
	eq "header events" "$(head -1 t.jsonl | jq .events)" "$ev"
	eq "event lines" "$(grep -c '"type":"event"' t.jsonl)" "$ev"
	eq "header duration" "$(head -1 t.jsonl | jq .duration_ns)" "$dur"
	eq "first ts" "$(jq -s '[.[] | select(.type == "event") | .ts] | min' t.jsonl)" 0
	eq "last end" "$(jq -s '[.[] | select(.type == "event") | .ts + .dur] | max' t.jsonl)" "$dur"
	eq "not truncated" "$(head -1 t.jsonl | jq .truncated)" null
	"$IOTRACE" analyze t.iot --summary --json >sum.json || fail "analyze --summary exited $?"
	eq "summary events" "$(jq .events sum.json)" "$ev"
	eq "summary duration" "$(jq .duration_ns sum.json)" "$dur"
	"$IOTRACE" replay t.jsonl --root root --afap --no-progress --report r.json 2>/dev/null ||
		fail "replay exited $?"
	eq "replay events" "$(jq .events r.json)" "$ev"
	eq "replay trace duration" "$(jq .trace_wall_ns r.json)" "$dur"
}

# A recorder killed with SIGKILL: whatever byte it stopped at, info and
# analyze say the trace is cut short.
test_sigkill_truncated()
{
	need_bpf
	sleep 60 &
	local sl=$! rec
	"$IOTRACE" record -q -p $sl -o t.iot 2>/dev/null &
	rec=$!
	recording_started t.iot
	sleep 1.5	# a flush, at most a second apart
	kill -KILL $rec
	wait $rec 2>/dev/null
	kill $sl
	"$IOTRACE" info t.iot >info.json 2>err || fail "info exited $?"
	eq "complete" "$(jq .complete info.json)" false
	eq "truncated" "$(jq .truncated info.json)" true
	grep -q "did not stop cleanly" info.json || fail "no reason: $(cat info.json)"
	grep -q "did not stop cleanly" err || fail "no warning: $(cat err)"
	"$IOTRACE" analyze t.iot -o t.jsonl 2>err || fail "analyze exited $?"
	grep -q "did not stop cleanly" err || fail "analyze said nothing: $(cat err)"
	head -1 t.jsonl | jq -e '.truncated | test("did not stop cleanly")' >/dev/null ||
		fail "header: $(head -1 t.jsonl | jq -c .truncated)"
}

# Every option error: one "iotrace: CMD: " line with the help hint, exit 2.
test_option_errors()
{
	local args
	while IFS= read -r args; do
		eval "expect_exit 2 \"\$IOTRACE\" $args"
		eq "$args: lines" "$(wc -l <"$T/err")" 1
		err_has "iotrace: ${args%% *}: "
		err_has "(see 'iotrace ${args%% *} --help')"
	done <<-'LIST'
		record --no-such-option
		record -x -- true
		record
		record -p
		record -p 0
		record -p 12abc
		record -p ,
		record -p 1 -- true
		record -b 3 -- true
		record -b 5000 -- true
		record -d -1 -- true
		record -d abc -- true
		record -o '' -- true
		info
		info -x t.iot
		info --frobnicate t.iot
		info a.iot b.iot
	LIST
	expect_exit 0 "$IOTRACE" record --help
	grep -q '^EXAMPLES:' "$T/out" || fail "record --help has no EXAMPLES"
	expect_exit 0 "$IOTRACE" info --help
	grep -q '^EXAMPLES:' "$T/out" || fail "info --help has no EXAMPLES"
}

# The EXAMPLES of record --help and info --help run as written.
test_help_examples()
{
	need_bpf
	mkdir bin
	ln -s "$IOTRACE" bin/iotrace
	local cmd line n=0
	for cmd in record info; do
		"$IOTRACE" $cmd --help | sed -n '/^EXAMPLES:/,$p' | sed -n 's/^  //p' >"ex-$cmd"
		ge "$cmd examples" "$(wc -l <"ex-$cmd")" 2
		while IFS= read -r line; do
			# a script, not bash -c, which would exec the one command and
			# make "$$" iotrace's own pid
			printf '%s\n' "$line" >"ex$n.sh"
			PATH="$T/bin:$PATH" bash "ex$n.sh" </dev/null >"ex$n.out" 2>"ex$n.err" ||
				fail "'$line' exited $?: $(cat "ex$n.err")"
			n=$((n + 1))
		done <"ex-$cmd"
	done
	for f in ls.iot shell.iot; do
		"$IOTRACE" info "$f" >/dev/null || fail "the examples made no $f"
	done
	grep -q '"execve"' ex*.out || fail "no info example printed the calls"
}

# The man pages are clean under mandoc's lint and name every option --help does.
test_man_pages()
{
	command -v mandoc >/dev/null || skip "no mandoc (make deps installs it)"
	local cmd page opt
	for cmd in record info; do
		page=$IOTRACE_ROOT/docs/man/iotrace-$cmd.1
		[ -f "$page" ] || fail "no $page"
		mandoc -T lint -W warning "$page" >lint.out 2>&1
		eq "$cmd lint" "$(cat lint.out)" ""
		for s in NAME SYNOPSIS DESCRIPTION OPTIONS 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
			grep -qE "^\.SH \"?$s\"?\$" "$page" || fail "$cmd: no section $s"
		done
		for opt in $("$IOTRACE" $cmd --help | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
			grep -qF -- "${opt//-/\\-}" "$page" || fail "$cmd: $opt missing from the man page"
		done
	done
}
