# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the tests and the demo: a chroot or container often lacks /proc,
# /sys or tracefs, and without them record, ps and the tracers fail in ways
# that do not name the cause.

# ensure_mounts: as root, mount whichever of them is missing, saying so on
# stderr; as another user, say which is missing.  Returns 1 if one still is.
ensure_mounts()
{
	local rc=0 what
	for what in proc:/proc:/proc/self sysfs:/sys:/sys/kernel \
		tracefs:/sys/kernel/tracing:/sys/kernel/tracing/events; do
		local fs=${what%%:*} dir probe=${what##*:}
		dir=${what#*:}
		dir=${dir%:*}
		[ -e "$probe" ] && continue
		if [ "$(id -u)" -eq 0 ] && mount -t "$fs" "$fs" "$dir" 2>/dev/null; then
			echo "iotrace: $dir was not mounted (a chroot?): mounted $fs there" >&2
		else
			echo "iotrace: $dir is not mounted: mount it with 'mount -t $fs $fs $dir'" >&2
			rc=1
		fi
	done
	return $rc
}
