#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fails when an #include crosses a layer the wrong way (docs/architecture.md):
#   include/  nothing of the project
#   bpf/      include/ (and vmlinux.h)
#   lib/      include/, lib/
#   loader/, analyze/, replay/   include/, lib/ and their own folder
#   cli/      include/, lib/, cli/; cli/main.c also each module's cmd_*.h
# A module's cmd_*.h is for cli/main.c (and the module itself) only, and
# only loader/ may include the BPF skeleton.  Prints each bad line.
# Usage: tests/layers.sh [ROOT]
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2

# allowed FILE HEADER: exit 0 when FILE may include HEADER
allowed() {
	local file=$1 hdr=$2 from=${1%%/*} to=${2%%/*}

	case $hdr in
	vmlinux.h) [ "$from" = bpf ]; return ;;
	*.skel.h) [ "$from" = loader ]; return ;;
	version.h) [ "$file" = cli/version.c ]; return ;;
	*/cmd_*.h) [ "$file" = cli/main.c ] || [ "$from" = "$to" ]; return ;;
	esac
	case $from in
	include) return 1 ;;
	bpf) [ "$to" = include ] ;;
	lib) [ "$to" = include ] || [ "$to" = lib ] ;;
	loader | analyze | replay | cli) [ "$to" = include ] || [ "$to" = lib ] || [ "$to" = "$from" ] ;;
	*) return 0 ;;
	esac
}

bad=0
while IFS= read -r line; do
	file=${line%%:*}
	rest=${line#*:}
	hdr=${rest#*\"}
	hdr=${hdr%%\"*}
	# generated in build/: the skeleton, vmlinux.h, the version (Makefile)
	if [ ! -e "$hdr" ] && [[ $hdr != *.skel.h ]] && [ "$hdr" != vmlinux.h ] &&
		[ "$hdr" != version.h ]; then
		echo "$file: #include \"$hdr\" does not name a file from the root"
		bad=1
	elif ! allowed "$file" "$hdr"; then
		echo "$file: #include \"$hdr\" crosses a layer the wrong way"
		bad=1
	fi
done < <(grep -H -E '^#[[:space:]]*include[[:space:]]+"' \
	$(find include bpf lib loader analyze replay cli -name '*.[ch]' | sort) /dev/null)
exit $bad
