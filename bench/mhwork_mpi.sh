# SPDX-License-Identifier: GPL-2.0
# bench/mhaccuracy.sh's MPI workloads (issue 20): //TRACE's Pseudo,
# PseudoSync and Fitness (tests/progs/mpiio), one rank on each of the
# namespace hosts, over Open MPI's TCP transport. Sourced; for each NAME of
# pseudo, pseudosync and fitness it defines
#
#   mhw_NAME_app HOSTS...             run it; print its span in seconds
#   mhw_NAME_record OUTDIR HOSTS...   run it recorded: OUTDIR/HOST.iot per host
#
# to be called inside scripts/netns-hosts.sh (it uses $NH_MPIRUN); HOSTS are
# namespace names of $NH_HOSTS, one rank each, in that order. The span is
# from the first rank's start to the last rank's exit, each rank timed by a
# wrapper around its process, as its trace spans it (the namespaces share
# the machine's clock). Environment:
#   MHW_DIR         the directory every host sees, where the ranks write
#                   their files (default: one under /tmp, made on first use)
#   MHW_MPI_ROUNDS  64 KiB blocks each rank writes and reads (default 64)
#   BUILD, IOTRACE  where build/progs/mpiio and iotrace are
# Each rank runs with --mca mpi_yield_when_idle 1, recorded or not, as
# docs/replay.md tells users recording Open MPI to.

MHW_MPI_MCA="--mca mpi_yield_when_idle 1"

# mhw_mpi_wrapper: a rank's wrapper script, made once: it times the rank's
# process and, recorded, runs it under iotrace record
mhw_mpi_wrapper()
{
	local iotrace=${IOTRACE:-${BUILD:-build}/iotrace} prog=${BUILD:-build}/progs/mpiio

	[ -x "$prog" ] || { echo "iotrace: mhwork_mpi: no $prog: make it where mpicc is" >&2; return 1; }
	if [ -z "${MHW_MPI_TMP:-}" ]; then
		MHW_MPI_TMP=$(mktemp -d /tmp/iotrace-mhw-mpi.XXXXXX) || return 1
		iotrace=$(realpath "$iotrace") prog=$(realpath "$prog")
		# WRAPPER SPANS OUTDIR|- ARGS...: the rank's start and exit in SPANS.HOST
		cat >"$MHW_MPI_TMP/rank" <<-EOF
		#!/bin/sh
		spans=\$1 out=\$2
		shift 2
		t0=\$(date +%s%N)
		if [ "\$out" = - ]; then
			"$prog" "\$@" >/dev/null
		else
			"$iotrace" record -q -f -o "\$out/\$(hostname).iot" -- "$prog" "\$@" >/dev/null
		fi
		rc=\$?
		echo "\$t0 \$(date +%s%N)" >"\$spans.\$(hostname)"
		exit \$rc
		EOF
		chmod +x "$MHW_MPI_TMP/rank"
	fi
	if [ -z "${MHW_DIR:-}" ]; then
		MHW_DIR=$MHW_MPI_TMP/shared
		mkdir -p "$MHW_DIR"
	fi
}

# mhw_mpi_run PATTERN OUTDIR|- HOSTS...: one run; prints the span in seconds
mhw_mpi_run()
{
	local pat=$1 out=$2 hosts spans
	shift 2
	mhw_mpi_wrapper || return 1
	hosts=$(IFS=,; echo "$*")
	spans=$MHW_MPI_TMP/spans
	rm -f "$spans".*
	# shellcheck disable=SC2086 # NH_MPIRUN and the MCA options are words
	$NH_MPIRUN $MHW_MPI_MCA --host "$hosts" -np $# "$MHW_MPI_TMP/rank" "$spans" "$out" \
		"$pat" "$MHW_DIR" "${MHW_MPI_ROUNDS:-64}" ||
		{ echo "iotrace: mhwork_mpi: $pat on $hosts failed" >&2; return 1; }
	[ "$(cat "$spans".* | wc -l)" -eq $# ] ||
		{ echo "iotrace: mhwork_mpi: $pat: not every rank said when it ran" >&2; return 1; }
	cat "$spans".* | awk 'NR == 1 || $1 < a { a = $1 } $2 > b { b = $2 }
		END { printf "%.6f\n", (b - a) / 1e9 }'
}

for _w in pseudo pseudosync fitness; do
	eval "mhw_${_w}_app() { mhw_mpi_run $_w - \"\$@\"; }"
	eval "mhw_${_w}_record() { local o=\$1; shift; mhw_mpi_run $_w \"\$o\" \"\$@\" >/dev/null; }"
done
unset _w
