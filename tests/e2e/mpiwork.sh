# SPDX-License-Identifier: GPL-2.0
# //TRACE's MPI patterns on three hosts (issue 20): tests/progs/mpiio run by
# mpirun on three network-namespace hosts (scripts/netns-hosts.sh) against
# one directory they all see, recorded by one `iotrace record` per rank,
# the three traces merged by analyze, and the job replayed by mpirun on
# three ranks. The program logs its writes, reads, tokens and barriers:
# every call another rank's message or barrier put after a call of this
# one must be ordered after it in the merged trace, no cross-host dep may
# be one the bytes do not show, and the causal replay must fail no call.

ROUNDS=4
# what docs/replay.md tells a user recording Open MPI to set
MPI_MCA="--mca mpi_yield_when_idle 1"

need_mpiio()
{
	need_bpf
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v mpirun >/dev/null || skip "no mpirun (apt-get install openmpi-bin)"
	command -v ip >/dev/null || skip "no ip (iproute2)"
	[ -x "$PROGS/mpiio" ] || skip "no $PROGS/mpiio: built only where mpicc is (libopenmpi-dev)"
}

# record_job PATTERN: tr/HOST.iot of each rank, the logs in shared/log.R,
# merged into job.jsonl
record_job()
{
	mkdir -p shared tr
	# the rank's recorder names its trace after the host it runs on
	cat >rec.sh <<-EOF
	#!/bin/sh
	exec "$IOTRACE" record -q -o "$T/tr/\$(hostname).iot" -- "$PROGS/mpiio" "\$@"
	EOF
	chmod +x rec.sh
	"$IOTRACE_ROOT/scripts/netns-hosts.sh" 3 -- bash -c "\$NH_MPIRUN $MPI_MCA -np 3 \
		'$T/rec.sh' $1 '$T/shared' $ROUNDS '$T/shared/log'" >rec.out 2>&1 ||
		fail "the recorded run failed: $(tail -5 rec.out)"
	eq "traces" "$(ls tr/*.iot | wc -l)" 3
	"$IOTRACE" analyze --infer-causality tr/*.iot -o job.jsonl 2>analyze.err ||
		fail "analyze exited $?: $(cat analyze.err)"
	eq "hosts" "$(head -1 job.jsonl | jq '.hosts | length')" 3
	# each recorder's launch, before the first call it traced: a replay
	# starts the host there
	eq "hosts launched before their first call" "$(jq -s '.[0].hosts as $h
		| [.[1:][] | select(.type == "event")] | group_by(.host)
		| map(min_by(.ts)) | map(. as $e | $h[] | select(.name == $e.host
		and .launch_ns != null and .launch_ns < $e.ts)) | length' job.jsonl)" 3
}

# check_job: every logged ordering is in the merged trace, and no false edge
check_job()
{
	local want
	mpilog_want job.jsonl . shared/log.0 shared/log.1 shared/log.2 ||
		fail "a logged call has no event"
	want=$(wc -l <pairs)
	ge "orderings the logs imply" "$want" $ROUNDS
	eq "pairs to check" "$(jq length want.json)" "$want"
	ordered job.jsonl want.json || fail "a logged ordering across hosts is not in the merged trace"
	eq "false cross-host deps" "$(xhost_false_deps job.jsonl)" 0
	# MPI_Init's fence: each rank's wait for its daemon's answer follows
	# the other ranks' requests; the main thread's lazy wait for it ends
	# after the answer's read (analyze/barrier.c, analyze/spin.c)
	local bhosts bwaits bbad
	read -r bhosts bwaits bbad < <(xhost_barriers job.jsonl)
	eq "hosts a barrier joins" "$bhosts" 3
	ge "waits a barrier ends" "$bwaits" 3
	eq "barrier deps not after another host's request to its daemon" "$bbad" 0
	ge "lazy-wait loops ended by a call" "$(head -1 job.jsonl | jq .causality_stats.edges.spin)" 1
	echo "note: $want orderings across hosts from the logs, all in the merged trace;" \
		"$(head -1 job.jsonl | jq .causality_stats.edges_xhost) cross-host deps," \
		"$bwaits waits in barriers"
}

# replay_job: the causal replay across three ranks fails no call
replay_job()
{
	"$IOTRACE_ROOT/scripts/netns-hosts.sh" 3 -- bash -c "\$NH_MPIRUN -np 3 '$IOTRACE' -v replay \
		job.jsonl --root '$T/sb' --report '$T/r.json' --no-progress --stall-timeout 20" \
		>replay.out 2>&1 || fail "the replay failed: $(grep -v prepared replay.out | tail -8)"
	# every rank starts each host at its recorder's launch
	ge "hosts started at their launch" "$(grep -c "starts at its recorder's launch" replay.out)" 3
	# and ends the lazy-wait loops with their deps
	ge "ranks ending lazy-wait loops" "$(grep -c "lazy-wait loops end when" replay.out)" 1
	eq "ranks" "$(jq .ranks r.json)" 3
	eq "failed calls" "$(jq .failed r.json)" 0
	eq "short calls" "$(jq .short r.json)" 0
	# the merge's cross-host deps, each waited for: by a message, or carried
	# by the replayed connection between the ranks
	local deps
	deps=$(jq '[.hosts[].xhost | .deps + .carried] | add' r.json)
	ge "cross-host deps waited for" "$deps" $ROUNDS
	echo "note: replay $(jq '.wall_ns / 1e6 | floor' r.json) ms," \
		"$(jq .issued r.json) calls issued, $deps cross-host deps waited for," \
		"$(jq .xhost_waits r.json) by message"
}

mpi_pattern()
{
	need_mpiio
	record_job "$1"
	check_job
	replay_job
}

test_mpi_pseudo()
{
	mpi_pattern pseudo
}

test_mpi_pseudosync()
{
	mpi_pattern pseudosync
	# a barrier after each write: each rank's next write waits for all
	ge "orderings" "$(wc -l <pairs)" $((ROUNDS * 6))
}

test_mpi_fitness()
{
	mpi_pattern fitness
	# the tokens: 3 a round, less the last
	eq "tokens sent" "$(cat shared/log.* | grep -c '^send')" $((ROUNDS * 3 - 1))
	ge "token orderings" "$(wc -l <pairs)" $((ROUNDS * 3 - 1))
	# each token was polled for (Open MPI's progress loop): so was its read
	ge "reads polled for" "$(jq '[.hosts[].xhost.polled] | add' r.json)" $((ROUNDS * 3 - 1))
}
