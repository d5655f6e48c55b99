# SPDX-License-Identifier: GPL-2.0
# iotrace analyze of several traces as one job: a TCP client and a server
# recorded by two recorders on this machine over 127.0.0.1, merged.  The
# programs log every read and write as stream bytes; the merge must find
# every send -> receive pair the logs imply and no other cross-host dep, and
# recover a clock moved by a known amount.

ROUNDS=300

# two_traces: cli.iot and srv.iot, the programs' logs in cli.log and srv.log.
two_traces()
{
	record -o srv.iot -- "$PROGS/tcp_pair" server port srv.log $ROUNDS >srv.out 2>&1 &
	local srv=$! i
	for ((i = 0; i < 1200; i++)); do
		[ -s port ] && break
		sleep 0.05
	done
	[ -s port ] || fail "the server never wrote its port"
	record -o cli.iot -- "$PROGS/tcp_pair" client "$(cat port)" cli.log $ROUNDS >cli.out 2>&1 ||
		fail "client recording failed: $(cat cli.out)"
	wait $srv || fail "server recording failed: $(cat srv.out)"
}

# pairs LOG_SEND LOG_RECV: "send_off send_len recv_off recv_len" for every send of the first
# log and receive of the second whose bytes overlap.
pairs()
{
	awk '$1 == "send" { s[n++] = $2 " " $3 }
	     FNR != NR && $1 == "recv" { r[m++] = $2 " " $3 }
	     END {
		for (j = 0; j < m; j++) {
			split(r[j], b, " ")
			for (i = 0; i < n; i++) {
				split(s[i], a, " ")
				if (a[1] < b[1] + b[2] && b[1] < a[1] + a[2])
					print a[1], a[2], b[1], b[2]
			}
		}
	     }' "$1" <(grep '^recv' "$2")
}

# calls JSONL HOST KIND: "off len" of the host's reads or writes on the connection, in order.
calls()
{
	jq -rs --arg h "$2" --arg k "$3" '
		(.[0].threads | map({key: (.tid | tostring), value: .host}) | from_entries) as $host
		| .[1:][] | select(.conn != null and .stream != null and $host[.tid | tostring] == $h)
		| select((.call == "write") == ($k == "send"))
		| "\(.stream[0]) \(.stream[1] - .stream[0])"' "$1"
}

# check_job JSONL: the connection, every logged pair reached, no false cross-host dep.
check_job()
{
	local j=$1 cli srv
	eq "hosts" "$(head -1 "$j" | jq '.hosts | length')" 2
	eq "connections" "$(head -1 "$j" | jq '.connections | length')" 1
	cli=$(head -1 "$j" | jq -r '.hosts[] | select(.trace | endswith("cli.iot")) | .name')
	srv=$(head -1 "$j" | jq -r '.hosts[] | select(.trace | endswith("srv.iot")) | .name')
	eq "client host" "$(head -1 "$j" | jq -r '.connections[0].client.host')" "$cli"
	eq "bytes c2s" "$(head -1 "$j" | jq '.connections[0].bytes_c2s')" \
		"$(awk '$1 == "send" { n += $3 } END { print n }' cli.log)"
	# the byte ranges the merge gave each call are the ones the programs logged
	eq "client sends" "$(calls "$j" "$cli" send | md5sum)" "$(awk '$1 == "send" { print $2, $3 }' cli.log | md5sum)"
	eq "server reads" "$(calls "$j" "$srv" recv | md5sum)" "$(awk '$1 == "recv" { print $2, $3 }' srv.log | md5sum)"
	# every pair: the receive is ordered after the send, through deps and thread order
	jq -s --arg c "$cli" --arg s "$srv" --slurpfile want <(
		pairs cli.log srv.log | awk '{ print "[\"c2s\"," $1 "," $3 "]" }'
		pairs srv.log cli.log | awk '{ print "[\"s2c\"," $1 "," $3 "]" }') '
		(.[0].threads | map({key: (.tid | tostring), value: .host}) | from_entries) as $host
		| [.[1:][] | select(.conn != null and .stream != null)] as $io
		| def id($h; $k; $off): [$io[] | select($host[.tid | tostring] == $h and
			(.call == "write") == ($k == "send") and .stream[0] == $off) | .id][0];
		[$want[] | if .[0] == "c2s" then [id($c; "send"; .[1]), id($s; "recv"; .[2])]
			   else [id($s; "send"; .[1]), id($c; "recv"; .[2])] end]' "$j" >want.json
	eq "logged pairs" "$(jq length want.json)" "$(( $(pairs cli.log srv.log | wc -l) + $(pairs srv.log cli.log | wc -l) ))"
	[ "$(jq '[.[] | select(.[0] == null or .[1] == null)] | length' want.json)" = 0 ] ||
		fail "a logged call has no event"
	ordered "$j" want.json || fail "a logged send -> receive pair is not ordered"
	# no false edge: a dep from the other host is a write whose bytes the read took
	eq "false cross-host deps" "$(jq -s '
		(.[0].threads | map({key: (.tid | tostring), value: .host}) | from_entries) as $host
		| (.[1:] | map({key: (.id | tostring), value: .}) | from_entries) as $by
		| [.[1:][] | . as $e | .deps[]? | $by[.id | tostring] as $s
		   | select($host[$s.tid | tostring] != $host[$e.tid | tostring])
		   | select(($s.conn != $e.conn) or $s.stream == null or $e.stream == null
			    or ($s.call != "write") or ($e.call != "read")
			    or ($s.stream[0] >= $e.stream[1]) or ($e.stream[0] >= $s.stream[1]))]
		| length' "$j")" 0
	ge "cross-host deps" "$(head -1 "$j" | jq .causality_stats.edges_xhost)" "$ROUNDS"
}

test_tcp_pairs()
{
	need_bpf
	two_traces
	"$IOTRACE" analyze --infer-causality cli.iot srv.iot -o job.jsonl || fail "analyze exited $?"
	check_job job.jsonl
	eq "threads on hosts" "$(head -1 job.jsonl | jq '[.threads[] | select(.host == null)] | length')" 0
}

# srv.iot's clock moved 12.345678 ms: the offset comes back within 50 us, and the deps
# (which come from bytes, not times) are the same.
test_clock_shift()
{
	need_bpf
	two_traces
	local shift=12345678 off res
	"$IOTRACE" analyze --infer-causality cli.iot srv.iot --clock-shift srv.iot=$shift \
		-o job.jsonl || fail "analyze exited $?"
	check_job job.jsonl
	off=$(head -1 job.jsonl | jq '.hosts[] | select(.trace | endswith("srv.iot")) | .clock_offset_ns')
	res=$(head -1 job.jsonl | jq '.hosts[] | select(.trace | endswith("srv.iot")) | .clock_residual_ns')
	echo "note: offset $off ns for a shift of $shift ns, residual $res ns"
	[ $(( off + shift < 0 ? -(off + shift) : off + shift )) -le 50000 ] ||
		fail "offset $off is not -$shift within 50 us"
	eq "clock source" "$(head -1 job.jsonl | jq -r '.hosts[] | select(.trace | endswith("srv.iot")) | .clock_source')" edges
}

# The same trace twice, a file that is not a trace, and a peer that was not recorded.
test_bad_jobs()
{
	need_bpf
	two_traces
	expect_exit 1 "$IOTRACE" analyze cli.iot cli.iot -o j.jsonl
	err_has "same host given twice"
	echo "not a trace" >junk.iot
	expect_exit 1 "$IOTRACE" analyze cli.iot junk.iot -o j.jsonl
	err_has "iotrace: "
	record -o other.iot -- true >/dev/null 2>&1
	expect_exit 0 "$IOTRACE" analyze --infer-causality cli.iot other.iot -o j.jsonl
	eq "external tcp ends" "$(head -1 j.jsonl | jq .causality_stats.tcp_ends_external)" 1
	eq "connections" "$(head -1 j.jsonl | jq '.connections | length')" 0
	err_has "no cross-host edge to align the clock"
	expect_exit 2 "$IOTRACE" analyze cli.iot --host-of x=y
	expect_exit 2 "$IOTRACE" analyze cli.iot --clock-shift cli.iot=5
}

# One trace of both programs, split into two hosts by --host-of: the same pairs.
test_host_of()
{
	need_bpf
	record -o both.iot -- sh -c "'$PROGS/tcp_pair' server port srv.log $ROUNDS & \
		while [ ! -s port ]; do sleep 0.01; done; \
		'$PROGS/tcp_pair' client \$(cat port) cli.log $ROUNDS; wait" >both.out 2>&1 ||
		fail "recording failed: $(cat both.out)"
	local spid
	"$IOTRACE" analyze both.iot -o one.jsonl || fail "analyze of one host exited $?"
	spid=$(jq -r 'select(.call == "listen") | .pid' one.jsonl | head -1)
	[ -n "$spid" ] || fail "no listen in the trace"
	"$IOTRACE" analyze --infer-causality both.iot --host-of "$spid=server" -o job.jsonl ||
		fail "analyze exited $?"
	eq "hosts" "$(head -1 job.jsonl | jq '.hosts | length')" 2
	eq "server's threads" "$(head -1 job.jsonl | jq --argjson p "$spid" '[.threads[] | select(.pid == $p) | .host] | unique')" '[
  "server"
]'
	eq "connections" "$(head -1 job.jsonl | jq '.connections | length')" 1
	ge "cross-host deps" "$(head -1 job.jsonl | jq .causality_stats.edges_xhost)" "$ROUNDS"
}
