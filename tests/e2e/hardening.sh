# SPDX-License-Identifier: GPL-2.0
# Hardening: the sandbox without openat2, and the replayer under valgrind.

# The crafted trace of replay/escape_refused, with paths walked by hand
# (resolve.c) instead of openat2: nothing may land outside the root either.
test_escape_refused_without_openat2()
{
	. "$IOTRACE_ROOT/tests/e2e/replay.sh"
	IOTRACE_NO_OPENAT2=1 test_escape_refused
}

# Recorded traces of threads that share files, pipes, sockets, a condvar and a
# barrier replay with no memory error and no leak under valgrind's memcheck.
# valgrind does not know openat2, so this also runs the hand walk for real.
test_replay_under_valgrind()
{
	need_bpf
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	mkdir d i
	record -o f.iot -- "$PROGS/fileio" "$T/d" 2 >/dev/null
	record -o i.iot -- "$PROGS/ipc" "$T/i" >/dev/null
	record -o s.iot -- "$PROGS/sync" token "$T" >/dev/null
	local t mode
	for t in f i s; do
		"$IOTRACE" analyze "$t.iot" --infer-causality -o "$t.jsonl" ||
			fail "analyze $t.iot exited $?"
		for mode in --afap --natural; do
			rm -rf "root-$t"
			valgrind -q --error-exitcode=99 --leak-check=full \
				--errors-for-leak-kinds=definite,indirect \
				"$IOTRACE" replay "$t.jsonl" --root "root-$t" $mode --no-progress \
				--report "r-$t.json" 2>"vg-$t.err" ||
				fail "valgrind replay $t $mode exited $?: $(grep -v WARNING "vg-$t.err" | head -20)"
			eq "$t $mode failed calls" "$(jq .failed "r-$t.json")" 0
			ge "$t $mode events" "$(jq .events "r-$t.json")" 10
		done
	done
}
