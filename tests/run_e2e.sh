#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs the end-to-end tests: every test_* function of tests/e2e/*.sh, each in
# its own shell with its own scratch directory and a time limit.  A test exits
# 0 (pass), 77 (skip: what it needs is missing; never under CI=true) or
# anything else (fail).  Prints "N passed, N failed, N skipped"; exit 1 when
# any failed.  TESTS=pattern runs only matching tests.  A failed test's
# directory is kept, and a passed one's too with E2E_KEEP=1.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export IOTRACE_ROOT=$(cd "$here/.." && pwd)
export BUILD=${BUILD:-$IOTRACE_ROOT/build}
export IOTRACE=${IOTRACE:-$BUILD/iotrace}
pattern=${TESTS:-}
# in a chroot: mount /proc, /sys and tracefs once here, and say so
. "$IOTRACE_ROOT/scripts/mounts.sh"
[ "$(id -u)" -ne 0 ] || ensure_mounts || true
limit=${E2E_TIMEOUT:-180}

pass=0 fail=0 skip=0
failed=()
for file in "$here"/e2e/*.sh; do
	[ "${file##*/}" = lib.sh ] && continue
	for t in $(bash -c ". '$here/e2e/lib.sh'; . '$file'; declare -F" | awk '$3 ~ /^test_/ {print $3}'); do
		name="${file##*/}"
		name="${name%.sh}/${t#test_}"
		[ -n "$pattern" ] && [[ "$name" != *$pattern* ]] && continue
		dir=$(mktemp -d /tmp/iotrace-e2e.XXXXXX)
		start=$(date +%s.%N)
		timeout -k 10 "$limit" bash -c ". '$here/e2e/lib.sh'; . '$file'; cd '$dir'; T='$dir' $t" \
			>"$dir/.log" 2>&1
		rc=$?
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
		case $rc in
		0)
			pass=$((pass + 1))
			printf 'PASS  %s (%.1fs)\n' "$name" "$secs"
			sed -n 's/^note: /      /p' "$dir/.log"	# what the test wants on record
			;;
		77) skip=$((skip + 1)); printf 'SKIP  %s: %s\n' "$name" "$(tail -1 "$dir/.log")" ;;
		*)
			fail=$((fail + 1)); failed+=("$name")
			[ $rc -eq 124 ] && echo "      timed out after ${limit}s" >>"$dir/.log"
			printf 'FAIL  %s (exit %d)\n' "$name" "$rc"
			tail -25 "$dir/.log" | sed 's/^/      /'
			;;
		esac
		[ $rc -eq 0 ] && [ -z "${E2E_KEEP:-}" ] && rm -rf "$dir"
	done
done
echo "e2e: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
