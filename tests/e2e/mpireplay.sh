# SPDX-License-Identifier: GPL-2.0
# The multi-host replay (issue 20): a file of several hosts replayed by a real
# mpirun, one rank per host, each host a network namespace of this machine
# (scripts/netns-hosts.sh).

need_mpi()
{
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v mpirun >/dev/null || skip "no mpirun (apt-get install openmpi-bin)"
	command -v ip >/dev/null || skip "no ip (iproute2)"
	[ -e /usr/lib/x86_64-linux-gnu/libmpi.so.40 ] || ldconfig -p | grep -q libmpi.so.40 ||
		skip "no libmpi.so.40"
}

# gen_token HOSTS ROUNDS COMPUTE_NS: //TRACE's Fitness, token passing. Host k
# (one process, one thread) opens its file, then in each round writes it
# once the previous host's write of the round (of the last round, for host
# 0) has ended: a cross-host data dep. Host 0 computes COMPUTE_NS before
# each of its writes.
gen_token()
{
	awk -v n="$1" -v m="$2" -v c="$3" 'BEGIN {
		printf "{\"type\":\"header\",\"version\":1,\"causality\":true,\"hosts\":["
		for (k = 0; k < n; k++)
			printf "%s{\"name\":\"host%d\",\"hostname\":\"host%d\",\"boot_id\":\"b%d\",\"trace\":\"t%d.iot\",\"clock_offset_ns\":0,\"clock_residual_ns\":0,\"netns\":[]}", k ? "," : "", k, k, k, k
		printf "],\"threads\":["
		for (k = 0; k < n; k++)
			printf "%s{\"pid\":%d,\"tid\":%d,\"comm\":\"t\",\"host\":\"host%d\"}", k ? "," : "", 100 * (k + 1), 100 * (k + 1), k
		printf "],\"processes\":["
		for (k = 0; k < n; k++)
			printf "%s{\"pid\":%d,\"ppid\":1,\"cwd\":\"/\",\"host\":\"host%d\"}", k ? "," : "", 100 * (k + 1), k
		printf "],\"files\":["
		for (k = 0; k < n; k++)
			printf "%s{\"path\":\"/f%d\",\"type\":\"file\",\"size\":4096}", k ? "," : "", k
		printf "],\"events\":%d}\n", n * (m + 1)
		id = 0
		for (k = 0; k < n; k++) {
			printf "{\"type\":\"event\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"call\":\"openat\",\"args\":{\"dirfd\":\"AT_FDCWD\",\"pathname\":\"/f%d\",\"flags\":2,\"mode\":0},\"ret\":3,\"ts\":%d,\"dur\":1000,\"compute_ns\":0,\"deps\":[]}\n", id, 100 * (k + 1), 100 * (k + 1), k, id * 1000
			id++
		}
		last = -1
		for (j = 0; j < m; j++)
			for (k = 0; k < n; k++) {
				dep = last >= 0 ? "[{\"id\":" last ",\"kind\":\"data\"}]" : "[]"
				printf "{\"type\":\"event\",\"id\":%d,\"pid\":%d,\"tid\":%d,\"call\":\"pwrite64\",\"args\":{\"fd\":{\"fd\":3,\"path\":\"/f%d\",\"type\":\"file\"},\"buf\":1,\"count\":512,\"offset\":%d},\"ret\":512,\"ts\":%d,\"dur\":1000,\"compute_ns\":%d,\"deps\":%s}\n", id, 100 * (k + 1), 100 * (k + 1), k, 512 * (j % 8), id * 1000, k ? 0 : c, dep
				last = id++
			}
	}'
}

# hosts N CMD...: CMD inside N namespace hosts, with $NH_MPIRUN and $NH_HOSTS
hosts()
{
	local n=$1
	shift
	"$IOTRACE_ROOT/scripts/netns-hosts.sh" "$n" -- "$@"
}

# replay2 WHAT SECONDS: job.jsonl replayed across two namespace hosts with
# a stall timeout of SECONDS, the report in r.json; the test fails with WHAT
# (and the ranks' stderr) if the replay does
replay2()
{
	hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" \
		--report "$T/r.json" --no-progress --stall-timeout '"$2" >out 2>err ||
		{ cat err >&2; fail "$1"; }
}

# Three hosts pass a token: each rank replays its own host's calls in its own
# root, waits for the other hosts' writes over MPI, and rank 0 prints and
# writes one report with every host in it.
test_mpi_token_ring()
{
	need_mpi
	gen_token 3 5 20000000 >job.jsonl
	hosts 3 bash -c '$NH_MPIRUN -np 3 "$IOTRACE" replay job.jsonl --root "$T/sb" \
		--natural --report "$T/r.json" --no-progress --stall-timeout 20' >out 2>err ||
		{ cat err >&2; fail "the multi-host replay failed"; }
	cat err
	for k in 0 1 2; do
		[ -f "sb/host$k/f$k" ] || fail "rank of host$k did not replay in sb/host$k"
		eq "host$k issued" "$(jq ".hosts.host$k.issued" r.json)" 6
		eq "host$k failed" "$(jq ".hosts.host$k.failed" r.json)" 0
		eq "host$k rank" "$(jq ".hosts.host$k.rank" r.json)" $k
		eq "host$k threads" "$(jq ".hosts.host$k.threads | length" r.json)" 1
	done
	# every write but the first waits for another host's: 5 rounds of 3
	eq "host0 cross-host waits" "$(jq .hosts.host0.xhost.waits r.json)" 4
	eq "host1 cross-host waits" "$(jq .hosts.host1.xhost.waits r.json)" 5
	eq "host2 cross-host waits" "$(jq .hosts.host2.xhost.waits r.json)" 5
	eq "host1 messages in" "$(jq .hosts.host1.xhost.received r.json)" 5
	eq "total waits" "$(jq .xhost_waits r.json)" 14
	eq "total failed" "$(jq .failed r.json)" 0
	eq "total issued" "$(jq .issued r.json)" 18
	eq "ranks" "$(jq .ranks r.json)" 3
	# host1 cannot write before host0 has computed 20 ms five times: it
	# waited for that, which it could only learn from host0's messages
	ge "host1 waited for host0" "$(jq '.hosts.host1.threads[0].wait_ns' r.json)" 90000000
	grep -q "host host1 (rank 1): 6 issued, 0 failed" err || fail "no per-host summary line"
}

# A host whose trace begins 0.3 s after the others' (mpirun's daemon started
# its rank later) begins its replay then too, and sleeps until then: spun
# on the CPU, the wait took the CPU from the ranks already running, and on
# a loaded machine a rank 0.1 s late in the trace began 0.4 s late.
test_mpi_late_host_sleeps()
{
	need_mpi
	gen_token 2 2 0 | jq -c 'if .type == "event" and .tid == 200 then .ts += 300000000 else . end' \
		>job.jsonl
	hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" --natural \
		--report "$T/r.json" --no-progress --stall-timeout 20' >out 2>err ||
		{ cat err >&2; fail "the multi-host replay failed"; }
	eq "failed" "$(jq .failed r.json)" 0
	ge "host1 slept to its start (ms)" "$(jq '.hosts.host1.threads[0].sleep_ns / 1e6 | floor' r.json)" 250
	local spun cpu
	spun=$(jq '.hosts.host1.threads[0].compute_ns / 1e6 | floor' r.json)
	cpu=$(jq '.hosts.host1.threads[0].cpu_ns / 1e6 | floor' r.json)
	[ "$spun" -lt 100 ] || fail "host1 spun ${spun} ms of compute to its start, want a sleep"
	[ "$cpu" -lt 150 ] || fail "host1's replay thread took ${cpu} ms of CPU waiting for its start"
}

# --map puts a host on another rank; the roots follow the %h pattern.
test_mpi_map()
{
	need_mpi
	gen_token 2 3 0 >job.jsonl
	hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb-%h-%r" \
		--map host0=1 --report "$T/r.json" --no-progress --stall-timeout 20' >out 2>err ||
		{ cat err >&2; fail "the multi-host replay with --map failed"; }
	eq "host0 rank" "$(jq .hosts.host0.rank r.json)" 1
	eq "host1 rank" "$(jq .hosts.host1.rank r.json)" 0
	[ -f sb-host0-1/f0 ] && [ -f sb-host1-0/f1 ] || fail "roots not made from the %h-%r pattern"
	eq "failed" "$(jq .failed r.json)" 0
}

# Fewer ranks than hosts: every rank says so and the job fails, at once.
test_mpi_too_few_ranks()
{
	need_mpi
	gen_token 3 2 0 >job.jsonl
	expect_exit 1 hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" \
		--no-progress --stall-timeout 20'
	# mpirun forwards both ranks' stderr, pieces of the two lines interleaved
	[ "$(grep -o 'job.jsonl has 3 hosts and mpirun started 2 ranks' "$T/err" | wc -l)" -eq 2 ] ||
		{ cat "$T/err" >&2; fail "not every rank named the rank count"; }
	[ ! -e sb ] || fail "a rank replayed anyway"
}

# A single-host file needs no MPI; under mpirun with several ranks it would be
# replayed into one root several times: refused.
test_mpi_single_host_file()
{
	need_mpi
	gen_token 1 2 0 | jq -c 'del(.hosts)' >job.jsonl
	expect_exit 1 hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" \
		--no-progress'
	err_has "replay it without mpirun"
	expect_exit 0 "$IOTRACE" replay job.jsonl --root "$T/sb1" --no-progress
}

# A multi-host file outside mpirun: one rank for several hosts.
test_mpi_no_mpirun()
{
	need_mpi
	gen_token 2 2 0 >job.jsonl
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		expect_exit 1 timeout 60 "$IOTRACE" replay job.jsonl --root "$T/sb" --no-progress
	err_has "has 2 hosts and mpirun started 1 ranks"
	expect_exit 2 "$IOTRACE" replay job.jsonl --root "$T/sb" --map host0
	err_has "--map wants HOST=RANK"
}

# gen_tcp [NONBLOCK]: host0 listens and accepts; host1 connects, sends a
# 100-byte request and reads a 5000-byte answer; a connection between two
# traced hosts. NONBLOCK 2048: both ends non-blocking, the connect
# EINPROGRESS.
gen_tcp()
{
	local fl=${1:-0} cret=0
	[ "$fl" = 0 ] || cret=-115
	local h='"hostname":"x","boot_id":"b","trace":"t.iot","clock_offset_ns":0,"clock_residual_ns":0,"netns":[]'
	local s0='"sock":{"family":2,"type":1,"laddr":"10.0.0.1","lport":5000'
	local c1='"sock":{"family":2,"type":1,"laddr":"10.0.0.2","lport":40001,"raddr":"10.0.0.1","rport":5000}'
	local a0='"sock":{"family":2,"type":1,"laddr":"10.0.0.1","lport":5000,"raddr":"10.0.0.2","rport":40001}'
	local e='"type":"event"' z='"compute_ns":0'
	cat <<-EOF2
	{"type":"header","version":1,"causality":true,"hosts":[{"name":"srv",$h},{"name":"cli",$h}],"connections":[{"id":0,"proto":"tcp","client":{"host":"cli","addr":"10.0.0.2","port":40001},"server":{"host":"srv","addr":"10.0.0.1","port":5000},"bytes_c2s":100,"bytes_s2c":5000}],"threads":[{"pid":100,"tid":100,"comm":"s","host":"srv"},{"pid":200,"tid":200,"comm":"c","host":"cli"}],"processes":[{"pid":100,"ppid":1,"cwd":"/","host":"srv"},{"pid":200,"ppid":1,"cwd":"/","host":"cli"}],"files":[],"events":13}
	{$e,"id":0,"pid":100,"tid":100,"call":"socket","args":{"domain":2,"type":1,"protocol":0},"ret":3,"ts":1000,"dur":10,$z,"deps":[]}
	{$e,"id":1,"pid":100,"tid":100,"call":"bind","args":{"sockfd":{"fd":3,"type":"socket"},"addr":1,"addrlen":16},$s0,"raddr":"0.0.0.0","rport":0},"ret":0,"ts":2000,"dur":10,$z,"deps":[]}
	{$e,"id":2,"pid":100,"tid":100,"call":"listen","args":{"sockfd":{"fd":3,"type":"socket"},"backlog":4},$s0,"raddr":"0.0.0.0","rport":0},"ret":0,"ts":3000,"dur":10,$z,"deps":[]}
	{$e,"id":3,"pid":200,"tid":200,"call":"socket","args":{"domain":2,"type":$((1 | fl)),"protocol":0},"ret":3,"ts":4000,"dur":10,$z,"deps":[]}
	{$e,"id":4,"pid":200,"tid":200,"call":"connect","args":{"sockfd":{"fd":3,"type":"socket"},"addr":1,"addrlen":16},$c1,"conn":0,"ret":$cret,"ts":5000,"dur":10,$z,"deps":[]}
	{$e,"id":5,"pid":100,"tid":100,"call":"accept4","args":{"sockfd":{"fd":3,"type":"socket"},"addr":0,"addrlen":0,"flags":$fl},$a0,"conn":0,"ret":4,"ts":6000,"dur":10,$z,"deps":[]}
	{$e,"id":6,"pid":200,"tid":200,"call":"sendto","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":100,"flags":0,"dest_addr":0,"addrlen":0},$c1,"conn":0,"stream":[0,100],"ret":100,"ts":7000,"dur":10,$z,"deps":[]}
	{$e,"id":7,"pid":100,"tid":100,"call":"recvfrom","args":{"sockfd":{"fd":4,"type":"socket"},"buf":1,"len":100,"flags":256,"src_addr":0,"addrlen":0},$a0,"conn":0,"stream":[0,100],"ret":100,"ts":8000,"dur":10,$z,"deps":[{"id":6,"kind":"data"}]}
	{$e,"id":8,"pid":100,"tid":100,"call":"sendto","args":{"sockfd":{"fd":4,"type":"socket"},"buf":1,"len":5000,"flags":0,"dest_addr":0,"addrlen":0},$a0,"conn":0,"stream":[0,5000],"ret":5000,"ts":9000,"dur":10,$z,"deps":[]}
	{$e,"id":9,"pid":200,"tid":200,"call":"recvfrom","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":5000,"flags":256,"src_addr":0,"addrlen":0},$c1,"conn":0,"stream":[0,5000],"ret":5000,"ts":10000,"dur":10,$z,"deps":[{"id":8,"kind":"data"}]}
	{$e,"id":10,"pid":200,"tid":200,"call":"close","args":{"fd":{"fd":3,"type":"socket"}},"ret":0,"ts":11000,"dur":10,$z,"deps":[]}
	{$e,"id":11,"pid":100,"tid":100,"call":"close","args":{"fd":{"fd":4,"type":"socket"}},"ret":0,"ts":12000,"dur":10,$z,"deps":[]}
	{$e,"id":12,"pid":100,"tid":100,"call":"close","args":{"fd":{"fd":3,"type":"socket"}},"ret":0,"ts":13000,"dur":10,$z,"deps":[]}
	EOF2
}

# A connection between two traced hosts is a real TCP connection between
# their ranks, over the namespaces' bridge: the server's rank listens on its
# own address and tells it over MPI, the client's rank connects there.
test_mpi_tcp_connection()
{
	need_mpi
	gen_tcp >job.jsonl
	replay2 "the multi-host replay of a connection failed" 20
	# each rank has a loopback of its own: the connect succeeded and 5000
	# bytes came back only if it reached the other namespace's listener
	eq "server failed" "$(jq .hosts.srv.failed r.json)" 0
	eq "client failed" "$(jq .hosts.cli.failed r.json)" 0
	eq "server short" "$(jq .hosts.srv.short r.json)" 0
	eq "client short" "$(jq .hosts.cli.short r.json)" 0
	eq "server issued" "$(jq .hosts.srv.issued r.json)" 8
	eq "client issued" "$(jq .hosts.cli.issued r.json)" 5
	eq "skipped" "$(jq .skipped_total r.json)" 0
	eq "emulated" "$(jq .emulated r.json)" 0
	# the client waited for the listen (its port and address) by message;
	# the answer came on the connection, which carries its dep
	eq "client cross-host waits" "$(jq .hosts.cli.xhost.waits r.json)" 1
	eq "client deps carried" "$(jq .hosts.cli.xhost.carried r.json)" 1
	eq "server deps carried" "$(jq .hosts.srv.xhost.carried r.json)" 1
	# neither polled for its bytes in the trace: their reads wait asleep
	eq "client reads polled for" "$(jq .hosts.cli.xhost.polled r.json)" 0
	eq "server reads polled for" "$(jq .hosts.srv.xhost.polled r.json)" 0
}

# The client polls with timeout 0 up to its read of the answer, as Open MPI's
# progress loop does: its replay polls for those bytes too (docs/replay.md,
# "Deps a connection carries"), the server's read, after no poll, does not.
test_mpi_polled_read()
{
	need_mpi
	gen_tcp | jq -c 'if .type == "event" then .id *= 10 | .deps[]?.id *= 10
		else .events += 1 end' |
		awk '{ print } /^{"type":"event","id":80,/ { print "{\"type\":\"event\",\"id\":85,\"pid\":200," \
			"\"tid\":200,\"call\":\"poll\",\"args\":{\"fds\":1,\"nfds\":1," \
			"\"timeout\":0},\"ret\":0,\"ts\":9500,\"dur\":10,\"compute_ns\":0,\"deps\":[]}" }' \
		>job.jsonl
	eq "events" "$(grep -c '"type":"event"' job.jsonl)" 14
	replay2 "the multi-host replay of a polled read failed" 20
	eq "failed" "$(jq .failed r.json)" 0
	eq "short" "$(jq .short r.json)" 0
	eq "client deps carried" "$(jq .hosts.cli.xhost.carried r.json)" 1
	eq "client reads polled for" "$(jq .hosts.cli.xhost.polled r.json)" 1
	eq "server reads polled for" "$(jq .hosts.srv.xhost.polled r.json)" 0
}

# The client's zero-timeout polls before its read of the answer are a
# busy-wait loop: the 90 ms the trace holds between each two of them is the
# client spinning until the answer came, not work.  In causal order the loop
# ends when the bytes do and its compute is not spun; --order none plays it
# call by call, compute and all.
test_mpi_polled_loop_is_wait()
{
	need_mpi
	gen_tcp | jq -c 'if .type == "event" then .id *= 10 | .deps[]?.id *= 10 |
			(if .id >= 90 then .ts += 200000000 else . end)
		else .events += 2 end' |
		awk '{ print } /^{"type":"event","id":80,/ {
			for (k = 1; k <= 2; k++)
				printf "{\"type\":\"event\",\"id\":8%d,\"pid\":200,\"tid\":200," \
					"\"call\":\"poll\",\"args\":{\"fds\":1,\"nfds\":1,\"timeout\":0}," \
					"\"ret\":0,\"ts\":%d,\"dur\":10,\"compute_ns\":90000000,\"deps\":[]}\n",
					2 * k + 4, k * 100000000 }' >job.jsonl
	eq "events" "$(grep -c '"type":"event"' job.jsonl)" 15
	local order spun
	for order in causal none; do
		hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" \
			--natural --order '"$order"' --report "$T/r.json" --no-progress \
			--stall-timeout 20' >out 2>err || { cat err >&2; fail "the $order replay failed"; }
		eq "$order: failed" "$(jq .failed r.json)" 0
		spun=$(jq '.hosts.cli.threads[0].compute_ns / 1e6 | floor' r.json)
		if [ "$order" = causal ]; then
			eq "causal: client reads polled for" "$(jq .hosts.cli.xhost.polled r.json)" 1
			[ "$spun" -lt 90 ] || fail "causal: the client spun $spun ms of its wait loop"
		else
			ge "none: the client's loop spun (ms)" "$spun" 170
		fi
	done
}

# gen_fence: each of two hosts connects to a daemon of its own (an outside
# peer on loopback, not traced), sends it a request and blocks in recvfrom
# for the answer, which the daemons sent once both requests were in: the
# analyzer's barrier edges, each host's request before the other's receive.
# On host a another thread reads the connection later, as Open MPI's PMIx
# progress thread does (after the main thread's read, before its close: the
# analyzer's stage edges): the replayer's peer then sends a read's bytes
# only when the read is made, not ahead of it.
gen_fence()
{
	local h='"hostname":"x","boot_id":"b","trace":"t.iot","clock_offset_ns":0,"clock_residual_ns":0,"netns":[]'
	local e='"type":"event"' z='"compute_ns":0' k pid id so
	printf '{"type":"header","version":1,"causality":true,"hosts":[{"name":"a",%s},{"name":"b",%s}],' "$h" "$h"
	printf '"threads":[{"pid":100,"tid":100,"comm":"r","host":"a"},{"pid":100,"tid":101,"comm":"p","host":"a"},{"pid":200,"tid":200,"comm":"r","host":"b"}],'
	printf '"processes":[{"pid":100,"ppid":1,"cwd":"/","host":"a"},{"pid":200,"ppid":1,"cwd":"/","host":"b"}],"files":[],"events":11}\n'
	# ids: host a 0-5, host b 6-10; each host's request is 2 past its base
	for k in 0 1; do
		pid=$((100 * (k + 1))) id=$((k * 6))
		so='"sock":{"family":2,"type":1,"laddr":"127.0.0.1","lport":'$((40001 + k))',"raddr":"127.0.0.1","rport":6000}'
		printf '{%s,"id":%d,"pid":%d,"tid":%d,"call":"socket","args":{"domain":2,"type":1,"protocol":0},"ret":3,"ts":%d,"dur":10,%s,"deps":[]}\n' \
			"$e" $id $pid $pid $((1000 + k * 500)) "$z"
		printf '{%s,"id":%d,"pid":%d,"tid":%d,"call":"connect","args":{"sockfd":{"fd":3,"type":"socket"},"addr":1,"addrlen":16},%s,"ret":0,"ts":%d,"dur":10,%s,"deps":[]}\n' \
			"$e" $((id + 1)) $pid $pid "$so" $((2000 + k * 500)) "$z"
		printf '{%s,"id":%d,"pid":%d,"tid":%d,"call":"sendto","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":71,"flags":0,"dest_addr":0,"addrlen":0},%s,"ret":71,"ts":%d,"dur":10,%s,"deps":[]}\n' \
			"$e" $((id + 2)) $pid $pid "$so" $((3000 + k * 1000)) "$z"
		printf '{%s,"id":%d,"pid":%d,"tid":%d,"call":"recvfrom","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":4,"flags":256,"src_addr":0,"addrlen":0},%s,"ret":4,"ts":%d,"dur":%d,%s,"deps":[{"id":%d,"kind":"barrier"}]}\n' \
			"$e" $((id + 3)) $pid $pid "$so" $((3100 + k * 1000)) $((2000 - k * 1000)) "$z" $(((1 - k) * 6 + 2))
		[ $k = 1 ] || printf '{%s,"id":4,"pid":100,"tid":101,"call":"recvfrom","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":8,"flags":0,"src_addr":0,"addrlen":0},%s,"ret":8,"ts":5500,"dur":10,%s,"deps":[{"id":3,"kind":"stage"}]}\n' \
			"$e" "$so" "$z"
		printf '{%s,"id":%d,"pid":%d,"tid":%d,"call":"close","args":{"fd":{"fd":3,"type":"socket"}},"ret":0,"ts":%d,"dur":10,%s,"deps":[%s]}\n' \
			"$e" $((id + 5 - k)) $pid $pid $((6000 + k * 100)) "$z" "$([ $k = 1 ] || echo '{"id":4,"kind":"stage"}')"
	done
}

# A receive that waited for a fence's answer has barrier deps on the other
# host's request; its bytes come from the daemon the replayer plays, when the
# receive is made, not from the other host: the receive waits for the other
# host's message, then reads them.  Before, it waited first for bytes that
# come only once it reads, until its wait for the network gave up: the whole
# stall timeout.
test_mpi_fence_receive()
{
	need_mpi
	gen_fence >job.jsonl
	eq "events" "$(grep -c '"type":"event"' job.jsonl)" 11
	replay2 "the multi-host replay of a fence's receives failed" 20
	eq "failed" "$(jq .failed r.json)" 0
	eq "short" "$(jq .short r.json)" 0
	# a hang bound, thousands of times the few ms it takes: not its speed
	[ "$(jq '.wall_ns < 10e9' r.json)" = true ] ||
		fail "the receives waited out the stall timeout: $(jq .wall_ns r.json) ns"
	eq "a issued" "$(jq .hosts.a.issued r.json)" 6
	eq "b issued" "$(jq .hosts.b.issued r.json)" 5
	eq "a waited for b" "$(jq .hosts.a.xhost.waits r.json)" 1
	eq "b waited for a" "$(jq .hosts.b.xhost.waits r.json)" 1
}

# The client's host listens on the server's port too, after the server and
# before the connect: by port alone the connect would take its own host's
# listener (the latest); the header's connection says the server is on srv.
test_mpi_tcp_same_port()
{
	need_mpi
	gen_tcp | jq -c 'if .type == "event" then .id *= 10 | .deps[]?.id *= 10
		else .events += 3 end' >ten.jsonl
	{
		head -5 ten.jsonl
		local e='"type":"event","pid":200,"tid":200' s='"sock":{"family":2,"type":1,"laddr":"0.0.0.0","lport":5000,"raddr":"0.0.0.0","rport":0}'
		echo "{$e,\"id\":31,\"call\":\"socket\",\"args\":{\"domain\":2,\"type\":1,\"protocol\":0},\"ret\":4,\"ts\":4100,\"dur\":10,\"compute_ns\":0,\"deps\":[]}"
		echo "{$e,\"id\":32,\"call\":\"bind\",\"args\":{\"sockfd\":{\"fd\":4,\"type\":\"socket\"},\"addr\":1,\"addrlen\":16},$s,\"ret\":0,\"ts\":4200,\"dur\":10,\"compute_ns\":0,\"deps\":[]}"
		echo "{$e,\"id\":33,\"call\":\"listen\",\"args\":{\"sockfd\":{\"fd\":4,\"type\":\"socket\"},\"backlog\":4},$s,\"ret\":0,\"ts\":4300,\"dur\":10,\"compute_ns\":0,\"deps\":[]}"
		tail -n +6 ten.jsonl
	} >job.jsonl
	replay2 "the replay of a connection to a port both hosts listen on failed" 10
	eq "failed" "$(jq .failed r.json)" 0
	eq "short" "$(jq .short r.json)" 0
	eq "client issued" "$(jq .hosts.cli.issued r.json)" 8
}

# The server exits without closing its connection, and the client reads
# end-of-file: the exit on one rank must close the socket for the read on
# the other to end (the replay is one process that outlives the server).
test_mpi_tcp_exit_closes()
{
	need_mpi
	gen_tcp | jq -c 'if .type == "event" and .id >= 10 then empty else . end' >head.jsonl
	{
		cat head.jsonl
		echo '{"type":"event","id":10,"pid":100,"tid":100,"call":"exit_group","args":{"status":0},"ret":0,"ts":11000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":11,"pid":200,"tid":200,"call":"recvfrom","args":{"sockfd":{"fd":3,"type":"socket"},"buf":1,"len":100,"flags":0,"src_addr":0,"addrlen":0},"conn":0,"ret":0,"ts":12000,"dur":10,"compute_ns":0,"deps":[]}'
		echo '{"type":"event","id":12,"pid":200,"tid":200,"call":"close","args":{"fd":{"fd":3,"type":"socket"}},"ret":0,"ts":13000,"dur":10,"compute_ns":0,"deps":[]}'
	} >job.jsonl
	replay2 "the client's read of end-of-file never ended" 10
	eq "failed" "$(jq .failed r.json)" 0
	eq "short" "$(jq .short r.json)" 0
}

# Both ends non-blocking. The client's connect is EINPROGRESS and its write
# comes at once: it must not fail EAGAIN for a handshake still under way.
# The server's read is released by the message that the client's write
# ended, and must find the bytes, not EAGAIN. (On this bridge the handshake
# completes within the connect, and the bytes arrive before the message,
# even without mhost__connected's and mhost__await's waits for them; three
# runs, in case not.)
test_mpi_tcp_nonblocking()
{
	need_mpi
	gen_tcp 2048 >job.jsonl
	hosts 2 bash -c 'for i in 1 2 3; do
		$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" --natural \
			--report "$T/r$i.json" --no-progress --stall-timeout 20 || exit 1
	done' >out 2>err || { cat err >&2; fail "the multi-host replay failed"; }
	for i in 1 2 3; do
		eq "run $i failed" "$(jq .failed r$i.json)" 0
		eq "run $i short" "$(jq .short r$i.json)" 0
	done
}

# rank_pid R: the pid of this test's replayer of rank R (by its --root and env)
rank_pid()
{
	local d
	# by its --root, not its cwd: a rank runs in a mount namespace of its own
	# (ip netns exec), whose cwd a chroot's reader cannot see as $T
	for d in /proc/[0-9]*; do
		[ "$(cat "$d/comm" 2>/dev/null)" = iotrace ] || continue
		tr '\0' '\n' <"$d/cmdline" 2>/dev/null | grep -qx "$T/sb" || continue
		tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" &&
			echo "${d#/proc/}" && return 0
	done
	return 1
}

# A rank killed in the middle of the replay: the job ends, with an error,
# instead of the other rank waiting for messages that will never come.
test_mpi_rank_dies()
{
	need_mpi
	gen_token 2 4 1500000000 >job.jsonl
	hosts 2 bash -c '$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb" --natural \
		--no-progress --stall-timeout 60' >out 2>err &
	local job=$! pid= i
	for i in $(seq 200); do
		pid=$(rank_pid 1) && [ -d sb/host1 ] && break
		sleep 0.05
	done
	[ -n "$pid" ] || { kill $job; fail "rank 1 never started"; }
	sleep 0.5
	kill -9 "$pid"
	# well before the 6 s the replay would take, or the 60 s stall timeout
	for i in $(seq 100); do
		kill -0 $job 2>/dev/null || break
		sleep 0.05
	done
	kill -0 $job 2>/dev/null && { kill $job; fail "the job still runs 5 s after a rank died"; }
	wait $job && fail "the job exited 0 with a rank killed"
	grep -qi "signal 9\|killed" err || { cat err >&2; fail "mpirun did not say a rank died"; }
}

# A rank that fails before the start (its root is a file): every rank ends
# at once, none waits at the start barrier.
test_mpi_rank_fails()
{
	need_mpi
	gen_token 2 2 0 >job.jsonl
	touch sb-host1
	expect_exit 1 timeout 60 "$IOTRACE_ROOT/scripts/netns-hosts.sh" 2 -- bash -c \
		'$NH_MPIRUN -np 2 "$IOTRACE" replay job.jsonl --root "$T/sb-%h" --no-progress \
		--stall-timeout 50'
	err_has "sb-host1"
	err_has "MPI_ABORT"
}

# The real thing: a TCP client and server recorded by two recorders,
# analyzed into one job (tests/e2e/multihost.sh's two_traces), replayed on
# two namespace hosts: each rank replays its own program, the connection is
# a real one between the namespaces, and every read waits for the other
# host's write that fed it.
test_mpi_recorded_tcp_pair()
{
	need_bpf
	need_mpi
	. "$IOTRACE_ROOT/tests/e2e/multihost.sh"
	ROUNDS=50
	two_traces
	"$IOTRACE" analyze --infer-causality cli.iot srv.iot -o job.jsonl || fail "analyze exited $?"
	local cli srv xdeps
	cli=$(head -1 job.jsonl | jq -r '.hosts[] | select(.trace | endswith("cli.iot")) | .name')
	srv=$(head -1 job.jsonl | jq -r '.hosts[] | select(.trace | endswith("srv.iot")) | .name')
	xdeps=$(head -1 job.jsonl | jq .causality_stats.edges_xhost)
	ge "cross-host deps" "$xdeps" $ROUNDS
	replay2 "the multi-host replay of the recorded pair failed" 20
	cat err
	for h in "$cli" "$srv"; do
		eq "$h failed" "$(jq --arg h "$h" '.hosts[$h].failed' r.json)" 0
		ge "$h issued" "$(jq --arg h "$h" '.hosts[$h].issued' r.json)" $ROUNDS
	done
	eq "no call emulated outside the sandbox" \
		"$(jq '[.hosts[].reasons.outside_sandbox.emulated // 0] | add' r.json)" 0
	# the analysis's, carried by the connection, and the connect's wait for
	# the listen, the replay's own, by message
	eq "cross-host deps carried" "$(jq '[.hosts[].xhost.carried] | add' r.json)" "$xdeps"
	eq "cross-host deps by message" "$(jq '[.hosts[].xhost.deps] | add' r.json)" 1
}

# The two-tier service: redis-server on host B, attached to with -p while
# redis-benchmark on host A, recorded with --, drives it over the bridge;
# then a client outside the trace (redis-cli on the hub) asks it once more.
# Merged and replayed on two ranks: the benchmark's connections are real
# ones between the ranks (only the untraced client is played by the
# replayer), every request and reply is a cross-host edge, and the server's
# accepts each take their own kind of client: at the start the played
# client's connection is already in the listener's backlog, ahead of the
# other rank's, and the first accept in the trace is the benchmark's.
test_mpi_redis_two_tier()
{
	need_bpf
	need_mpi
	command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null &&
		command -v redis-cli >/dev/null || skip "redis is not installed (make deps)"
	local n=200 cli
	cat >tier.sh <<-'SH'
	set -u
	read -r A B <<<"$NH_HOSTS"
	mkdir srv
	nsenter --net=/var/run/netns/$B redis-server --port 6379 --bind 10.77.0.11 \
		--protected-mode no --save "" --appendonly yes --appendfsync always --dir "$T/srv" \
		--daemonize no >srv/log 2>&1 &
	spid=$!
	for i in $(seq 200); do grep -q "Ready to accept" srv/log && break; sleep 0.05; done
	"$IOTRACE" record -p $spid -o srv.iot 2>rec.err &
	rec=$!
	for i in $(seq 1200); do [ -e srv.iot ] && break; sleep 0.05; done
	nsenter --net=/var/run/netns/$A "$IOTRACE" record -o cli.iot -- redis-benchmark \
		-h 10.77.0.11 -p 6379 -n $N -c 1 -t set,get -q >bench.out 2>cli.err || exit 3
	redis-cli -h 10.77.0.11 -p 6379 ping >ping.out || exit 4
	sleep 0.2
	kill -INT $rec && wait $rec || exit 5
	kill $spid
	wait $spid
	"$IOTRACE" analyze --infer-causality cli.iot srv.iot -o job.jsonl || exit 6
	$NH_MPIRUN -np 2 "$IOTRACE" -v replay job.jsonl --root "$T/sb" --report "$T/r.json" \
		--no-progress --stall-timeout 20 2>replay.err || exit 7
	SH
	T=$T N=$n IOTRACE=$IOTRACE hosts 2 bash tier.sh >out 2>err ||
		fail "the two-tier run failed at step $?: $(tail -3 err; tail -3 cli.err rec.err \
			replay.err 2>/dev/null | grep -v '^ *$')"
	eq "ping" "$(cat ping.out)" PONG
	"$IOTRACE" info srv.iot >si.json
	"$IOTRACE" info cli.iot >ci.json
	eq "lost" "$(jq -s '[.[].lost_events] | add' si.json ci.json)" 0
	cli=$(head -1 job.jsonl | jq -r '.hosts[] | select(.trace | endswith("cli.iot")) | .name')
	# one connection per connect of the benchmark (its CONFIG GET, then one
	# per test), the untraced client's end external
	eq "connections" "$(head -1 job.jsonl | jq '.connections | length')" \
		"$(jq -s --arg h "$cli" '(.[0].threads | map({key: (.tid | tostring), value: .host})
			| from_entries) as $host | [.[1:][] | select(.call == "connect" and
			$host[.tid | tostring] == $h and .sock.rport == 6379) | .sock.ino] | unique
			| length' job.jsonl)"
	eq "external tcp ends" "$(head -1 job.jsonl | jq .causality_stats.tcp_ends_external)" 1
	# every request (N per test, two tests) and every reply, and the
	# CONFIG GET and its reply: a write on one host feeding a read on the other
	eq "cross-host edges" "$(head -1 job.jsonl | jq .causality_stats.edges_xhost)" \
		$((4 * n + 2))
	eq "false cross-host deps" "$(xhost_false_deps job.jsonl)" 0
	eq "failed" "$(jq .failed r.json)" 0
	eq "short" "$(jq .short r.json)" 0
	eq "socket calls skipped" "$(jq '[.hosts[].skipped | to_entries[] |
		select(.key | test("^(recv|send|accept|connect|sendfile)"))] | map(.value) | add // 0' r.json)" 0
	# the connections carry every one: no message
	eq "cross-host deps carried" "$(jq '[.hosts[].xhost.carried] | add' r.json)" $((4 * n + 2))
	eq "cross-host deps by message" "$(jq '[.hosts[].xhost.deps] | add' r.json)" 0
	# the plan is every rank's: only the untraced client is played, by the
	# server's rank; the benchmark's connections went between the ranks
	[ "$(grep -o '1 connections with a peer outside the trace' replay.err | wc -l)" = 2 ] ||
		fail "the benchmark's connections were not between the ranks: $(grep 'peer outside' replay.err)"
	# the client alone, its server played by the replayer: hiredis connects
	# again to see its non-blocking connect's end, which must not be a
	# second connection
	"$IOTRACE" analyze --infer-causality cli.iot -o solo.jsonl || fail "analyze of the client"
	"$IOTRACE" replay solo.jsonl --root "$T/solo" --natural --report solo.json --no-progress \
		--stall-timeout 20 2>solo.err || fail "the client's replay alone exited $?"
	eq "client alone: failed ($(jq -c '.failures[:3]' solo.json))" "$(jq .failed solo.json)" 0
	eq "client alone: short" "$(jq .short solo.json)" 0
}
