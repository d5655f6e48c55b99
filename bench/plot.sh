#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# bench/plot.sh: the accuracy figures of docs/BENCHMARKS.md, with gnuplot.
#
#   bench/plot.sh cdf OUT.png ERRS MODE...
#       CDF of the replay error per mode (ARTC's Figure 7b); ERRS has one
#       "mode error_percent" line per measured workload and pair
#   bench/plot.sh timeline OUT.png ORIG REPLAY TITLE_ORIG TITLE_REPLAY
#       per-thread timeline of calls (ARTC's Figure 9), the original above
#       the replay; ORIG and REPLAY have "thread start_ms end_ms call" lines
set -euo pipefail

TERM_PNG="pngcairo size 900,560 font 'DejaVu Sans,11' noenhanced"

cdf() {
	local out=$1 errs=$2 dir m plots=() i=1
	shift 2
	dir=$(mktemp -d)
	for m in "$@"; do
		# Errors below 0.1% are drawn at 0.1%: the x axis is logarithmic.
		awk -v m="$m" '$1 == m { print ($2 < 0.1 ? 0.1 : $2) }' "$errs" | sort -g |
			awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], 100 * i / NR; if (NR) print v[NR] * 10, 100 }' \
				>"$dir/$m"
		[ -s "$dir/$m" ] && plots+=("'$dir/$m' using 1:2 with steps lw 2 dt $i title '$m'")
		i=$((i + 1))
	done
	[ ${#plots[@]} -gt 0 ] || { rm -rf "$dir"; return 0; }
	gnuplot <<-EOF
		set terminal $TERM_PNG
		set output '$out'
		set title 'Replay error across storage configurations (CDF over workloads and pairs)'
		set xlabel 'error |T_replay - T_app| / T_app (%), log scale'
		set ylabel 'workloads x pairs with at most this error (%)'
		set logscale x
		set xrange [0.1:1000]
		set yrange [0:100]
		set grid
		set key bottom right
		plot $(IFS=,; echo "${plots[*]}")
	EOF
	rm -rf "$dir"
}

timeline() {
	local out=$1 orig=$2 repl=$3 t1=$4 t2=$5 xmax nth
	xmax=$(cat "$orig" "$repl" | awk '$3 > m { m = $3 } END { print m * 1.02 }')
	nth=$(cat "$orig" "$repl" | awk '$1 > m { m = $1 } END { print m + 1 }')
	# One segment per call, coloured by call; futex and other calls thin and
	# below, so the I/O calls stay visible on top of them.
	gnuplot <<-EOF
		set terminal pngcairo size 1000,$((260 + 60 * nth * 2)) font 'DejaVu Sans,10' noenhanced
		set output '$out'
		set multiplot layout 2,1
		set xrange [0:$xmax]
		set yrange [-0.6:$nth - 0.4]
		set ytics 1
		set ylabel 'thread'
		set grid xtics
		set key outside right
		io(c) = (c eq 'pread64' || c eq 'read') ? 1 : (c eq 'pwrite64' || c eq 'write') ? 2 : \
			(c eq 'fdatasync' || c eq 'fsync') ? 3 : (c eq 'futex') ? 4 : 5
		do for [f in "$orig $repl"] {
			set title (f eq '$orig' ? '$t1' : '$t2')
			set xlabel 'ms from the first call'
			plot for [i=1:5] f using 2:(io(strcol(4)) == word('4 5 1 2 3', i) + 0 ? \$1 : 1/0):(\$3 - \$2):(0) \
				with vectors nohead lw (i <= 2 ? 3 : 9) lc word('4 5 1 2 3', i) + 0 \
				title word('futex other read write sync', i)
		}
		unset multiplot
	EOF
}

case ${1:-} in
cdf) shift && cdf "$@" ;;
timeline) shift && timeline "$@" ;;
*)
	sed -n '3,12p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
	;;
esac
