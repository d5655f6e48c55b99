#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/fresh-check.sh: proves that `make deps` is all a fresh Debian 12 needs.
# Builds a chroot of bookworm minbase with only make, gcc and git, clones the
# committed checkout into it and runs `make test` and then `make demo` there
# with CI=true.  Exit 0 when both pass, non-zero when either fails.
#
# The chroot's base (debootstrap's output) and the packages deps.sh downloads
# are cached in $IOTRACE_CACHE (default /var/cache/iotrace), outside the
# checkout; deps.sh still installs every package in each run, so a package
# missing from it still fails the check.  Everything runs in a mount namespace
# of its own: the chroot's mounts vanish with it, whatever way the run ends.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
cache=${IOTRACE_CACHE:-/var/cache/iotrace}
limit=${FRESH_TIMEOUT:-4200}
suite=bookworm
work=
child=
tailer=

say() { printf 'fresh-check: [%4ds] %s\n' "$SECONDS" "$*" >&2; }
die() { echo "iotrace: fresh-check: $*" >&2; exit 1; }

# kill_rooted ROOT: what still runs in the chroot (a test's leftover daemon,
# everything after an interrupt) is ended by its root directory, as schroot does.
kill_rooted()
{
	local p n i
	for ((i = 0; i < 10; i++)); do
		n=0
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] || continue
			kill -KILL "${p#/proc/}" 2>/dev/null && n=$((n + 1))
		done
		[ $n -eq 0 ] && return 0
		sleep 0.5
	done
}

cleanup()
{
	[ -n "$work" ] || return 0
	[ -z "$child" ] || kill -TERM "$child" 2>/dev/null
	[ -z "$tailer" ] || kill "$tailer" 2>/dev/null
	kill_rooted "$work/root"
	# the namespace that held the mounts is gone: only plain files remain
	if grep -qF " $work/" /proc/self/mounts; then
		say "not removing $work: something is still mounted under it"
	else
		rm -rf --one-file-system "$work"
	fi
}

# mirror_lines: the host's Debian sources for $suite, as one-line entries.
mirror_lines()
{
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk -v s="$suite" '$1 == "deb" {
			sub(/\[[^]]*\] */, ""); if ($3 ~ "^" s) print }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$suite" '
			function flush(  n, i, su) {
				if (ty ~ /(^| )deb( |$)/ && uri != "") {
					n = split(suites, su, " ")
					for (i = 1; i <= n; i++)
						if (su[i] ~ "^" s) print "deb", uri, su[i], comps
				}
				ty = uri = suites = comps = ""
			}
			/^[ \t]*$/ { flush(); next }
			/^Types:/ { $1 = ""; ty = substr($0, 2) }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { $1 = ""; suites = substr($0, 2) }
			/^Components:/ { $1 = ""; comps = substr($0, 2) }
			END { flush() }' "$f"
	done
}

# base ROOT MIRROR: unpack the cached minbase chroot, or build and cache it.
base()
{
	local root=$1 mirror=$2 tarball
	tarball=$cache/$suite-minbase-make-gcc-git-$(uname -m).tar
	if [ -f "$tarball" ]; then
		say "unpacking the cached base $tarball"
		tar -C "$root" -xpf "$tarball"
		return
	fi
	say "debootstrap $suite minbase (make, gcc, git) from $mirror: no cached base yet"
	debootstrap --variant=minbase --include=make,gcc,git "$suite" "$root" "$mirror" \
		>"$work/debootstrap.log" 2>&1 || {
		tail -20 "$work/debootstrap.log" >&2
		die "debootstrap failed"
	}
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*_*
	tar -C "$root" -cpf "$tarball.$$" . && mv "$tarball.$$" "$tarball"
	say "cached the base as $tarball ($(du -m "$tarball" | cut -f1) MB)"
}

# inside ROOT: mount what the chroot needs and run the two commands there; runs
# in a mount namespace of its own.  tracefs is left to the tests, which mount
# it where it is missing (scripts/mounts.sh); nothing needs a bpffs.
inside()
{
	local root=$1
	# / a mount point, as on a machine or in a container: ip netns exec
	# remounts it
	mount --bind "$root" "$root"
	mount -t proc proc "$root/proc"
	mount -t sysfs sysfs "$root/sys"
	mount -t devtmpfs devtmpfs "$root/dev"
	mkdir -p "$root/dev/pts" "$root/dev/shm"
	mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$root/dev/pts"
	mount -t tmpfs tmpfs "$root/dev/shm"
	mount --bind "$cache/debs" "$root/var/cache/apt/archives"
	exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI=true TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin bash -c '
		cd /iotrace
		echo "== make test"; make test; t=$?
		echo "== make demo"; make demo; d=$?
		echo "fresh-check: make test exited $t, make demo exited $d"
		[ $t -eq 0 ] && [ $d -eq 0 ]'
}

main()
{
	[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"
	if ! command -v debootstrap >/dev/null; then
		say "installing debootstrap"
		apt-get install -y -qq --no-install-recommends debootstrap >/dev/null ||
			die "cannot install debootstrap: run 'make deps' first"
	fi
	local mirror lines root head
	lines=$(mirror_lines)
	mirror=$(awk 'NR == 1 { print $2 }' <<<"$lines")
	[ -n "$mirror" ] || die "no $suite entry in /etc/apt/sources.list*: which mirror to use?"
	mkdir -p "$cache/debs/partial"
	# one check at a time: they share the cache, and the machine's 2 CPUs
	exec 9>"$cache/lock"
	flock -n 9 || { say "waiting for another fresh-check to end"; flock 9; }
	work=$(mktemp -d /var/tmp/iotrace-fresh.XXXXXX)
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	root=$work/root
	mkdir "$root"
	base "$root" "$mirror"
	printf '%s\n' "$lines" >"$root/etc/apt/sources.list"
	cp /etc/resolv.conf /etc/hosts "$root/etc/"
	head=$(git -C "$src" rev-parse HEAD)
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
		say "uncommitted changes are not part of the check: only $head is"
	git clone -q --no-hardlinks "$src" "$root/iotrace"
	git -C "$root/iotrace" checkout -q --detach "$head"
	say "running make test and make demo in $root (CI=true, at most ${limit}s)"
	export -f inside
	export cache
	local rc=0
	timeout -k 30 "$limit" unshare --mount --propagation private \
		bash -c 'inside "$1"' inside "$root" >"$work/log" 2>&1 &
	child=$!
	tail -n +1 -f --pid="$child" "$work/log" &
	tailer=$!
	wait "$child" || rc=$?
	child=
	wait "$tailer"
	tailer=
	[ "$rc" -ne 124 ] || say "timed out after ${limit}s"
	cp "$work/log" "$cache/last.log" 2>/dev/null || true
	say "exit $rc (log in $cache/last.log)"
	return "$rc"
}

main "$@"; exit
