# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the tests and the benchmark: whether the orderings a program's
# own log implies are in an annotated trace.

# ordered JSONL PAIRS: every [from, to] of PAIRS (a JSON array of event ids)
# has `to` ordered after `from` through deps and same-thread order; prints
# each pair that is not and exits 1.  reaches() for many pairs at once: vector
# clocks, vc[e, t] the last call of thread t that event e comes after,
# computed in passes in id order until none changes (a dep may point forward,
# within its call's span).  Iterative: awk's recursion overflows on the
# hundred thousand polls of an Open MPI trace.
ordered()
{
	[ -s "$1" ] && [ -s "$2" ] || { echo "ordered: $1 or $2 is missing or empty"; return 1; }
	{
		jq -r '.[] | "pair \(.[0]) \(.[1])"' "$2"
		jq -r 'select(.type == "event") | "ev \(.id) \(.tid) \([.deps[]?.id] | join(","))"' "$1"
	} | awk '
	BEGIN { np = ne = 0 }
	$1 == "pair" { pf[np] = $2; pt[np] = $3; np++; next }
	{
		tid[$2] = $3; deps[$2] = $4; tids[$3] = 1; pos[$2] = ++cnt[$3]
		if ($3 in last)
			deps[$2] = deps[$2] (deps[$2] == "" ? "" : ",") last[$3]
		last[$3] = $2; ids[ne++] = $2
	}
	END {
		do {
			changed = 0
			for (i = 0; i < ne; i++) {
				e = ids[i]
				n = split(deps[e], d, ",")
				for (k = 1; k <= n; k++)
					for (t in tids)
						if (vc[d[k], t] > vc[e, t]) {
							vc[e, t] = vc[d[k], t]
							changed = 1
						}
				vc[e, tid[e]] = pos[e]
			}
		} while (changed && ++pass < ne)
		for (i = 0; i < np; i++)
			if (vc[pt[i], tid[pf[i]]] < pos[pf[i]]) {
				print "not ordered: " pf[i] " -> " pt[i]
				bad = 1
			}
		exit bad
	}'
}

# mpilog_want JOB DIR LOG...: the orderings across ranks that the logs of
# tests/progs/mpiio (LOG.R, one a rank) imply, as DIR/pairs ("FROM TO",
# HOSTNAME:KIND:J each) and as DIR/want.json, the event ids of JOB (a merged
# annotated trace) for them, for ordered().  A pair is a call of one rank
# that a token or a barrier put before a call of another: the last write or
# read before the send (or barrier) and the first after the receive (or
# barrier).  Says which logged call has no event and returns 1 if one has not.
mpilog_want()
{
	local job=$1 dir=$2
	shift 2
	jq -r -s '
		(.[0].hosts | map({key: .name, value: .hostname}) | from_entries) as $hn
		| (.[0].threads | map({key: (.tid | tostring), value: $hn[.host]}) | from_entries) as $h
		| .[1:][] | select(.call == "pwrite64" or .call == "pread64")
		| select(.args.fd.path // "" | test("/r[0-9]+$"))
		| "\($h[.tid | tostring]):\(if .call == "pwrite64" then "write" else "read" end):\(.args.offset / 65536 | floor) \(.id)"' \
		"$job" >"$dir/ids" || return 1
	awk '
	FNR == 1 { r++; host[r] = $2; last = ""; np = 0; next }
	$1 == "write" || $1 == "read" {
		io = host[r] ":" $1 ":" $2
		for (i = 0; i < np; i++)
			after[pend[i]] = io
		np = 0
		last = io
		next
	}
	$1 == "send" { k = "m " r " " ($2 + 1) " " (++ns[r, $2 + 1]); before[k] = last; next }
	$1 == "recv" { k = "m " ($2 + 1) " " r " " (++nr[$2 + 1, r]); pend[np++] = k; next }
	$1 == "barrier" {
		n = ++nb[r]
		nbar = n > nbar ? n : nbar
		before["b " r " " n] = last
		pend[np++] = "b " r " " n
	}
	END {
		for (k in before) {
			if (substr(k, 1, 1) != "m" || !(k in after) || before[k] == "")
				continue
			print before[k], after[k]
		}
		for (n = 1; n <= nbar; n++)
			for (a = 1; a <= r; a++)
				for (b = 1; b <= r; b++) {
					ka = "b " a " " n
					kb = "b " b " " n
					if (a != b && before[ka] != "" && (kb in after))
						print before[ka], after[kb]
				}
	}' "$@" >"$dir/pairs" || return 1
	awk 'NR == FNR { id[$1] = $2; next }
	     { if (!($1 in id) || !($2 in id)) { print "no event for " $0 > "/dev/stderr"; exit 1 }
	       printf "%s[%s,%s]", n++ ? "," : "[", id[$1], id[$2] }
	     END { print "]" }' "$dir/ids" "$dir/pairs" >"$dir/want.json"
}

# xhost_false_deps JOB: how many cross-host data deps of JOB no bytes show:
# a data dep from another host must be a send whose bytes the receive took,
# or the shutdown whose end of stream it read (barrier deps, inferred from
# timing, are xhost_barriers')
xhost_false_deps()
{
	jq -s '
		(.[0].threads | map({key: (.tid | tostring), value: .host}) | from_entries) as $host
		| (.[1:] | map({key: (.id | tostring), value: .}) | from_entries) as $by
		| [.[1:][] | . as $e | .deps[]? | select(.kind != "barrier") | $by[.id | tostring] as $s
		   | select($host[$s.tid | tostring] != $host[$e.tid | tostring])
		   | select(($s.conn != $e.conn) or ($s.conn == null) or
			    if $s.call == "shutdown" then $e.ret != 0
			    else ($s.stream == null or $e.stream == null or
				  ($s.stream[0] >= $e.stream[1]) or ($e.stream[0] >= $s.stream[1]) or
				  ([$s.call] | inside(["read", "readv", "recvfrom", "recvmsg"])))
			    end)]
		| length' "$1"
}

# xhost_barriers JOB: "HOSTS WAITS BAD": how many hosts the barrier deps of JOB
# join, how many waits they end, and how many of them are not a wait that
# follows a send of another host, on a socket no connection of the job is
# (an outside peer: the daemon that completes the collective)
xhost_barriers()
{
	jq -rs '
		(.[1:] | map({key: (.id | tostring), value: .}) | from_entries) as $by
		| [.[1:][] | . as $e | .deps[]? | select(.kind == "barrier")
		   | {to: $e, from: $by[.id | tostring]}] as $b
		| ([$b[] | .to.host, .from.host] | unique | length) as $hosts
		| ($b | map(.to.id) | unique | length) as $waits
		| ($b | map(select(.to.host == .from.host or .from.conn != null
			or (.from.args.fd.type // "") != "socket"
			or ([.from.call] | inside(["write", "writev", "sendto", "sendmsg"]) | not)))
		   | length) as $bad
		| "\($hosts) \($waits) \($bad)"' "$1"
}

