#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Installs the Debian packages iotrace builds, tests and benchmarks with, and
# only those that are missing: a machine that has them all is left untouched.
set -euo pipefail

pkgs=(
	make gcc clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev libjansson-dev
	libcunit1-dev jq strace bpftrace fio util-linux e2fsprogs xfsprogs btrfs-progs
	gnuplot-nox time valgrind redis-server redis-tools nginx apache2-utils mandoc
	sqlite3 libsqlite3-dev rocksdb-tools
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
