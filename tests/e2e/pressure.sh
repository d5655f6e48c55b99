# SPDX-License-Identifier: GPL-2.0
# More events than the ring can take: losses are counted exactly and shown
# where they happened, and analysis does not infer across them.

test_tiny_ring_loss_accounted()
{
	need_bpf
	head -c $((1 << 20)) /dev/urandom >data
	cat data >/dev/null
	# a 16 KiB ring (about 100 records): it must overflow
	record -b 16K -o t.iot -- "$PROGS/preads" "$T/data" 2 100000 2>err
	"$IOTRACE" info t.iot >info.json
	local lost gaps preads
	lost=$(jq .loss.ringbuf_full info.json)
	gaps=$(jq .seq_gaps info.json)
	preads=$(jq '.calls.pread64 // 0' info.json)
	ge "ring overflowed" "$lost" 1
	eq "lost_events" "$(jq .lost_events info.json)" "$lost"
	grep -q "$lost lost" err || fail "summary does not say $lost lost: $(cat err)"
	# every numbered record lost left a gap in its thread's sequence
	eq "gaps = numbered losses" "$gaps" "$((lost - $(jq .loss.ringbuf_full_unsequenced info.json)))"
	# calls made = calls recorded + calls lost (the gaps also cover the few
	# scheduler records lost in the same threads)
	[ "$preads" -lt 200000 ] || fail "more preads than were made: $preads"
	[ $((preads + gaps)) -ge 200000 ] || fail "preads $preads + lost $gaps < 200000 made"
	# per thread: the final sequence number (SEQEND, written when the thread
	# exited) minus the records kept = what the thread lost
	q t.iot '(map(select(.type == "seqend") | {key: (.tid | tostring), value: .last_seq}) | from_entries) as $final
		| map(select(.seq > 0)) | group_by(.tid)
		| map(([(map(.seq) | max), ($final[.[0].tid | tostring] // 0)] | max) - length) | add' >missing
	eq "per-thread gaps" "$(cat missing)" "$gaps"
}

test_analysis_stops_at_gaps()
{
	need_bpf
	head -c $((1 << 20)) /dev/urandom >data
	record -b 16K -o t.iot -- "$PROGS/preads" "$T/data" 2 100000 2>/dev/null
	"$IOTRACE" analyze t.iot --infer-causality -o t.jsonl || fail "analyze"
	head -1 t.jsonl >hdr.json
	ge "header reports loss" "$(jq .lost_events hdr.json)" 1
	eq "seq gaps" "$(jq .seq_gaps hdr.json)" "$("$IOTRACE" info t.iot | jq .seq_gaps)"
	ge "calls marked" "$(grep -c '"gap_before":true' t.jsonl)" 1
}
