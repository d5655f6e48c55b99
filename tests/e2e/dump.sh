# SPDX-License-Identifier: GPL-2.0
# iotrace dump against strace: the same program's calls read the same where
# the two can agree (names, decoded flags and constants, strings, return
# values, errno names), the lines come in time order, and filters and bad
# input behave.

# The calls the traced process made between the markers as strace printed
# them, in iotrace's spelling of what it does not keep: buffers as ..., no
# pid, single spaces before " = ", a call a child's lines cut in two joined.
strace_calls()
{
	local names pid
	# only the calls iotrace records: the table's names
	names=$(grep -o '^	{ "[a-z0-9_]*", SYS_' "$IOTRACE_ROOT/lib/syscalls.c" |
		cut -d'"' -f2 | paste -sd'|')
	pid=$(grep -m1 'access(".*/begin"' "$1" | cut -d' ' -f1)
	sed -n '/access(".*\/begin"/,/access(".*\/end"/p' "$1" | grep "^$pid " |
		sed -E 's/^[0-9]+ +//; s/\) +=  */) = /' |
		awk '/ <unfinished \.\.\.>$/ {sub(/ <unfinished \.\.\.>$/, ""); held = $0; next}
		     /^<\.\.\. [a-z0-9_]+ resumed>/ {sub(/^<\.\.\. [a-z0-9_]+ resumed> ?/, ""); $0 = held $0}
		     {print}' |
		grep -E "^($names)\(" |
		sed -E 's/^((p?read|p?write)(64)?)\(([0-9]+), "([^"\\]|\\.)*"(\.\.\.)?, /\1(\4, ..., /' |
		sed -E 's/^wait4\(([0-9]+), \[\{[^]]*\}\], /wait4(\1, ..., /'
}

# The child's pid differs from run to run.
child_pids()
{
	sed -E 's/^(clone\(.*) = [0-9]+$/\1 = CHILD/; s/^wait4\([0-9]+, (.*) = [0-9]+$/wait4(CHILD, \1 = CHILD/'
}

# dump's lines between the markers, without pid, tid and fd names.
dump_calls()
{
	"$IOTRACE" dump --time none -p "$2" "$1" |
		sed -n '/access(".*\/begin"/,/access(".*\/end"/p' |
		sed -E 's/^ *[0-9]+ +[0-9]+ //; s/([0-9])<[^>]*>/\1/g' |
		grep -v -e '^---' -e '^+++' -e '^#'
}

addresses()
{
	sed -E 's/0x[0-9a-f]{6,}/ADDR/g'
}

test_golden_against_strace()
{
	need_bpf
	command -v strace >/dev/null || skip "strace is not installed"
	mkdir s i
	strace -f -qq -o strace.txt "$PROGS/dumpcalls" calls "$T/s" ||
		fail "dumpcalls under strace exited $?"
	record -o t.iot -- "$PROGS/dumpcalls" calls "$T/i"
	strace_calls strace.txt | sed "s|$T/s/|DIR/|g" | addresses | child_pids >want
	dump_calls t.iot "$(q t.iot '[.[] | select(.type == "target")][0].pid')" |
		sed "s|$T/i/|DIR/|g" | addresses | child_pids >got
	ge "calls compared" "$(grep -c '' want)" 40
	diff -u want got || fail "dump and strace disagree (- strace, + dump)"
	# what the comparison is made of, spelled as strace spells it
	for line in 'openat(AT_FDCWD, "DIR/f", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0640) = 3' \
		'socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3' \
		'openat(AT_FDCWD, "DIR/missing", O_RDONLY) = -1 ENOENT (No such file or directory)' \
		'futex(ADDR, FUTEX_WAIT_PRIVATE, 1, NULL) = -1 EAGAIN (Resource temporarily unavailable)' \
		'pread64(3, ..., 64, 2) = 64' \
		'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=ADDR) = CHILD' \
		'wait4(CHILD, ..., 0, NULL) = CHILD'; do
		grep -qxF -- "$line" got || fail "dump lacks: $line"
	done
}

# Four threads' calls, written per CPU batch, come out by time.
test_time_order()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/dumpcalls" threads "$T/d"
	"$IOTRACE" dump t.iot >out || fail "dump exited $?"
	ge "threads" "$(awk '/pwrite64/ {print $2}' out | sort -u | grep -c '')" 4
	ge "lines" "$(grep -c '' out)" 800
	awk 'NR > 1 && $3 < prev {print "line " NR ": " $3 " after " prev; bad = 1}
	     {prev = $3} END {exit bad}' out || fail "dump lines go back in time"
	# the JSON lines too, and the same records
	"$IOTRACE" dump --json t.iot | jq -r .ts >ts
	sort -n -c ts || fail "dump --json goes back in time"
	eq "records" "$(grep -c '' ts)" "$(grep -c '' out)"
}

test_filters()
{
	need_bpf
	mkdir d
	record -o t.iot -- "$PROGS/dumpcalls" threads "$T/d"
	local tid
	"$IOTRACE" dump -e trace=openat,close t.iot >out || fail "dump -e exited $?"
	eq "only open and close" "$(grep -vE '^ *[0-9]+ +[0-9]+ +[0-9.]+ (openat|close)\(|---|\+\+\+' out)" ""
	ge "opens" "$(grep -c ' openat(' out)" 4
	eq "no scheduler lines" "$(grep -c -e 'woken by' -e 'off cpu' out)" 0
	"$IOTRACE" dump -e 'trace=!pwrite64' t.iot >out || fail "dump -e ! exited $?"
	eq "no pwrite64" "$(grep -c 'pwrite64(' out)" 0
	"$IOTRACE" dump -e trace=%desc t.iot >out || fail "dump -e %desc exited $?"
	ge "pwrite64 is %desc" "$(grep -c 'pwrite64(' out)" 800
	tid=$(awk '/pwrite64/ {print $2; exit}' out)
	"$IOTRACE" dump -t "$tid" -e pwrite64 -T --time delta t.iot >out || fail "dump -t exited $?"
	eq "one thread" "$(awk '{print $2}' out | sort -u)" "$tid"
	eq "its pwrites" "$(grep -c 'pwrite64(' out)" 200
	grep -qE '= 512 <[0-9]+\.[0-9]{6}>$' out || fail "-T adds no duration"
	"$IOTRACE" dump --time abs -e pwrite64 t.iot | grep -m1 pwrite64 >out
	grep -qE '^ *[0-9]+ +[0-9]+ [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} pwrite64\(' out ||
		fail "--time abs is not HH:MM:SS.us: $(cat out)"
	"$IOTRACE" dump --time none -e pwrite64 t.iot | grep -m1 pwrite64 >out
	grep -qE '^ *[0-9]+ +[0-9]+ pwrite64\([0-9]+</' out || fail "--time none: $(cat out)"
	"$IOTRACE" dump -v -e pwrite64 t.iot | grep -m1 pwrite64 >out
	grep -qE 'pwrite64\([0-9]+<[^>]*>, 0x[0-9a-f]+, 512, 0\) = 512' out || fail "-v: $(cat out)"
}

# execve's argv as strace prints it, and the envp count the caller passed.
test_execve_argv()
{
	local args line
	need_bpf
	command -v strace >/dev/null || skip "strace is not installed"
	args=(/bin/echo one "two words" 'q"uote' 'tab	x' "")
	strace -f -qq -s 256 -o strace.txt env -i A=1 B=2 C=3 "${args[@]}" >/dev/null ||
		fail "env under strace exited $?"
	record -o t.iot -- env -i A=1 B=2 C=3 "${args[@]}" >/dev/null
	grep -F 'execve("/bin/echo"' strace.txt | sed -E 's/^[0-9]+ +//; s/0x[0-9a-f]+ \/\*/\/*/' >want
	"$IOTRACE" dump --time none t.iot | grep -F 'execve("/bin/echo"' |
		sed -E 's/^ *[0-9]+ +[0-9]+ //' >got
	eq "one exec of echo" "$(grep -c '' want)" 1
	diff -u want got || fail "dump and strace disagree on argv (- strace, + dump)"
	grep -qF '/* 3 vars */' got || fail "envp count is not 3: $(cat got)"
	# more than the 16 kept: the 16 first, then ...
	record -o long.iot -- env -i /bin/true $(seq 1 20)
	line=$("$IOTRACE" dump long.iot | grep -F 'execve("/bin/true"')
	case "$line" in
	*'["/bin/true", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", ...], /* 0 vars */) = 0') ;;
	*) fail "long argv: $line" ;;
	esac
	# no arrays, and arrays that cannot be read, as strace spells them
	strace -qq -o strace.txt "$PROGS/dumpcalls" execs "$T" || fail "execs under strace exited $?"
	record -o bad.iot -- "$PROGS/dumpcalls" execs "$T"
	grep -F 'execve("'"$T"'/missing"' strace.txt | sed -E 's/ +=  */ = /' >want
	"$IOTRACE" dump --time none bad.iot | grep -F 'execve("'"$T"'/missing"' |
		sed -E 's/^ *[0-9]+ +[0-9]+ //' >got
	eq "two failed execs" "$(grep -c '' want)" 2
	diff -u want got || fail "dump and strace disagree on missing arrays (- strace, + dump)"
	# execveat's path is its second argument
	grep -F 'execveat(AT_FDCWD, "'"$T"'/missing"' strace.txt | sed -E 's/ +=  */ = /' >want
	"$IOTRACE" dump --time none bad.iot | grep -F 'execveat(' | sed -E 's/^ *[0-9]+ +[0-9]+ //' >got
	eq "one failed execveat" "$(grep -c '' want)" 1
	diff -u want got || fail "dump and strace disagree on execveat (- strace, + dump)"
	"$IOTRACE" dump -v long.iot | grep -qE 'execve\("/bin/true", \[.*\], 0x[0-9a-f]+ /\* 0 vars \*/\) = 0' ||
		fail "-v does not show envp's address"
}

test_bad_input()
{
	: >empty
	echo 'not a trace' >text
	expect_exit 2 "$IOTRACE" dump -t abc x.iot
	err_has "iotrace: dump: TID 'abc' is not a positive number (see 'iotrace dump --help')"
	eq "one line" "$(grep -c '' "$T/err")" 1
	expect_exit 2 "$IOTRACE" dump -p 12x x.iot
	err_has "iotrace: dump: PID '12x'"
	expect_exit 2 "$IOTRACE" dump -e trace=openat,nosuchcall x.iot
	err_has "iotrace: dump: -e trace: 'nosuchcall' is not a call iotrace records"
	expect_exit 2 "$IOTRACE" dump -e trace=%bogus x.iot
	err_has "unknown class '%bogus'"
	expect_exit 2 "$IOTRACE" dump -e signal=all x.iot
	err_has "only trace=SET"
	expect_exit 2 "$IOTRACE" dump --time later x.iot
	err_has "iotrace: dump: --time 'later'"
	expect_exit 2 "$IOTRACE" dump --bogus x.iot
	err_has "iotrace: dump: unknown option '--bogus'"
	expect_exit 2 "$IOTRACE" dump
	err_has "iotrace: dump: no trace file given"
	expect_exit 2 "$IOTRACE" dump a.iot b.iot
	err_has "one trace file at a time"
	expect_exit 1 "$IOTRACE" dump no-such-file.iot
	err_has "iotrace: no-such-file.iot: No such file or directory"
	for f in empty text; do
		expect_exit 1 "$IOTRACE" dump $f
		err_has "iotrace: $f: not an iotrace trace"
		eq "one line" "$(grep -c '' "$T/err")" 1
	done
	expect_exit 0 "$IOTRACE" dump --help
	grep -q -- '--time' "$T/out" || fail "--help does not list --time"
}

test_man_page()
{
	command -v mandoc >/dev/null || skip "mandoc is not installed"
	mandoc -T lint -W warning "$IOTRACE_ROOT/docs/man/iotrace-dump.1" ||
		fail "mandoc -T lint finds fault with iotrace-dump.1"
	# the options --help lists are the ones the page explains
	for opt in --json -e -p -t --time -T -v; do
		grep -qF -- "${opt//-/\\-}" "$IOTRACE_ROOT/docs/man/iotrace-dump.1" ||
			fail "the man page lacks $opt"
	done
}
