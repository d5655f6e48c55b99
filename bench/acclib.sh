# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# bench/acclib.sh: the storage configurations of the accuracy benchmarks
# (bench/accuracy.sh, bench/svcaccuracy.sh, bench/mhaccuracy.sh) and how a run
# is started on one.  Sourced after bench/lib.sh.  The caller sets CG (the
# blkio cgroup of "throttled") and IDLE_MS, and calls scratch, which sets TMP
# (the images and mount points go there) and LOOPS (the loop devices made).

# scratch NAME: TMP, a new /var/tmp/iotrace-NAME.XXXXXX, taken down with all
# that is mounted in it, its loop devices and the cgroup CG when the script
# ends, however it ends; STOP, when set, runs first (the command that stops a
# service the script started)
scratch() {
	TMP=$(mktemp -d "/var/tmp/iotrace-$1.XXXXXX")
	LOOPS=()
	trap scratch_cleanup EXIT
	trap 'exit 130' INT TERM
}

scratch_cleanup() {
	set +e
	local m l
	[ -n "${STOP:-}" ] && eval "$STOP" >/dev/null 2>&1
	for m in "$TMP"/mnt/*; do mountpoint -q "$m" && umount "$m"; done
	for l in "${LOOPS[@]}"; do losetup -d "$l"; done
	[ -n "${CG:-}" ] && [ -d "$CG" ] && rmdir "$CG"
	rm -rf "$TMP"
}

# configs PAIR...: each configuration the pairs name ("SRC DST [...]"), once;
# "throttled" is an ext4 whose device is throttled in CG
configs() {
	local -A made
	local pair src dst c
	need mkfs.btrfs btrfs-progs
	for pair in "$@"; do
		read -r src dst _ <<<"$pair"
		for c in $src $dst; do
			[ -n "${made[$c]:-}" ] && continue
			made[$c]=1
			if [ "$c" = throttled ]; then
				fs throttled ext4
				throttle throttled
			else
				fs "$c" "$c"
			fi
		done
	done
}

# sysroot [TAG]: SYSROOT, the replay options that keep the trace's files of
# the system disk (the application's binary, libraries, ld.so.cache, locale)
# on the system disk, as the application reads them on every configuration,
# not on the device being measured; TAG names a root of its own, as each
# root belongs to one trace
sysroot() {
	local d
	SYSROOT=()
	for d in $(stat -c '%Hd:%Ld' /usr/lib "$TMP" | sort -u); do
		SYSROOT+=(--dev-root "$d=$TMP/sys-${1:+$1-}${d/:/-}")
	done
}

# need CMD PACKAGE: install PACKAGE from Debian when CMD is missing
need() {
	have "$1" && return 0
	log "$1 missing: apt-get install $2"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" \
		>/dev/null 2>&1 || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -qq --no-install-recommends "$2" >/dev/null; }
}

# fs NAME TYPE: a 2 GiB loop device with direct I/O carrying TYPE at $TMP/mnt/NAME.
# Its backing file is written whole first: over a sparse one, a first write
# to a block allocates it on the machine's disk, in that file system's
# journal, and a loop request then waited up to 3 s for a commit there
fs() {
	local img=$TMP/$1.img dev
	dd if=/dev/zero of="$img" bs=4M count=512 oflag=direct status=none
	dev=$(losetup --direct-io=on -f --show "$img")
	LOOPS+=("$dev")
	case $2 in
	ext4) mkfs.ext4 -q -F "$dev" ;;
	xfs) mkfs.xfs -q -f "$dev" ;;
	btrfs) mkfs.btrfs -q -f "$dev" >/dev/null ;;
	esac
	mkdir -p "$TMP/mnt/$1"
	mount "$dev" "$TMP/mnt/$1"
	echo "$dev" >"$TMP/$1.dev"
}

# throttle NAME: cgroup v1 blkio limits on NAME's device, IOPS and bandwidth
throttle() {
	local mm
	mm=$(lsblk -dno MAJ:MIN "$(cat "$TMP/$1.dev")" | tr -d ' ')
	mkdir -p "$CG"
	echo "$mm 5000" >"$CG/blkio.throttle.read_iops_device"
	echo "$mm 2000" >"$CG/blkio.throttle.write_iops_device"
	echo "$mm $((64 << 20))" >"$CG/blkio.throttle.read_bps_device"
	echo "$mm $((32 << 20))" >"$CG/blkio.throttle.write_bps_device"
}

# run CONFIG CMD...: CMD, inside the throttling cgroup for "throttled"
run() {
	local cfg=$1
	shift
	if [ "$cfg" = throttled ]; then
		# A subshell joins the cgroup and execs CMD: no other program's
		# start-up in the application's time
		(echo "$BASHPID" >"$CG/cgroup.procs" && exec "$@")
	else
		"$@"
	fi
}

# run_timed CONFIG CMD...: CMD as run runs it, its output discarded; its
# seconds, to stdout, from its exec to its exit.  The clock starts after the cgroup join, as a
# replay's timed phase starts long after its own: a cgroup v1 attach waits
# for an RCU grace period, milliseconds the replay's wall_ns never sees.
# Bash's own clock, read without a fork on either side.
run_timed() {
	local cfg=$1 t0 t1
	shift
	(
		[ "$cfg" = throttled ] && echo "$BASHPID" >"$CG/cgroup.procs"
		echo "${EPOCHREALTIME/[^0-9]/}" >"$TMP/t0"
		exec "$@" >/dev/null
	) || return
	t1=${EPOCHREALTIME/[^0-9]/}
	t0=$(cat "$TMP/t0")
	awk -v a="$t0" -v b="$t1" 'BEGIN { print (b - a) / 1e6 }'
}

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

# warm DIR: the metadata of everything under DIR read back into the page
# cache, the application's counterpart of the replay's root check, which stats
# every file of its root after the drop.  A run whose first I/O are its own
# cold metadata reads gets no fresh blk-throttle slice (docs/BENCHMARKS.md)
warm() { find "$1" -exec stat -c %s {} + >/dev/null 2>&1 || true; }

# idle: IDLE_MS of nothing, the application's counterpart of --settle IDLE_MS
idle() { sleep "$(awk -v m="$IDLE_MS" 'BEGIN { print m / 1000 }')"; }

# mode_args MODE: the replay options of a mode, in ARGS
# shellcheck disable=SC2034 # ARGS is the caller's
mode_args() {
	case $1 in
	think) ARGS=(--natural --order think) ;; # //TRACE: recorded wall gaps and waits, no deps
	*) ARGS=(--natural --order "$1") ;;
	esac
}
