#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Stands up N "hosts" on this machine as network namespaces, runs a command
# that can start an Open MPI job across them, and takes them down again:
#
#   scripts/netns-hosts.sh N -- CMD [ARG]...
#
# Each host is a namespace with one veth to a bridge in a hub namespace and a
# 10.77.0.x address; nothing is added to the caller's namespace, so the job's
# traffic cannot leave them. mpirun runs in the hub (10.77.0.1) and starts its
# daemons through a plm_rsh_agent that enters the host's namespace, with a
# UTS namespace of its own whose hostname is the host's name. CMD runs in the
# hub with:
#   NH_HOSTS    the host names, space-separated, rank order (NAME0 NAME1 ...)
#   NH_MPIRUN   mpirun and the options that keep it inside the namespaces
#               (use as: $NH_MPIRUN -np N prog ...)
#   NH_PREFIX   the prefix of every name made here
# Names derive from this script's pid, so parallel runs do not collide, and
# the exit trap undoes everything, whatever CMD does. Needs root and
# openmpi-bin.
set -euo pipefail

usage() {
	echo "usage: $0 N -- CMD [ARG]..." >&2
	exit 2
}

[ $# -ge 3 ] && [ "$2" = -- ] || usage
n=$1
shift 2
case $n in
'' | *[!0-9]*) usage ;;
esac
[ "$n" -ge 1 ] && [ "$n" -le 200 ] || { echo "iotrace: netns-hosts: 1 to 200 hosts, not $n" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "iotrace: netns-hosts: needs root (network namespaces)" >&2; exit 1; }
command -v mpirun >/dev/null || { echo "iotrace: netns-hosts: no mpirun (apt-get install openmpi-bin)" >&2; exit 1; }
# ip netns exec makes / a slave mount in the namespace it enters, and a chroot
# into a plain directory has no mount there
mountpoint -q / || { echo "iotrace: netns-hosts: / is not a mount point (a chroot?): ip netns exec needs one (mount --bind ROOT ROOT before chroot)" >&2; exit 1; }

P=nh$$
hub=${P}hub
dir=$(mktemp -d "/tmp/iotrace-$P.XXXXXX")
hosts=()

teardown() {
	for h in "${hosts[@]}"; do
		ip netns del "$h" 2>/dev/null || true
		rm -rf "/etc/netns/$h"
	done
	ip netns del "$hub" 2>/dev/null || true
	rm -rf "/etc/netns/$hub" "$dir"
}
trap teardown EXIT
trap 'exit 130' INT TERM

ip netns add "$hub"
ip -n "$hub" link set lo up
ip -n "$hub" link add br0 type bridge
ip -n "$hub" addr add 10.77.0.1/24 dev br0
ip -n "$hub" link set br0 up
for ((i = 0; i < n; i++)); do
	h=${P}h$i
	hosts+=("$h")
	ip netns add "$h"
	ip -n "$hub" link add "v$i" type veth peer name eth0 netns "$h"
	ip -n "$hub" link set "v$i" master br0 up
	ip -n "$h" link set lo up
	ip -n "$h" addr add "10.77.0.$((10 + i))/24" dev eth0
	ip -n "$h" link set eth0 up
done

# ip netns exec binds /etc/netns/NAME/hosts over /etc/hosts: every namespace
# resolves the hosts' names, the hub's included
mkdir -p "/etc/netns/$hub"
{
	echo "127.0.0.1 localhost"
	echo "10.77.0.1 $hub"
	for ((i = 0; i < n; i++)); do echo "10.77.0.$((10 + i)) ${hosts[i]}"; done
} >"/etc/netns/$hub/hosts"
for h in "${hosts[@]}"; do
	mkdir -p "/etc/netns/$h"
	cp "/etc/netns/$hub/hosts" "/etc/netns/$h/hosts"
done

# mpirun calls the agent as ssh: HOST COMMAND...; the command is for a shell
cat >"$dir/agent" <<'EOF'
#!/bin/sh
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host && $*"
EOF
chmod +x "$dir/agent"
for h in "${hosts[@]}"; do echo "$h slots=1"; done >"$dir/hostfile"

export NH_PREFIX=$P
export NH_HOSTS="${hosts[*]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# --bind-to none: otherwise every rank is pinned to CPU 0; the TCP interfaces
# limited to the bridge's subnet keep Open MPI off every other interface
export NH_MPIRUN="mpirun --hostfile $dir/hostfile --mca plm_rsh_agent $dir/agent \
--mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 \
--bind-to none --map-by node"
ip netns exec "$hub" "$@"
