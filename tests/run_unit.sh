#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs the CUnit binaries given as arguments; prints one line per binary and
# a final "N passed, N failed".  Exit 1 when any failed.
set -uo pipefail

pass=0 fail=0
for bin in "$@"; do
	name=${bin##*/}
	[[ "$bin" == */san/* ]] && name="$name (asan+ubsan)"
	log=$(mktemp)
	if "$bin" >"$log" 2>&1; then
		pass=$((pass + 1))
		printf 'PASS  unit/%s %s\n' "$name" "$(grep -m1 '^ *tests' "$log" | awk '{print "(" $3 " tests)"}')"
	else
		fail=$((fail + 1))
		printf 'FAIL  unit/%s\n' "$name"
		grep -E 'FAILED|^ +[0-9]+\. |ERROR|runtime error' "$log" | sed 's/^/      /' | head -40
	fi
	rm -f "$log"
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
