# SPDX-License-Identifier: GPL-2.0
# What a multi-host merge needs from each host's trace (issue 20): the host's
# identity and clock pairs, and on every TCP send and receive the socket's
# network namespace and the byte range of the stream it covered.  The two
# ends of one connection are recorded by two recorders, as two hosts would
# be, and their ranges must tile the same bytes.

# Sequence arithmetic mod 2^32, and the ranges one end's calls covered:
# sends (write_seq, sflags 3) or receives (copied_seq, sflags 1) of the
# connection whose local port is $port, as "offset length tid" from $base.
RANGES_JQ='
def u32: . - (. / 4294967296 | floor) * 4294967296;
[.[] | select(.type == "syscall" and .sock != null and .sock.lport == $port
	and .sock.sflags == $flags and .ret > 0
	and (.call | test("^(read|readv|write|writev|sendto|sendmsg|recvfrom|recvmsg|sendfile)$")))
 | {o: ((.sock.tcp_seq - .ret - $base) | u32), n: .ret, tid}]
| sort_by(.o)[] | "\(.o) \(.n) \(.tid)"'

# ranges TRACE PORT FLAGS BASE: the lines above.
ranges()
{
	"$IOTRACE" dump --json "$1" |
		jq -rs --argjson port "$2" --argjson flags "$3" --argjson base "$4" "$RANGES_JQ"
}

# tiles FILE TOTAL: the ranges in FILE cover [0, TOTAL) end to end, no gap, no overlap.
tiles()
{
	awk -v total="$2" '$1 != end { print "gap or overlap at " end ": next range at " $1; bad = 1 }
		{ end = $1 + $2 }
		END { if (!bad && end != total) print "ranges end at " end ", want " total }' "$1" |
		grep . && fail "$1 does not tile [0, $2)"
	return 0
}

# field TRACE CALL-REGEX JQ: a field of the first such call of the trace.
field()
{
	q "$1" "[.[] | select(.type == \"syscall\" and (.call | test(\"^$2\$\")))][0] | $3"
}

# tcp_pair SRV_REC SRV_CMD CLI_REC CLI_CMD: records tcpstream's server (s.iot,
# s.log) and client (c.iot, c.log), each with its own recorder; each
# recorder and each command runs behind its prefix (e.g. "ip netns exec NS").
tcp_pair()
{
	local spid i
	$1 "$IOTRACE" record -o s.iot -- $2 "$PROGS/tcpstream" server port s.log 2>s.err &
	spid=$!
	for ((i = 0; i < 200; i++)); do
		grep -qx '[0-9][0-9]*' port 2>/dev/null && break
		sleep 0.05
	done
	grep -qx '[0-9][0-9]*' port 2>/dev/null || fail "the server did not start: $(cat s.err)"
	$3 "$IOTRACE" record -o c.iot -- $4 "$PROGS/tcpstream" client "$(cat port)" c.log 2>c.err ||
		fail "client recording failed: $(cat c.err)"
	wait "$spid" || fail "server recording failed: $(cat s.err)"
}

# check_stream NETNS: the two traces' ranges match each other and the logs.
check_stream()
{
	local ns=$1 cport sport c2s s2c base
	cport=$(field c.iot connect .sock.lport)
	sport=$(field c.iot connect .sock.rport)
	eq "accept's peer is connect's end" "$(field s.iot 'accept4?' .sock.rport)" "$cport"
	eq "connect's peer is the listener" "$(field s.iot 'accept4?' .sock.lport)" "$sport"
	eq "addresses" "$(field s.iot 'accept4?' '"\(.sock.laddr) \(.sock.raddr)"')" \
		"$(field c.iot connect '"\(.sock.raddr) \(.sock.laddr)"')"
	# the stream's first byte: the client's write_seq after connect is the
	# server's copied_seq after accept, the same number on both hosts
	base=$(field c.iot connect .sock.tcp_seq)
	eq "connect's write_seq flagged" "$(field c.iot connect .sock.sflags)" 3
	eq "accept's copied_seq" "$(field s.iot 'accept4?' .sock.tcp_seq)" "$base"
	c2s=$(awk '$1 == "send" { n += $3 } END { print n }' c.log)
	s2c=$(awk '$1 == "send" { n += $3 } END { print n }' s.log)
	eq "client sent what the server read" "$(awk '$1 == "recv" { n += $3 } END { print n }' s.log)" "$c2s"
	ranges c.iot "$cport" 3 "$base" >c2s.send
	ranges s.iot "$sport" 1 "$base" >c2s.recv
	tiles c2s.send "$c2s"
	tiles c2s.recv "$c2s"
	# each send is its own range, in the order the program logged them
	eq "sends" "$(cut -d' ' -f2 c2s.send | tr '\n' ' ')" \
		"$(awk '$1 == "send" { printf "%s ", $3 }' c.log)"
	eq "receives" "$(cut -d' ' -f2 c2s.recv | tr '\n' ' ')" \
		"$(awk '$1 == "recv" { printf "%s ", $3 }' s.log)"
	# reads of 7 bytes out of sends of thousands: one send, many receives
	ge "small reads" "$(awk '$2 == 7' c2s.recv | wc -l)" 5
	# two threads took turns on the socket: their ranges alternate
	eq "two senders" "$(tail -20 c2s.send | cut -d' ' -f3 | sort -u | wc -l)" 2
	eq "turns" "$(tail -20 c2s.send | cut -d' ' -f3 | uniq | wc -l)" 20
	# server to client from the server's first send
	base=$(ranges s.iot "$sport" 3 0 | head -1 | cut -d' ' -f1)
	ranges s.iot "$sport" 3 "$base" >s2c.send
	ranges c.iot "$cport" 1 "$base" >s2c.recv
	tiles s2c.send "$s2c"
	tiles s2c.recv "$s2c"
	eq "server sends" "$(wc -l <s2c.send)" "$(grep -c '^send' s.log)"
	# every inet socket of both ends in the namespace the calls ran in
	eq "client netns" "$(q c.iot '[.[] | select(.sock.family == 2) | .sock.netns] | unique | join(" ")')" "$ns"
	eq "server netns" "$(q s.iot '[.[] | select(.sock.family == 2) | .sock.netns] | unique | join(" ")')" "$ns"
	# no stream on a datagram socket
	eq "udp" "$(q c.iot '[.[] | select(.sock.type == 2)][0] | "\(.sock.sflags) \(.sock.tcp_seq) \(.sock.netns)"')" "0 0 $ns"
}

# Client and server recorded apart on 127.0.0.1: the byte ranges of every
# send and receive tile both directions of the stream the same way.
test_tcp_stream_ranges()
{
	need_bpf
	local ns
	ns=$(stat -Lc %i /proc/self/ns/net)
	tcp_pair "" "" "" ""
	check_stream "$ns"
	[ "$ns" -gt 0 ] || fail "netns inode $ns"
	# dump -v shows them
	"$IOTRACE" dump -v -e trace=connect c.iot | grep -qE "connect\(.*\) = 0 <netns=$ns write_seq=[0-9]+>" ||
		fail "dump -v: $("$IOTRACE" dump -v -e trace=connect c.iot)"
	"$IOTRACE" dump -v -e trace=read s.iot | grep -qE "read\(.*\) = 7 <netns=$ns copied_seq=[0-9]+>" ||
		fail "dump -v read: $("$IOTRACE" dump -v -e trace=read s.iot | head -3)"
	# without -v as strace prints it
	"$IOTRACE" dump -e trace=connect c.iot | grep -q "netns=" && fail "netns without -v"
	return 0
}

# HOST and CLOCK: which machine, and its two clocks at start and end, and
# at the recorder's launch with -- CMD.
test_host_and_clock()
{
	need_bpf
	local now
	record -o t.iot -- sleep 0.2
	"$IOTRACE" info t.iot >info.json
	eq "host name" "$(jq -r .host_id.hostname info.json)" "$(hostname)"
	eq "boot id" "$(jq -r .host_id.boot_id info.json)" "$(cat /proc/sys/kernel/random/boot_id)"
	if [ -r /etc/machine-id ]; then
		eq "machine id" "$(jq -r .host_id.machine_id info.json)" "$(cat /etc/machine-id)"
	fi
	eq "recorder's netns" "$(jq -r .host_id.netns info.json)" "$(stat -Lc %i /proc/self/ns/net)"
	eq "format" "$(jq -r .format_version info.json)" 3
	eq "records" "$(jq -r '"\(.records.host) \(.records.clock)"' info.json)" "1 3"
	eq "pairs" "$(jq -r '[.clock_pairs[].when] | join(" ")' info.json)" "start end launch"
	# the launch came before loading: before the start pair, by the load
	ge "launch before the start" "$(jq '.clock_pairs[0].monotonic_ns' info.json)" \
		"$(jq '.clock_pairs[2].monotonic_ns + 1' info.json)"
	# the pairs bracket the events and agree with each other within a few ms
	ge "start before the first event" \
		"$(q t.iot '[.[] | select(.type == "syscall") | .ts] | min')" \
		"$(jq '.clock_pairs[0].monotonic_ns' info.json)"
	ge "end after the last event" "$(jq '.clock_pairs[1].monotonic_ns' info.json)" \
		"$(q t.iot '[.[] | select(.type == "syscall") | .ts + .dur] | max')"
	jq -e '.clock_pairs | (.[0].realtime_minus_monotonic_ns - .[1].realtime_minus_monotonic_ns)
		| fabs < 5000000' info.json >/dev/null || fail "realtime moved: $(jq -c .clock_pairs info.json)"
	jq -e '[.clock_pairs[].bracket_ns] | max < 1000000' info.json >/dev/null ||
		fail "pair not tight: $(jq -c .clock_pairs info.json)"
	now=$(date +%s%N)
	jq -e --argjson now "$now" '(.clock_pairs[0].realtime_ns - $now) | fabs < 60e9' info.json \
		>/dev/null || fail "realtime is not now: $(jq -c .clock_pairs info.json)"
	# in time order: the launch pair (read before loading), META, HOST, the
	# start pair, the end pair
	eq "order" "$(q t.iot '[.[] | select(.type == "meta" or .type == "host" or .type == "clock") | .type] | join(" ")')" \
		"clock meta host clock clock"
	"$IOTRACE" dump t.iot | grep -q "# host $(hostname) boot_id " || fail "dump: no host line"
}

# Both ends in a network namespace the test makes: the sockets' netns is
# that namespace, not the host's, whichever namespace the recorder is in.
test_netns_sockets()
{
	need_bpf
	command -v ip >/dev/null || skip "no ip(8)"
	local ns=iotrace-rec20-$$ inode host
	ip netns add "$ns" || skip "cannot create a network namespace"
	trap 'ip netns delete '"$ns"' 2>/dev/null' EXIT
	ip netns exec "$ns" ip link set lo up || fail "lo up in $ns"
	inode=$(stat -Lc %i "/run/netns/$ns")
	host=$(stat -Lc %i /proc/self/ns/net)
	[ "$inode" != "$host" ] || fail "the namespace is the host's"
	# the server's recorder inside the namespace, the client's outside it
	tcp_pair "ip netns exec $ns" "" "" "ip netns exec $ns"
	check_stream "$inode"
	eq "server recorder's netns" "$("$IOTRACE" info s.iot | jq .host_id.netns)" "$inode"
	eq "client recorder's netns" "$("$IOTRACE" info c.iot | jq .host_id.netns)" "$host"
}
