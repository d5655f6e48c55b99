#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian packages iotrace builds, tests and benchmarks with, and
# only those that are missing: a machine that has them all is left untouched.
set -euo pipefail

# Each line says what needs its packages; README "Why these libraries" says why.
pkgs=(
	# build: the BPF programs, their skeletons, the binary
	make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev libjansson-dev
	# tests: CUnit; libFuzzer and the ASan runtime (only a Recommends of clang)
	libcunit1-dev libclang-rt-14-dev
	# tests and demo: JSON checks, pkill/ps, setpriv/mount/losetup, valgrind, man page lint,
	# the format gate, the pager the examples pipe dump into
	jq procps util-linux valgrind mandoc clang-format less
	# tests: the real services attached and loaded
	redis-server redis-tools nginx apache2-utils wrk postgresql-15 iproute2
	memcached libmemcached-tools
	# multi-host replay (issue 20): mpirun starts one replayer per host, and
	# the tests' MPI workloads are built with mpicc against libmpi.so.40
	openmpi-bin libopenmpi-dev
	# bench: the other tracers, workloads, file systems, tables and plots
	strace bpftrace linux-perf fio sqlite3 libsqlite3-dev rocksdb-tools e2fsprogs xfsprogs
	btrfs-progs bsdextrautils gnuplot-nox time
	# scripts/fresh-check.sh
	debootstrap
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "iotrace: missing packages: ${missing[*]}; run 'make deps' as root" >&2
	exit 1
fi
echo "iotrace: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
