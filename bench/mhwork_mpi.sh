# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/mhwork_mpi.sh: bench/mhaccuracy.sh's MPI workloads (issue 20):
# //TRACE's Pseudo, PseudoSync and Fitness (tests/progs/mpiio), one rank on
# each of three namespace hosts, over Open MPI's TCP transport, each rank
# writing and reading its own file in $MH_DATA/shared, the directory every
# host sees. For each NAME of pseudo, pseudosync and fitness, as
# mhaccuracy.sh's contract asks:
#
#   mhw_NAME_app HOSTS...             run it; print its span in seconds
#   mhw_NAME_record OUTDIR HOSTS...   run it recorded: OUTDIR/HOST.iot per host
#   mhw_NAME_pairs OUTDIR             the orderings across hosts the ranks'
#                                     logs of the recorded run imply
#   mhw_NAME_found OUTDIR             how many of them the merged trace
#                                     OUTDIR/job.jsonl has
#
# called inside scripts/netns-hosts.sh (it uses $NH_MPIRUN); HOSTS are
# namespace names of $NH_HOSTS, one rank each, in that order. The span is
# from the first rank's start to the last rank's exit, each rank timed by a
# wrapper around its process, as its trace and its replay's timeline span
# it (the namespaces share the machine's clock). mh_ready, when defined,
# comes right before mpirun. Environment:
#   MH_DATA         the storage configuration's directory (mhaccuracy.sh)
#   MHW_DIR         where the ranks' files go (default $MH_DATA/shared, or
#                   a directory under /tmp without MH_DATA)
#   MHW_MPI_ROUNDS  64 KiB blocks each rank writes and reads (default 32
#                   with MODE=quick, else 128)
#   BUILD, IOTRACE  where build/progs/mpiio and iotrace are
# Each rank runs with --mca mpi_yield_when_idle 1, recorded or not, as
# docs/replay.md tells users recording Open MPI to, and logs what it did
# (tests/progs/mpiio's LOG), recorded or not, so that both do the same work.

MH_WORKLOADS+=" pseudo pseudosync fitness"
# shellcheck source=scripts/orderings.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/orderings.sh"
# shellcheck disable=SC2034 # read by mhaccuracy.sh
MHW_pseudo_HOSTS=3 MHW_pseudosync_HOSTS=3 MHW_fitness_HOSTS=3
MHW_MPI_MCA="--mca mpi_yield_when_idle 1"

# mhw_mpi_wrapper: a rank's wrapper script, made once: it times the rank's
# process and, recorded, runs it under iotrace record
mhw_mpi_wrapper()
{
	local iotrace=${IOTRACE:-${BUILD:-build}/iotrace} prog=${BUILD:-build}/progs/mpiio

	[ -x "$prog" ] || { echo "iotrace: mhwork_mpi: no $prog: make it where mpicc is" >&2; return 1; }
	if [ -z "${MHW_MPI_TMP:-}" ]; then
		MHW_MPI_TMP=$(mktemp -d "${TMP:-/tmp}/iotrace-mhw-mpi.XXXXXX") || return 1
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
	MHW_MPI_DIR=${MHW_DIR:-${MH_DATA:+$MH_DATA/shared}}
	MHW_MPI_DIR=${MHW_MPI_DIR:-$MHW_MPI_TMP/shared}
	mkdir -p "$MHW_MPI_DIR"
}

# mhw_mpi_run PATTERN OUTDIR|- HOSTS...: one run; prints the span in seconds
mhw_mpi_run()
{
	local pat=$1 out=$2 hosts spans log
	local rounds=${MHW_MPI_ROUNDS:-$([ "${MODE:-}" = quick ] && echo 32 || echo 128)}
	shift 2
	mhw_mpi_wrapper || return 1
	hosts=$(IFS=,; echo "$*")
	spans=$MHW_MPI_TMP/spans
	log=$([ "$out" = - ] && echo "$MHW_MPI_TMP" || echo "$out")/log
	rm -f "$spans".* "$log".*
	! type mh_ready >/dev/null 2>&1 || mh_ready
	# shellcheck disable=SC2086 # NH_MPIRUN and the MCA options are words
	$NH_MPIRUN $MHW_MPI_MCA --host "$hosts" -np $# "$MHW_MPI_TMP/rank" "$spans" "$out" \
		"$pat" "$MHW_MPI_DIR" "$rounds" "$log" >"$MHW_MPI_TMP/run.out" 2>&1 ||
		{ echo "iotrace: mhwork_mpi: $pat on $hosts failed: $(tail -3 "$MHW_MPI_TMP/run.out")" >&2; return 1; }
	[ "$(cat "$spans".* | wc -l)" -eq $# ] ||
		{ echo "iotrace: mhwork_mpi: $pat: not every rank said when it ran" >&2; return 1; }
	cat "$spans".* | awk 'NR == 1 || $1 < a { a = $1 } $2 > b { b = $2 }
		END { printf "%.6f\n", (b - a) / 1e9 }'
}

# mhw_mpi_pairs OUTDIR: the orderings across ranks in the recorded run's
# logs, as OUTDIR/pairs and OUTDIR/want.json; prints how many
mhw_mpi_pairs()
{
	mpilog_want "$1/job.jsonl" "$1" "$1"/log.* >&2 && wc -l <"$1/pairs"
}

# mhw_mpi_found OUTDIR: how many of them the merged trace orders
mhw_mpi_found()
{
	local missed
	missed=$(ordered "$1/job.jsonl" "$1/want.json" | grep -c '^not ordered') || true
	echo $(($(wc -l <"$1/pairs") - missed))
}

for _w in pseudo pseudosync fitness; do
	eval "mhw_${_w}_app() { mhw_mpi_run $_w - \"\$@\" || echo -; }"
	eval "mhw_${_w}_record() { local o=\$1; shift; mhw_mpi_run $_w \"\$o\" \"\$@\" >/dev/null; }"
	eval "mhw_${_w}_pairs() { mhw_mpi_pairs \"\$1\"; }"
	eval "mhw_${_w}_found() { mhw_mpi_found \"\$1\"; }"
done
unset _w
