# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/lib.sh: helpers shared by the parts of the benchmark harness.
# Sourced, not run: `. bench/lib.sh`. Callers use `set -euo pipefail`.

# log MSG...: progress on stderr, with the seconds since the script started,
# so stdout stays free for data.
log() { printf 'bench: [%4ds] %s\n' "$SECONDS" "$*" >&2; }

# have CMD: true if CMD is on PATH.
have() { command -v "$1" >/dev/null 2>&1; }

# prog_runs PID: "id name run_cnt run_time_ns" of each BPF program PID holds
# (run_cnt and run_time_ns count only while kernel.bpf_stats_enabled is 1).
prog_runs() {
	local id
	for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u); do
		bpftool prog show id "$id" --json |
			jq -r '"\(.id) \(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'
	done
}

# free_port: a TCP port no socket uses, below the ephemeral range (tests/e2e/lib.sh).
free_port() {
	local port=$((20000 + ($$ * 7 + RANDOM) % 12000)) i
	for ((i = 0; i < 200; i++)); do
		ss -Htan "sport = :$port" 2>/dev/null | grep -q . || { echo "$port"; return 0; }
		port=$((port + 1))
	done
	return 1
}

# until_ok SECS CMD...: CMD until it succeeds, for at most SECS seconds
until_ok() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		"${@:2}" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# median: median of the numbers on stdin, one a line; lines that are not
# numbers (failed runs are stored as "-") are ignored. Prints "-" if none.
median() {
	awk '/^-?[0-9.]+(e[-+]?[0-9]+)?$/' | sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "-"; exit }
			if (NR % 2) print v[(NR + 1) / 2]
			else print (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}

# median_se: standard error of the median of the numbers on stdin, the
# spread taken as 1.4826 x the median absolute deviation (one round in five
# can swing by 45% here, and would swamp a standard deviation) and the
# median's error as 1.2533 x spread / sqrt(n), as for a normal sample.
# Prints "-" for fewer than two numbers.
median_se() {
	local v m
	v=$(awk '/^-?[0-9.]+(e[-+]?[0-9]+)?$/')
	m=$(median <<<"$v")
	[ "$m" = - ] && { echo -; return; }
	awk -v m="$m" '{ d = $1 - m; print d < 0 ? -d : d }' <<<"$v" | median |
		awk -v n="$(wc -l <<<"$v")" '{ if (n < 2) print "-"; else print 1.2533 * 1.4826 * $1 / sqrt(n) }'
}

# SIGN_P: awk's sign_p(N, K), the two-sided sign test's p for K or more of
# N rounds on one side, at most 1
SIGN_P='function sign_p(n, k,  i, c, t) { c = 1
	for (i = 0; i <= n; i++) { if (i >= k) t += c; c = c * (n - i) / (i + 1) }
	t = 2 * t / 2 ^ n; return t > 1 ? 1 : t }'

# sign_test: the ratios on stdin (T_replay / T_app, one a round) against 1:
# "ABOVE BELOW P", the rounds above and below (a tie dropped) and the
# two-sided sign test's p, the chance that rounds of a replay no slower or
# faster than the application fall at least that unevenly
sign_test() {
	awk "$SIGN_P"'
		/^-?[0-9.]+(e[-+]?[0-9]+)?$/ { if ($1 > 1) a++; else if ($1 < 1) b++ }
		END { printf "%d %d %.4f\n", a, b, sign_p(a + b, a > b ? a : b) }'
}

# fmt DECIMALS VALUE: round a number for the tables; "-" passes through.
fmt() {
	case $2 in
	-|'') printf -- '-' ;;
	*) LC_ALL=C printf "%.${1}f" "$2" ;;
	esac
}

# ensure_tracefs: classic tracepoints (bpftrace, perf trace, iotrace's
# scheduler and page-cache hooks) need tracefs; mount it if it is missing.
ensure_tracefs() {
	if [ ! -e /sys/kernel/tracing/events ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
			log "could not mount tracefs on /sys/kernel/tracing"
	fi
}

# machine_info: a Markdown list describing where the figures come from.
machine_info() {
	local cpu mem
	cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "- Machine: $(nproc) CPUs (${cpu:-unknown model}), $mem RAM, host \`$(hostname)\`"
	echo "- Kernel: \`$(uname -r)\` ($(uname -m))"
	echo "- Load average when the report was written: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared; compare ratios, not absolutes)"
	# Another tracer's sys_enter/sys_exit programs run on every syscall of
	# the machine, the "untraced" runs included: say when there were any.
	if have bpftool; then
		local n
		n=$(bpftool prog show 2>/dev/null | grep -cE ': (tracing|raw_tracepoint|tracepoint) ' || true)
		echo "- BPF tracing programs loaded when the report was written: $n"
	fi
	# With bpf_stats on, the kernel times every BPF program run (two clock
	# reads per call): it inflates every BPF tracer's overhead.
	local st
	st=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null || echo '?')
	echo "- kernel.bpf_stats_enabled: $st$([ "$st" = 1 ] && echo ' (every BPF program run is timed, which adds to iotrace and bpftrace)')"
}

# doc_section FILE NAME CONTENT_FILE: replace what lies between
# "<!-- BEGIN NAME -->" and "<!-- END NAME -->" in FILE with CONTENT_FILE,
# or append the section, markers included, when FILE does not have it yet.
# Each part of the harness owns its own sections and leaves the others alone.
doc_section() {
	local file=$1 name=$2 content=$3 tmp
	tmp=$(mktemp "${file}.XXXXXX")
	if grep -qF "<!-- BEGIN $name -->" "$file" 2>/dev/null; then
		awk -v b="<!-- BEGIN $name -->" -v e="<!-- END $name -->" -v c="$content" '
			$0 == b { print; while ((getline l < c) > 0) print l; skip = 1; next }
			$0 == e { skip = 0 }
			!skip' "$file" >"$tmp"
	else
		{
			if [ -s "$file" ]; then cat "$file"; echo; fi
			echo "<!-- BEGIN $name -->"
			cat "$content"
			echo "<!-- END $name -->"
		} >"$tmp"
	fi
	chmod 644 "$tmp"
	mv "$tmp" "$file"
}

# bench_env [--quick]: BUILD (made absolute), IOTRACE and DOC, the same for
# every part of the harness, and MODE (quick or full) when given the
# arguments; ROOT must be set.
bench_env() {
	MODE=${MODE:-full}
	[ "${1:-}" = --quick ] && MODE=quick
	BUILD=${BUILD:-build}
	case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
	IOTRACE=$BUILD/iotrace
	DOC=${BENCH_DOC:-$ROOT/docs/BENCHMARKS.md}
}
