# SPDX-License-Identifier: GPL-2.0
# Helpers the end-to-end tests share; sourced by tests/run_e2e.sh together
# with one test file.  Each test runs in a fresh shell, in its scratch
# directory $T, and fails on the first failed check.

set -uo pipefail

PROGS=$BUILD/progs

# skip REASON: exit 77, or fail under CI=true where nothing may be skipped.
skip()
{
	if [ "${CI:-}" = true ]; then
		echo "FAIL (CI=true does not skip): $*"
		exit 1
	fi
	echo "$*"
	exit 77
}

fail()
{
	echo "check failed: $*" >&2
	exit 1
}

. "$IOTRACE_ROOT/scripts/mounts.sh"
. "$IOTRACE_ROOT/scripts/orderings.sh"

# need_bpf: root, /proc, /sys, tracefs (mounted here in a chroot) and BTF, or skip.
need_bpf()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root for BPF"
	ensure_mounts 2>/dev/null || skip "cannot mount /proc, /sys or tracefs"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF"
}

# eq WHAT GOT WANT
eq()
{
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

# ge WHAT GOT MIN
ge()
{
	[ "$2" -ge "$3" ] 2>/dev/null || fail "$1: got '$2', want >= $3"
}

# expect_exit CODE CMD...: runs CMD, stderr to $T/err, checks its exit code.
expect_exit()
{
	local want=$1 rc
	shift
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" -eq "$want" ] || {
		cat "$T/err" >&2
		fail "'$*' exited $rc, want $want"
	}
}

# err_has TEXT: the last command's stderr contains TEXT.
err_has()
{
	grep -qF -- "$1" "$T/err" || {
		cat "$T/err" >&2
		fail "stderr lacks '$1'"
	}
}

# json TRACE: dump --json of a trace to stdout.
json()
{
	"$IOTRACE" dump --json "$1"
}

# q TRACE JQ-FILTER: jq -s over the records of a trace, raw output.
q()
{
	"$IOTRACE" dump --json "$1" | jq -rs "$2"
}

# kv FILE KEY [SELECT]: value of KEY= on the first line of FILE matching SELECT.
kv()
{
	grep -m1 -- "${3:-$2=}" "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# record ARGS...: iotrace record, failing the test when it fails.
record()
{
	"$IOTRACE" record "$@" || fail "iotrace record $* exited $?"
}

# wait_for FILE TEXT [SECONDS]: until FILE contains TEXT.
wait_for()
{
	local i
	for ((i = 0; i < ${3:-10} * 20; i++)); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	fail "'$2' never appeared in $1"
}

# free_port: a TCP port no socket uses, listening or connected, derived from
# $$ so that tests running at the same time start from different places;
# below the ephemeral range (32768-), where a client's or a replay's
# connection may take it between this check and the server's bind.
free_port()
{
	local port=$((20000 + ($$ * 7 + RANDOM) % 12000)) i
	for ((i = 0; i < 200; i++)); do
		ss -Htan "sport = :$port" 2>/dev/null | grep -q . || { echo $port; return; }
		port=$((port + 1))
	done
	fail "no free port"
}

# recording_started TRACE [SECONDS]: until record has attached.  The trace
# file gets its name only then (loading the programs can take seconds on a
# loaded machine).
recording_started()
{
	local i
	for ((i = 0; i < ${2:-60} * 20; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	fail "the recording of $1 never started"
}

# reaches JSONL FROM TO: event TO is ordered after event FROM in the
# annotated trace, through deps and same-thread order.  Exit 0 or 1.
reaches()
{
	jq -se --argjson a "$2" --argjson b "$3" '
		map(select(.type == "event")) as $ev
		| (reduce $ev[] as $e ({}; .[$e.id | tostring] = [$e.deps[].id])) as $deps
		| (reduce $ev[] as $e ({}; .[$e.tid | tostring] += [$e.id])) as $bytid
		| (reduce ($bytid | to_entries[]) as $t ({};
			reduce range(1; $t.value | length) as $i (.;
				.[$t.value[$i] | tostring] = [$t.value[$i - 1]]))) as $prev
		| def back($seen; $front):
			if ($front | length) == 0 then $seen
			else ($front | map(($deps[tostring] // []) + ($prev[tostring] // []))
				| add // [] | unique
				| map(select($seen[tostring] | not))) as $n
			| back($seen + ($n | map({key: tostring, value: true}) | from_entries); $n)
			end;
		back({($b | tostring): true}; [$b]) | has($a | tostring)' "$1" >/dev/null
}

# fdreuse_reads_right TRACE: in TRACE of tests/progs/fdreuse (run on $T/d),
# eight reads a tag, each naming the file fstat named, a regular file.
fdreuse_reads_right()
{
	q "$1" '.[] | select(.type == "syscall" and .call == "pread64" and .args[2] == 1) |
		"\(.args[3]) \(.fds[0].ino) \(.fds[0].dev) \(.fds[0].flags % 4) \(.fds[0].type)"' >got
	while read -r tag ino dev acc; do
		eq "reads of tag $tag" "$(awk -v t="$tag" '$1 == t' got | sort -u)" "$tag $ino $dev $acc 1"
		eq "read count of tag $tag" "$(awk -v t="$tag" '$1 == t' got | wc -l)" 8
	done <d/expect
	eq "reads" "$(grep -c '' got)" "$(($(grep -c '' d/expect) * 8))"
}

# ev JSONL JQ-SELECT: ids of the events matching the select expression.
ev()
{
	jq -c "select(.type == \"event\" and ($2)) | .id" "$1"
}

# replay JSONL ROOT ARGS...: iotrace replay with a report in $T/r.json.
replay()
{
	local jsonl=$1 root=$2
	shift 2
	"$IOTRACE" replay "$jsonl" --root "$root" --report "$T/r.json" --no-progress "$@" \
		2>"$T/replay.err" || {
		cat "$T/replay.err" >&2
		fail "iotrace replay $jsonl $* exited $?"
	}
}
