# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/mhwork_tier.sh: the two-tier service of bench/mhaccuracy.sh (issue
# 20): redis-server on host 1, its append-only file fsynced at every write
# on that host's storage, driven by redis-benchmark on host 0 over the
# namespaces' bridge. The span is the benchmark's: the server runs before
# and after it, and its recording starts at the attach (-p), so only host 0
# bounds the span (MHW_tier_MEASURE).

MH_WORKLOADS+=" tier"
# shellcheck disable=SC2034 # read by mhaccuracy.sh
MHW_tier_HOSTS=2 MHW_tier_MEASURE=0
TIER_N=${TIER_N:-$([ "$MODE" = quick ] && echo 300 || echo 1500)}

# tier_up SERVER_HOST: redis-server in SERVER_HOST's namespace, its files in
# that host's directory; its pid in TIER_PID
tier_up() {
	local d=$MH_DATA/h1/redis
	rm -rf "$d"
	mkdir -p "$d"
	# nsenter itself, not mh_on: a function in the background is a
	# subshell, and its pid is not the server's
	nsenter --net="/var/run/netns/$1" redis-server --port 6379 --bind "$(mh_addr 1)" --protected-mode no \
		--save "" --appendonly yes --appendfsync always --dir "$d" --daemonize no \
		>"$d.log" 2>&1 &
	TIER_PID=$!
	until_ok 10 grep -q "Ready to accept" "$d.log" ||
		{ log "tier: redis-server did not start: $(tail -2 "$d.log")"; return 1; }
}

tier_down() {
	kill "$TIER_PID" 2>/dev/null
	until_ok 10 bash -c "! kill -0 $TIER_PID" || kill -9 "$TIER_PID" 2>/dev/null
	wait "$TIER_PID" 2>/dev/null || true
}

# tier_load CLIENT_HOST [RECORD_TO]: the benchmark, recorded when RECORD_TO
# is given
tier_load() {
	local rec=()
	[ -n "${2:-}" ] && rec=("$IOTRACE" record -o "$2" --)
	mh_on "$1" "${rec[@]}" redis-benchmark -h "$(mh_addr 1)" -p 6379 -n "$TIER_N" -c 1 \
		-t set,get -q >"$MH_DATA/tier-load.out" 2>&1
}

mhw_tier_app() {
	local t0 s=-
	tier_up "$2" || { echo -; return; }
	mh_ready
	t0=$(date +%s%N)
	tier_load "$1" && s=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { print (b - a) / 1e9 }')
	tier_down
	echo "$s"
}

mhw_tier_record() {
	local out=$1 rec
	shift
	tier_up "$2" || return 1
	"$IOTRACE" record -p "$TIER_PID" -o "$out/$2.iot" 2>"$out/rec-$2.err" &
	rec=$!
	until_ok 60 test -e "$out/$2.iot"
	mh_ready
	tier_load "$1" "$out/$1.iot" || log "tier: the benchmark failed while recorded"
	kill -INT "$rec"
	wait "$rec" || log "tier: record -p exited $?: $(tail -1 "$out/rec-$2.err")"
	tier_down
}

# every request (TIER_N per test, two tests) and its reply, and the
# benchmark's CONFIG GET and its reply
mhw_tier_pairs() {
	echo $((4 * TIER_N + 2))
}
