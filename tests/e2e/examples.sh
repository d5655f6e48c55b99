# SPDX-License-Identifier: GPL-2.0
# The front door: the README's own example (record, info, dump, analyze,
# export, replay of `ls -l /tmp`), a trace that touches /, /tmp, /dev and
# /proc, every example of the README's analyze, export and replay sections
# and of the --help of iotrace, analyze, export and replay run as written,
# and the one-line answer to every kind of bad input on the command line.

# replay_ok JSONL ROOT ARGS...: a replay that exits 0 with 0 failed calls,
# its report in $T/r.json and its stderr in $T/replay.err.
replay_ok()
{
	local jsonl=$1

	replay "$@"
	shift 2
	eq "failed calls ($*)" "$(jq .failed "$T/r.json")" 0
	eq "events replayed ($*)" "$(jq .events "$T/r.json")" \
		"$(head -1 "$jsonl" | jq .events)"
	grep -q "^iotrace: replayed [0-9]* events .*: 0 failed" "$T/replay.err" ||
		fail "replay summary: $(cat "$T/replay.err")"
	# every skipped call has its reason
	eq "skipped calls with a reason ($*)" "$(jq '[.reasons[].skipped] | add // 0' "$T/r.json")" \
		"$(jq .skipped_total "$T/r.json")"
}

test_readme_ls()
{
	need_bpf
	"$IOTRACE" record -o ls.iot -- ls -l /tmp >ls.out 2>rec.err ||
		fail "record exited $?: $(cat rec.err)"
	grep -q '^total ' ls.out || fail "ls printed no listing: $(head -3 ls.out)"
	grep -q '^iotrace: ls.iot: [1-9][0-9]* events' rec.err || fail "summary: $(cat rec.err)"

	"$IOTRACE" info ls.iot >info.json || fail "info exited $?"
	ge "info: getdents64 calls" "$(jq '.calls.getdents64 // 0' info.json)" 1
	ge "info: processes" "$(jq .processes info.json)" 1
	"$IOTRACE" info ls.iot | jq -e '.calls | length > 0' >/dev/null || fail "info | jq .calls"

	"$IOTRACE" dump ls.iot >dump.txt || fail "dump exited $?"
	grep -q 'getdents64(' dump.txt || fail "dump has no getdents64 line"
	ge "dump --json: getdents64 records" \
		"$("$IOTRACE" dump --json ls.iot | jq -s 'map(select(.call == "getdents64")) | length')" 1

	"$IOTRACE" analyze ls.iot --infer-causality -o ls.jsonl || fail "analyze exited $?"
	eq "header causality" "$(head -1 ls.jsonl | jq .causality)" true
	ge "events in the annotated trace" "$(grep -c '"type":"event"' ls.jsonl)" 10
	"$IOTRACE" analyze ls.iot --summary >summary.txt || fail "analyze --summary exited $?"
	grep -q getdents64 summary.txt || fail "summary lacks getdents64"

	"$IOTRACE" export ls.iot -o ls.json || fail "export exited $?"
	ge "trace events exported" "$(jq '.traceEvents | map(select(.ph == "X")) | length' ls.json)" 10

	# ls -l stats / through its locale and nsswitch lookups: the root of the
	# trace's tree is the sandbox's root, never "created"
	replay_ok ls.jsonl sb --afap
	replay_ok ls.jsonl sb --natural
	[ -d sb/tmp ] || fail "sb/tmp was not prepared"
}

test_root_tmp_dev_proc()
{
	need_bpf
	local f=/tmp/iotrace-ex-$$.txt
	record -o sys.iot -- sh -c "stat / /tmp /dev /proc >/dev/null; ls / /tmp /dev >/dev/null;
		head -c 64 /dev/urandom >/dev/null; cat /proc/self/stat >/dev/null;
		echo x >$f; cat $f >/dev/null; rm $f" 2>/dev/null
	"$IOTRACE" analyze sys.iot --infer-causality -o sys.jsonl || fail "analyze exited $?"
	head -1 sys.jsonl | jq -e '.files | map(.path) | index("/tmp")' >/dev/null ||
		fail "the initial state lacks /tmp"
	for mode in --afap --natural; do
		rm -rf sb
		replay_ok sys.jsonl sb $mode
	done
	ge "calls skipped for a kernel path" "$(jq '.reasons.pseudo_fs.skipped // 0' "$T/r.json")" 1
	# the file the trace made and removed is not pre-created, and is gone again
	[ ! -e "sb$f" ] || fail "sb$f left behind"
	[ ! -e sb/proc/self ] || fail "the sandbox got a /proc/self"
}

# The README's record, info and dump examples, with what a test machine
# lacks put in, and nothing else changed: an "nginx" (bash under that name,
# opening a file ten times a second, so pgrep -o finds it unless a real one is
# older), two processes for "-p 1234,1240", 2 s for "--duration 30", and the
# traced shell's tid for "-t 4243".
test_readme_record_info_dump()
{
	need_bpf
	local n=0 line a b ng
	cp "$(command -v bash)" nginx
	./nginx -c 'for ((i = 0; i < 300; i++)); do cat /etc/hostname; sleep 0.1; done' \
		>/dev/null &
	ng=$!
	sleep 30 & a=$!
	sleep 30 & b=$!
	for sec in record info dump; do
		while IFS= read -r line; do
			line=${line//--duration 30/--duration 2}
			line=${line//1234,1240/$a,$b}
			line=${line//-t 4243/-t $ng}
			# ours: an older nginx of somebody else's may exit while recorded
			line=${line//'$(pgrep -o nginx)'/$ng}
			# "-p A,B --no-children" records until both end
			[[ $line == *"-p $a,$b"* ]] && (sleep 2; kill $a $b) &
			run_example "$line"
			n=$((n + 1))
		done < <(readme_examples $sec)
	done
	kill $ng 2>/dev/null
	ge "README record, info and dump examples run" "$n" 8
	jq -e '.events > 0' <("$IOTRACE" info nginx.iot) >/dev/null || fail "nginx.iot holds no events"
	[ "$(jq -e .events <("$IOTRACE" info ls.iot))" -gt 0 ] || fail "ls.iot holds no events"
}

# Runs each line as a shell would, in $T, with this build's iotrace first
# on PATH, and checks what it wrote.
run_example()
{
	local line=$1 out
	PATH="$BUILD:$PATH" bash -c "$line" >ex.out 2>ex.err || {
		cat ex.err >&2
		fail "example exited $?: $line"
	}
	out=$(sed -n 's/.* -o \([^ ]*\).*/\1/p' <<<"$line")
	case $out in
	*.jsonl) head -1 "$out" | jq -e '.type == "header"' >/dev/null || fail "$out: no header" ;;
	*.json) jq -e '.traceEvents | length > 0' "$out" >/dev/null || fail "$out: no events" ;;
	esac
	case $line in
	*"iotrace replay "*)
		grep -q "^iotrace: replayed [0-9]* events .*: 0 failed" ex.err ||
			fail "$line: $(cat ex.err)"
		;;
	*--summary*) grep -q '[0-9]' ex.out || fail "$line printed no figures" ;;
	"jq "*) [ -s ex.out ] || fail "$line printed nothing" ;;
	esac
	echo "ok: $line"
}

# db.iot, the file the analyze, export and replay examples start from: the
# demo workload, with threads, a pipe, a condvar and fsyncs.
db_trace()
{
	# record exits with the command's status: the workload needs its directory
	mkdir -p "$T/work"
	record -o db.iot -- "$PROGS/demo_workload" "$T/work" >/dev/null 2>&1
}

# The ```sh lines of README section "### NAME" that run iotrace or jq.
readme_examples()
{
	awk -v sec="### $1" '
		$0 == sec { in_sec = 1; next }
		/^##/ { in_sec = 0 }
		in_sec && /^```sh/ { code = 1; next }
		/^```/ { code = 0 }
		in_sec && code && /^(iotrace|jq) / { print }' "$IOTRACE_ROOT/README.md"
}

test_readme_examples()
{
	need_bpf
	local n=0 line
	db_trace
	for sec in analyze export replay; do
		while IFS= read -r line; do
			run_example "$line"
			n=$((n + 1))
		done < <(readme_examples $sec)
	done
	ge "README examples run" "$n" 10
}

test_help_examples()
{
	need_bpf
	local n=0 line cmd
	db_trace
	# each command's examples in a directory of their own: the top level's
	# replay of ls.jsonl and replay's of db.jsonl would share a root
	for cmd in iotrace analyze export replay version; do
		mkdir "$T/$cmd" && cd "$T/$cmd" && ln -s ../db.iot . || fail "mkdir $cmd"
		"$IOTRACE" ${cmd#iotrace} --help >help.txt || fail "iotrace $cmd --help exited $?"
		[ -s help.txt ] || fail "iotrace $cmd --help printed nothing on stdout"
		while IFS= read -r line; do
			run_example "$line"
			n=$((n + 1))
		done < <(sed -n '/^EXAMPLES:/,/^$/s/^  \(iotrace .*\)/\1/p' help.txt)
	done
	ge "--help examples run" "$n" 12
}

test_version()
{
	local v
	v=$(cat "$IOTRACE_ROOT/VERSION")
	expect_exit 0 "$IOTRACE" --version
	grep -q "^iotrace $v" "$T/out" || fail "--version: $(cat "$T/out")"
	grep -qE '^libbpf [0-9]+\.[0-9]+$' "$T/out" || fail "no libbpf line: $(cat "$T/out")"
	grep -qF "kernel Linux $(uname -r)" "$T/out" || fail "no kernel line: $(cat "$T/out")"
	[ -s "$T/err" ] && fail "--version wrote to stderr: $(cat "$T/err")"
	cp "$T/out" v1
	expect_exit 0 "$IOTRACE" version
	cmp -s v1 "$T/out" || fail "'version' and '--version' differ"
	expect_exit 0 "$IOTRACE" -V
	cmp -s v1 "$T/out" || fail "'-V' and '--version' differ"
	# make test builds first, so the binary is HEAD's (-dirty or not)
	if [ -e "$IOTRACE_ROOT/.git" ]; then
		grep -qF "(git $(git -C "$IOTRACE_ROOT" describe --always)" v1 ||
			fail "no git describe of HEAD: $(head -1 v1)"
	fi
	expect_exit 2 "$IOTRACE" version extra
	err_has "iotrace: version: takes no arguments"
}

# one_line CODE TEXT CMD...: CMD exits CODE with exactly one stderr line,
# which starts with "iotrace: " and contains TEXT, and never the help.
one_line()
{
	local code=$1 text=$2
	shift 2
	expect_exit "$code" "$@"
	eq "stderr lines of '$*'" "$(wc -l <"$T/err")" 1
	grep -q '^iotrace: ' "$T/err" || fail "'$*': $(cat "$T/err")"
	err_has "$text"
	grep -q Usage "$T/out" && fail "'$*' printed the help"
	return 0
}

test_bad_input()
{
	echo '{"type":"header","version":1}' >h.jsonl
	: >empty.iot
	one_line 2 "iotrace: no command given (see 'iotrace --help')" "$IOTRACE"
	one_line 2 "iotrace: unknown command 'frob' (see 'iotrace --help')" "$IOTRACE" frob
	one_line 2 "iotrace: unknown option '--frob' (see 'iotrace --help')" "$IOTRACE" --frob
	one_line 2 "iotrace: unknown option '-x'" "$IOTRACE" -x analyze t.iot
	for c in analyze export replay; do
		one_line 2 "iotrace: $c: unknown option '--frob' (see 'iotrace $c --help')" \
			"$IOTRACE" $c --frob t.iot
		one_line 2 "iotrace: $c: unknown option '-q'" "$IOTRACE" $c -q t.iot
		if [ $c = replay ]; then
			one_line 2 "iotrace: $c: option '--report' needs an argument" \
				"$IOTRACE" $c t.jsonl --root sb --report
		else
			one_line 2 "iotrace: $c: option '-o' needs an argument" "$IOTRACE" $c t.iot -o
		fi
		expect_exit 0 "$IOTRACE" $c --help
		grep -q "^Usage: iotrace $c" "$T/out" || fail "$c --help: not on stdout"
		[ -s "$T/err" ] && fail "$c --help wrote to stderr"
	done
	one_line 2 "iotrace: analyze: no trace file" "$IOTRACE" analyze
	one_line 1 "iotrace: a.iot: No such file or directory" "$IOTRACE" analyze a.iot b.iot
	one_line 2 "iotrace: analyze: --summary takes one trace and no --host-of" \
		"$IOTRACE" analyze a.iot b.iot --summary
	one_line 2 "iotrace: analyze: unknown rule in 'foo'" "$IOTRACE" analyze t.iot --rules foo
	one_line 2 "option '--rules' needs an argument" "$IOTRACE" analyze t.iot --rules
	one_line 2 "iotrace: analyze: --json goes with --summary" "$IOTRACE" analyze t.iot --json
	one_line 1 "iotrace: no-such.iot: No such file or directory" "$IOTRACE" analyze no-such.iot
	one_line 1 "iotrace: empty.iot: not an iotrace trace" "$IOTRACE" analyze empty.iot
	one_line 2 "iotrace: export: no trace file" "$IOTRACE" export
	one_line 2 "iotrace: export: unknown format 'svg' (known: chrome)" \
		"$IOTRACE" export t.iot --format svg
	one_line 1 "iotrace: no-such.iot: No such file or directory" "$IOTRACE" export no-such.iot
	one_line 2 "iotrace: replay: no annotated trace file" "$IOTRACE" replay --root sb
	one_line 2 "iotrace: replay: --root DIR is required" "$IOTRACE" replay h.jsonl
	one_line 2 "iotrace: replay: more than one annotated trace file" \
		"$IOTRACE" replay a.jsonl b.jsonl --root sb
	one_line 2 "iotrace: replay: --afap and --natural are exclusive" \
		"$IOTRACE" replay h.jsonl --root sb --afap --natural
	one_line 2 "iotrace: replay: --speed and --afap are exclusive" \
		"$IOTRACE" replay h.jsonl --root sb --speed 2 --afap
	one_line 2 "iotrace: replay: --speed wants a positive number, not 'fast'" \
		"$IOTRACE" replay h.jsonl --root sb --speed fast
	one_line 2 "iotrace: replay: unknown order 'random'" \
		"$IOTRACE" replay h.jsonl --root sb --order random
	one_line 2 "iotrace: replay: --stall-timeout wants seconds" \
		"$IOTRACE" replay h.jsonl --root sb --stall-timeout soon
	one_line 2 "iotrace: replay: --dev-root wants MAJ:MIN=DIR, not '8:0'" \
		"$IOTRACE" replay h.jsonl --root sb --dev-root 8:0
	one_line 1 "iotrace: no-such.jsonl: No such file or directory" \
		"$IOTRACE" replay no-such.jsonl --root sb
	[ -e sb ] && fail "a replay that could not start left its root behind"
	return 0
}

test_no_causality_warning()
{
	need_bpf
	db_trace
	"$IOTRACE" analyze db.iot -o plain.jsonl || fail "analyze exited $?"
	"$IOTRACE" replay plain.jsonl --root sb --no-progress 2>err1 || fail "replay exited $?"
	eq "warnings" "$(grep -c '^iotrace: warning: ' err1)" 1
	grep -q "^iotrace: warning: plain.jsonl has no causality.*'iotrace analyze TRACE" err1 &&
		grep -q -- "--infer-causality')$" err1 || fail "warning: $(cat err1)"
	# the baselines use no deps: nothing to warn about
	"$IOTRACE" replay plain.jsonl --root sb --no-progress --order temporal 2>err2 ||
		fail "replay --order temporal exited $?"
	grep -q 'warning' err2 && fail "--order temporal warned: $(cat err2)"
	"$IOTRACE" analyze db.iot --infer-causality -o causal.jsonl || fail "analyze exited $?"
	"$IOTRACE" replay causal.jsonl --root sb2 --no-progress 2>err3 || fail "replay exited $?"
	grep -q 'warning' err3 && fail "a causal trace warned: $(cat err3)"
	return 0
}

# The lines between .EX and .EE of a man page's EXAMPLES, unescaped as man
# prints them.
man_examples()
{
	awk '/^\.SH /{ ex = ($0 == ".SH EXAMPLES") } ex && /^\.EX/{ c = 1; next }
		/^\.EE/{ c = 0 } ex && c' "$1" | sed -e 's/\\-/-/g' -e "s/\\\\(aq/'/g"
}

test_man_pages()
{
	local page sec n=0
	command -v mandoc >/dev/null || skip "no mandoc (make deps installs it)"
	for page in iotrace iotrace-analyze iotrace-export iotrace-replay; do
		[ -f "$IOTRACE_ROOT/docs/man/$page.1" ] || fail "no docs/man/$page.1"
	done
	for page in "$IOTRACE_ROOT"/docs/man/*.1; do
		mandoc -T lint -W warning "$page" >lint.txt 2>&1 ||
			fail "mandoc -T lint ${page##*/}: $(cat lint.txt)"
		[ -s lint.txt ] && fail "mandoc -T lint ${page##*/}: $(cat lint.txt)"
		for sec in NAME SYNOPSIS DESCRIPTION "EXIT STATUS" EXAMPLES "SEE ALSO"; do
			grep -qx "\.SH \"\?$sec\"\?" "$page" || fail "${page##*/} has no $sec"
		done
		n=$((n + 1))
	done
	ge "man pages" "$n" 4
}

test_man_examples()
{
	need_bpf
	local page line n=0
	db_trace
	for page in iotrace iotrace-analyze iotrace-export iotrace-replay; do
		mkdir "$T/$page" && cd "$T/$page" && ln -s ../db.iot . || fail "mkdir $page"
		while IFS= read -r line; do
			case $line in
			*pgrep*nginx*) continue ;; # needs nginx: tests/e2e/services.sh attaches to it
			esac
			run_example "$line"
			n=$((n + 1))
		done < <(man_examples "$IOTRACE_ROOT/docs/man/$page.1")
	done
	ge "man page examples run" "$n" 14
}

# ls -l of a directory that holds what the initial state cannot copy: a
# fifo, a device node, symlinks to them and to nothing.  They are in the
# header with their types and exist in the sandbox as empty regular files,
# so every stat, xattr read and readlink of the listing replays.
test_ls_special_files()
{
	need_bpf
	mkdir d
	mkfifo d/fifo && mknod d/nul c 1 3 || fail "mkfifo, mknod"
	ln -s fifo d/tofifo && ln -s /nonexistent d/dangling && echo x >d/f
	record -o sp.iot -- ls -l "$T/d" >ls.out 2>/dev/null
	eq "entries listed" "$(grep -c '^[-lpc]' ls.out)" 5
	"$IOTRACE" analyze sp.iot --infer-causality -o sp.jsonl || fail "analyze exited $?"
	eq "types in the header" "$(head -1 sp.jsonl | jq -c --arg d "$T/d/" \
		'[.files[] | select(.path | startswith($d)) | .type] | sort')" \
		'["chr","fifo","file","symlink","symlink"]'
	replay_ok sp.jsonl sb --afap
	[ -f "sb$T/d/fifo" ] && [ ! -p "sb$T/d/fifo" ] || fail "the fifo's stand-in is not a file"
	[ -f "sb$T/d/nul" ] && [ ! -c "sb$T/d/nul" ] || fail "a device node in the sandbox"
	eq "dangling symlink" "$(readlink "sb$T/d/dangling")" /nonexistent
}
