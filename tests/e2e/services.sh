# SPDX-License-Identifier: GPL-2.0
# A real server under load from its own benchmark client: attach to it with
# record -p, analyze, replay in a sandbox with the clients played by the
# replayer.  What was captured is printed, so the log says what was tested.

# redis_start PORT DIR: a redis-server with an append-only file, fsync each second
redis_start()
{
	redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly yes \
		--appendfsync everysec --dir "$2" --daemonize no >"$2/server.log" 2>&1 &
	echo $! >"$2/server.pid"
	wait_for "$2/server.log" "Ready to accept connections" 10
}

test_redis_attach_and_replay()
{
	need_bpf
	command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
		skip "redis-server and redis-benchmark are not installed (make deps)"
	local port=6391 pid
	mkdir srv
	redis_start $port "$T/srv"
	pid=$(cat srv/server.pid)
	# attach first, then load it: the connections are accepted while traced
	"$IOTRACE" record -p "$pid" -d 6 -o r.iot 2>rec.err &
	local rec=$!
	recording_started r.iot
	redis-benchmark -p $port -n 20000 -c 8 -t set,get,lpush -q >bench.out 2>&1 ||
		fail "redis-benchmark: $(cat bench.out)"
	wait $rec || fail "record exited $?: $(cat rec.err)"
	kill "$pid"
	"$IOTRACE" info r.iot >info.json
	"$IOTRACE" analyze r.iot --infer-causality -o r.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept4: .calls.accept4, epoll_wait: .calls.epoll_wait, read: .calls.read,
		write: .calls.write, fdatasync: .calls.fdatasync}' info.json)"
	echo "note: edges: $(head -1 r.jsonl | jq -c .causality_stats.edges)"
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "clients accepted" "$(jq '.calls.accept4 // 0' info.json)" 8
	ge "threads" "$(jq .threads info.json)" 2
	"$IOTRACE" replay r.jsonl --root root --afap --report rep.json --no-progress \
		--stall-timeout 20 2>replay.err || fail "replay exited $?: $(tail -5 replay.err)"
	echo "note: replay: $(jq -c '{events, failed, short, skipped}' rep.json)"
	eq "failed" "$(jq .failed rep.json)" 0
	eq "short" "$(jq .short rep.json)" 0
	# the clients' reads and writes were played; only /proc/self/stat (outside any
	# sandbox) is skipped, one read per open
	eq "socket I/O skipped" "$(jq '(.skipped.read // 0) + (.skipped.write // 0) - (.skipped.openat // 0)' rep.json)" 0
	# the append-only file grew in the sandbox as it did on the host
	ge "aof written" "$(find root -name '*.aof*' -type f -size +1k | wc -l)" 1
}

# nginx: a master and two worker processes that inherited its listener,
# attached through the master, loaded by ab.
test_nginx_workers_attach_and_replay()
{
	need_bpf
	command -v nginx >/dev/null && command -v ab >/dev/null ||
		skip "nginx and ab are not installed (make deps)"
	local port=8091 master
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
		sendfile off;
		access_log $T/logs/access.log;
		server { listen 127.0.0.1:$port; root $T/www; }
	}
	CONF
	nginx -c "$T/nginx.conf" -p "$T" &
	wait_for "$T/nginx.pid" "" 10
	sleep 0.3
	master=$(cat nginx.pid)
	"$IOTRACE" record -p "$master" -d 5 -o n.iot 2>rec.err &
	local rec=$!
	recording_started n.iot
	ab -q -n 1000 -c 4 "http://127.0.0.1:$port/index.html" >ab.out 2>&1 || fail "ab: $(cat ab.out)"
	wait $rec || fail "record exited $?: $(cat rec.err)"
	kill "$master"
	"$IOTRACE" info n.iot >info.json
	"$IOTRACE" analyze n.iot --infer-causality -o n.jsonl || fail "analyze"
	echo "note: captured: $(jq -c '{processes, threads, events, lost_events,
		accept4: .calls.accept4, recvfrom: .calls.recvfrom, openat: .calls.openat,
		pread64: .calls.pread64, writev: .calls.writev}' info.json)"
	echo "note: edges: $(head -1 n.jsonl | jq -c .causality_stats.edges)"
	eq "processes" "$(jq .processes info.json)" 3
	eq "lost" "$(jq .lost_events info.json)" 0
	ge "requests served" "$(jq '.calls.writev // 0' info.json)" 1000
	"$IOTRACE" replay n.jsonl --root root --afap --report rep.json --no-progress \
		--stall-timeout 20 2>replay.err || fail "replay exited $?: $(tail -5 replay.err)"
	echo "note: replay: $(jq -c '{events, failed, short, skipped}' rep.json)"
	eq "failed" "$(jq .failed rep.json)" 0
	eq "short" "$(jq .short rep.json)" 0
	eq "skipped" "$(jq '[.skipped[]] | add // 0' rep.json)" 0
	[ -s "root$T/logs/access.log" ] || fail "the access log was not written in the sandbox"
}
