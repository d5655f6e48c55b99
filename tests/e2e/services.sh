# SPDX-License-Identifier: GPL-2.0
# A real server under load from its own benchmark client: attach to it with
# record -p, analyze, replay in a sandbox with the clients played by the
# replayer.  What was captured is printed, so the log says what was tested.

# replay_mode JSONL MODE [WHAT]: a replay in --MODE (with FDLIMIT
# descriptors, if set) that reproduced every call: no failure, no short
# transfer, no socket read or write skipped or emulated, no stall (a stall
# exits 1).  WHAT says which replay this was in the log.
replay_mode()
{
	local mode=$2 what=${3:-}
	rm -rf root
	(
		[ -n "${FDLIMIT:-}" ] && ulimit -n "$FDLIMIT"
		exec "$IOTRACE" replay "$1" --root root --$mode --report rep.json --no-progress \
			--stall-timeout 20
	) 2>replay.err || fail "replay --$mode $what exited $?: $(tail -5 replay.err)"
	echo "note: replay --$mode${what:+ $what}: $(jq -c '{events, failed, short, skipped, emulated, wall_ns}' rep.json)"
	eq "failed --$mode $what ($(jq -c '.failures[:4]' rep.json))" "$(jq .failed rep.json)" 0
	eq "short --$mode $what ($(jq -c '.short_calls[:4]' rep.json))" "$(jq .short rep.json)" 0
	eq "socket calls skipped --$mode $what" "$(jq '[.skipped | to_entries[] |
		select(.key | test("^(recv|send|accept|sendfile)"))] | map(.value) | add // 0' rep.json)" 0
}

# replay_both JSONL: replay_mode in --afap, then in --natural
replay_both()
{
	replay_mode "$1" afap
	replay_mode "$1" natural
}

# cpu_hogs N: N busy loops, bounded in time and stopped however the test
# ends, their pids in HOGS
cpu_hogs()
{
	local i
	HOGS=
	for ((i = 0; i < $1; i++)); do
		timeout 60 sh -c 'while :; do :; done' &
		HOGS="$HOGS $!"
	done
	trap 'kill $HOGS 2>/dev/null' EXIT
}

# redis_start PORT DIR: a redis-server with an append-only file fsynced at
# every write
redis_start()
{
	redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly yes \
		--appendfsync always --dir "$2" --daemonize no >"$2/server.log" 2>&1 &
	echo $! >"$2/server.pid"
	wait_for "$2/server.log" "Ready to accept connections" 10
}

# redis_case PIPELINE: attach, load with redis-benchmark -P PIPELINE, replay.
redis_case()
{
	need_bpf
	command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
		skip "redis-server and redis-benchmark are not installed (make deps)"
	local port pid rec n=$((PIPE > 1 ? 20000 : 3000))
	port=$(free_port)
	mkdir srv
	redis_start "$port" "$T/srv"
	pid=$(cat srv/server.pid)
	# attach first, then load it: the connections are accepted while traced
	"$IOTRACE" record -p "$pid" -d 5 -o r.iot 2>rec.err &
	rec=$!
	recording_started r.iot
	timeout 20 redis-benchmark -p "$port" -n $n -c 8 -P "$PIPE" -t set,get,lpush -q \
		>bench.out 2>&1 || fail "redis-benchmark: $(tail -c 300 bench.out)"
	wait $rec || fail "record exited $?: $(cat rec.err)"
	kill "$pid"
	"$IOTRACE" info r.iot >info.json
	"$IOTRACE" analyze r.iot --infer-causality -o r.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept4: .calls.accept4, read: .calls.read, write: .calls.write,
		fdatasync: .calls.fdatasync}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "clients accepted" "$(jq '.calls.accept4 // 0' info.json)" 8
	ge "appendfsync always" "$(jq '.calls.fdatasync // 0' info.json)" 10
	replay_both r.jsonl
	# the clients' reads and writes were played; only /proc/self/stat (outside any
	# sandbox) is skipped, one read per open
	eq "socket I/O skipped" "$(jq '(.skipped.read // 0) + (.skipped.write // 0) - (.skipped.openat // 0)' rep.json)" 0
	# the append-only file grew in the sandbox as it did on the host
	ge "aof written" "$(find root -name '*.aof*' -type f -size +1k | wc -l)" 1
}

test_redis_fsync_always_pipelined()
{
	PIPE=16 redis_case
}

test_redis_fsync_always()
{
	PIPE=1 redis_case
}

# nginx_case GENERATOR: a master and two worker processes that inherited its
# listener, sendfile on, attached through the master, loaded by GENERATOR:
# wrk (keep-alive: many requests per connection) or ab (a connection per
# request).
nginx_case()
{
	need_bpf
	command -v nginx >/dev/null && command -v "$1" >/dev/null ||
		skip "nginx and $1 are not installed (make deps)"
	local port master rec
	port=$(free_port)
	chmod 755 "$T"	# the workers run as www-data
	mkdir -p www logs
	head -c 20000 /dev/urandom >www/index.html
	cat >nginx.conf <<-CONF
	worker_processes 2;
	daemon off;
	pid $T/nginx.pid;
	error_log $T/logs/error.log;
	events { worker_connections 64; use epoll; }
	http {
		sendfile on;
		access_log $T/logs/access.log;
		server { listen 127.0.0.1:$port; root $T/www; }
	}
	CONF
	nginx -c "$T/nginx.conf" -p "$T" &
	wait_for "$T/nginx.pid" "" 10
	sleep 0.3
	master=$(cat nginx.pid)
	"$IOTRACE" record -p "$master" -d 5 -o n.iot 2>rec.err &
	rec=$!
	recording_started n.iot
	case $1 in
	wrk) timeout 20 wrk -t2 -c8 -d2s "http://127.0.0.1:$port/index.html" >load.out 2>&1 ;;
	ab) timeout 20 ab -q -n 1000 -c 4 "http://127.0.0.1:$port/index.html" >load.out 2>&1 ;;
	esac || fail "$1: $(tail -c 300 load.out)"
	wait $rec || fail "record exited $?: $(cat rec.err)"
	kill "$master"
	"$IOTRACE" info n.iot >info.json
	"$IOTRACE" analyze n.iot --infer-causality -o n.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept4: .calls.accept4, recvfrom: .calls.recvfrom, sendfile: .calls.sendfile,
		writev: .calls.writev}' info.json)"
	eq "processes" "$(jq .processes info.json)" 3
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "requests served" "$(jq '.calls.sendfile // 0' info.json)" 1000
	if [ "$1" = ab ]; then
		# a connection per request, fifteen times as many as the replay
		# may open descriptors: the played clients connect a few at a
		# time, leave the server a quarter of the descriptors, and each
		# closes when the server is done with it, however late the
		# replayer's drain thread sees that
		FDLIMIT=64 replay_both n.jsonl
		# and with both CPUs busy, so that the replayer's threads are
		# preempted anywhere: between the drain thread's wakeup for a
		# connection and its read, an application thread may close ours
		# and the application's accept get its number (the drain thread
		# once read the application's requests so, in one such replay in
		# twenty here)
		cpu_hogs 2
		for i in 1 2 3 4 5 6; do
			FDLIMIT=64 replay_mode n.jsonl natural "with the CPUs busy, round $i"
		done
		kill $HOGS
		wait $HOGS 2>/dev/null
	else
		replay_both n.jsonl
	fi
	eq "skipped" "$(jq '[.skipped[]] | add // 0' rep.json)" 0
	# keep-alive: most requests are read after a held epoll_wait, their
	# bytes sent before the read (the last replay_both ran was --natural):
	# during that wait, or by the client as soon as it had the answer to
	# the one before
	if [ "$1" = wrk ]; then
		ge "requests fed before their read" \
			"$(jq '.fed_ahead + .fed_by_client' rep.json)" $(($(jq .calls.recvfrom info.json) / 4))
		ge "requests fed by the client" "$(jq .fed_by_client rep.json)" 1
	fi
	[ -s "root$T/logs/access.log" ] || fail "the access log was not written in the sandbox"
}

test_nginx_keepalive_wrk()
{
	nginx_case wrk
}

test_nginx_connection_per_request_ab()
{
	nginx_case ab
}

# PostgreSQL: a postmaster that accepts and forks a backend per client,
# which reads the client's queries and fsyncs the WAL, under pgbench.
test_postgres_pgbench()
{
	need_bpf
	local bin=/usr/lib/postgresql/15/bin port pm rec
	[ -x $bin/pg_ctl ] && command -v pgbench >/dev/null && id postgres >/dev/null 2>&1 ||
		skip "postgresql-15 is not installed (make deps)"
	port=$(free_port)
	chmod 755 "$T"
	mkdir pg
	chown postgres pg
	pg() { runuser -u postgres -- "$@"; }
	pg $bin/initdb -D "$T/pg/data" -A trust -U postgres >initdb.log 2>&1 ||
		fail "initdb: $(tail -3 initdb.log)"
	pg $bin/pg_ctl -D "$T/pg/data" -l "$T/pg/server.log" -w -t 20 -o \
		"-p $port -k $T/pg -c listen_addresses=127.0.0.1 -c max_connections=20" \
		start >/dev/null || fail "pg_ctl start: $(tail -3 pg/server.log)"
	# stopped however the test ends
	trap "runuser -u postgres -- $bin/pg_ctl -D '$T/pg/data' -m immediate stop >/dev/null 2>&1" EXIT
	pg pgbench -h 127.0.0.1 -p "$port" -U postgres -i -s 1 postgres >init.log 2>&1 ||
		fail "pgbench -i: $(tail -3 init.log)"
	pm=$(head -1 pg/data/postmaster.pid)
	"$IOTRACE" record -p "$pm" -d 5 -o p.iot 2>rec.err &
	rec=$!
	recording_started p.iot
	# -C: a connection per transaction, so backends are forked while traced
	# (accept in the postmaster, reads in the backend) however late the
	# attach completes
	timeout 20 runuser -u postgres -- pgbench -h 127.0.0.1 -p "$port" -U postgres \
		-C -c 4 -j 2 -T 3 postgres >bench.out 2>&1 || fail "pgbench: $(tail -3 bench.out)"
	wait $rec || fail "record exited $?: $(cat rec.err)"
	"$IOTRACE" info p.iot >info.json
	"$IOTRACE" analyze p.iot --infer-causality -o p.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept: .calls.accept, clone: .calls.clone, recvfrom: .calls.recvfrom,
		fdatasync: .calls.fdatasync}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "backends forked" "$(jq '.calls.clone // 0' info.json)" 4
	ge "WAL fsyncs" "$(jq '.calls.fdatasync // 0' info.json)" 10
	# each backend, a fork, has copies of the postmaster's descriptors,
	# which close when its calls are done, as its exit closed them: under
	# 1024 descriptors, a hundred backends' copies kept open would not fit
	(ulimit -n 1024 && replay_both p.jsonl) || exit 1
}

# memcached: a listener thread that accepts and hands each connection to one
# of four worker threads through that worker's eventfd, each worker with its
# own epoll loop; what the other services do not: one process, connections
# moving between threads, a wake-up per hand-over.
test_memcached_threads()
{
	need_bpf
	command -v memcached >/dev/null && command -v memcaslap >/dev/null ||
		skip "memcached and memcaslap are not installed (make deps)"
	local port pid rec i
	port=$(free_port)
	memcached -p "$port" -l 127.0.0.1 -U 0 -t 4 -m 64 -u nobody >mc.log 2>&1 &
	pid=$!
	trap "kill $pid 2>/dev/null" EXIT
	for ((i = 0; i < 100; i++)); do
		ss -Htln "sport = :$port" | grep -q . && break
		sleep 0.05
	done
	"$IOTRACE" record -p "$pid" -d 5 -o m.iot 2>rec.err &
	rec=$!
	recording_started m.iot
	timeout 20 memcaslap -s "127.0.0.1:$port" -T 2 -c 8 -t 2s >load.out 2>&1 ||
		fail "memcaslap: $(tail -c 300 load.out)"
	kill $rec
	wait $rec || fail "record exited $?: $(cat rec.err)"
	"$IOTRACE" info m.iot >info.json
	"$IOTRACE" analyze m.iot --infer-causality -o m.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept4: .calls.accept4, read: .calls.read, sendmsg: .calls.sendmsg,
		epoll_wait: .calls.epoll_wait}' info.json)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "threads" "$(jq .threads info.json)" 5
	ge "clients accepted" "$(jq '.calls.accept4 // 0' info.json)" 8
	ge "replies" "$(jq '.calls.sendmsg // 0' info.json)" 1000
	replay_both m.jsonl
	# the hand-overs: the listener's eventfd writes and the worker's reads of
	# it, on eventfds made before the attach (outside the trace): nothing else
	eq "emulated other than the eventfds" "$(jq '.emulated -
		(.reasons.outside_sandbox.emulated // 0)' rep.json)" 0
	# (ge: at most a write and a read per client)
	ge "room for the emulated eventfd hand-overs" "$((2 * $(jq '.calls.accept4' info.json)))" \
		"$(jq .emulated rep.json)"
	eq "skipped" "$(jq '.skipped_total' rep.json)" 0
}

# A connection handed to another process with SCM_RIGHTS: the acceptor
# passes each accepted socket to a child over a socketpair and closes its
# copy; the child reads the request, answers and reads to the end.  In the
# replay the child's fd is the one the acceptor's sendmsg carried, so its
# reads are fed by the replayer's client as the acceptor's would be: nothing
# emulated.
test_connection_passed_with_scm_rights()
{
	need_bpf
	local rec port i n=4
	"$IOTRACE" record -o p.iot -- "$BUILD/progs/passfd" "$T/port" $n 2>rec.err &
	rec=$!
	wait_for port "" 20 # a line: listening
	port=$(cat port)
	for ((i = 0; i < n; i++)); do
		timeout 10 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port; printf 'GET %d\n' $i >&3
			read -r l <&3; [ \"\$l\" = ok ]" || fail "client $i: no answer"
	done
	wait $rec || fail "record exited $?: $(cat rec.err)"
	"$IOTRACE" analyze p.iot --infer-causality -o p.jsonl || fail "analyze"
	eq "fds sent" "$(jq -s '[.[] | select(.call == "sendmsg" and .passed_fd >= 0)] | length' p.jsonl)" $n
	eq "fds received" "$(jq -s '[.[] | select(.call == "recvmsg" and .passed_fd >= 0)] | length' \
		p.jsonl)" $n
	replay_both p.jsonl
	eq "emulated" "$(jq .emulated rep.json)" 0
	eq "skipped" "$(jq .skipped_total rep.json)" 0
}
