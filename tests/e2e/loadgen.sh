# SPDX-License-Identifier: GPL-2.0
# The benchmark's load generator (bench/loadgen.c) against real servers:
# every request it counts was served once, errors are counted as errors, and
# its latency figures are ordered.  Correctness only: no timing is asserted.

LOADGEN=$BUILD/bench/loadgen

need_loadgen()
{
	[ -x "$LOADGEN" ] || fail "$LOADGEN is not built (make $LOADGEN)"
}

# field NAME: NAME's value in the last report (lg.out).
field()
{
	tr ' ' '\n' <lg.out | sed -n "s/^$1=//p"
}

# report_sane N: N requests, all ok, and 0 <= p50 <= p90 <= p99 <= max.
report_sane()
{
	eq "requests ($(cat lg.out))" "$(field requests)" "$1"
	eq "ok ($(cat lg.out))" "$(field ok)" "$1"
	eq "errors" "$(field errors)" 0
	awk -v a="$(field p50_us)" -v b="$(field p90_us)" -v c="$(field p99_us)" \
		-v d="$(field max_us)" 'BEGIN { exit !(a >= 0 && a <= b && b <= c && c <= d) }' ||
		fail "latencies not ordered: $(cat lg.out)"
}

test_loadgen_redis_set_and_get()
{
	command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
		skip "redis-server is not installed (make deps)"
	need_loadgen
	local port pid
	port=$(free_port)
	redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$T" \
		--daemonize no >server.log 2>&1 &
	pid=$!
	trap "kill $pid 2>/dev/null" EXIT
	wait_for server.log "Ready to accept connections" 10
	# open loop: 2000 SETs due at 4000/s; the last is due 0.5 s after the first
	"$LOADGEN" -p "$port" -k set -c 4 -r 4000 -n 2000 -d 30 >lg.out ||
		fail "loadgen set exited $?: $(cat lg.out)"
	report_sane 2000
	awk -v e="$(field elapsed_s)" 'BEGIN { exit !(e >= 1999 / 4000) }' ||
		fail "sent ahead of its schedule: $(cat lg.out)"
	# the SETs reached redis: keys k:0 .. k:999, each written twice
	eq "keys" "$(redis-cli -p "$port" dbsize)" 1000
	eq "value" "$(redis-cli -p "$port" get k:999)" xxxxxxxxxxxxxxxx
	# closed loop, GETs of those keys
	"$LOADGEN" -p "$port" -k get -c 8 -r 0 -n 3000 -d 30 >lg.out ||
		fail "loadgen get exited $?: $(cat lg.out)"
	report_sane 3000
	eq "commands served" "$(redis-cli -p "$port" info commandstats |
		awk -F'[=,:]' '/^cmdstat_(set|get):/ { s += $3 } END { print s }')" 5001
}

test_loadgen_http_keepalive()
{
	command -v nginx >/dev/null || skip "nginx is not installed (make deps)"
	need_loadgen
	local port
	port=$(free_port)
	chmod 755 "$T" # the workers run as www-data
	mkdir -p www logs
	head -c 65536 /dev/urandom >www/f.bin
	# keepalive_requests 50: the generator must reconnect when told to close
	cat >nginx.conf <<-CONF
	worker_processes 1;
	daemon off;
	pid $T/nginx.pid;
	error_log $T/logs/error.log;
	events { worker_connections 64; use epoll; }
	http {
		keepalive_requests 50;
		access_log $T/logs/access.log;
		server { listen 127.0.0.1:$port; root $T/www; }
	}
	CONF
	nginx -c "$T/nginx.conf" -p "$T" &
	trap "kill $! 2>/dev/null" EXIT
	wait_for "$T/nginx.pid" "" 10
	sleep 0.3
	"$LOADGEN" -p "$port" -k http -u /f.bin -c 4 -r 2000 -n 1000 -d 30 >lg.out ||
		fail "loadgen exited $?: $(cat lg.out)"
	report_sane 1000
	ge "reconnects" "$(field reconnects)" 16
	# every request served once, in full
	eq "requests served" "$(grep -c '"GET /f.bin HTTP/1.1" 200 65536 ' logs/access.log)" 1000
	# a 404 is an error, and the exit status says so
	expect_exit 1 "$LOADGEN" -p "$port" -k http -u /missing -c 2 -r 0 -n 20 -d 30
	tr ' ' '\n' <"$T/out" | grep -qx 'errors=20' || fail "404s not counted: $(cat "$T/out")"
}

test_loadgen_bad_use()
{
	need_loadgen
	expect_exit 2 "$LOADGEN"
	expect_exit 2 "$LOADGEN" -p 1 -k http -n 0
	expect_exit 2 "$LOADGEN" -p 1 -k ftp
	expect_exit 2 "$LOADGEN" -p 1 -k http -d 100000
}
