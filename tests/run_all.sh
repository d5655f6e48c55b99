#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make test` runs: the unit tests, then the end-to-end tests.
# Prints the overall "N passed, N failed, N skipped" last.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

"$here/run_unit.sh" $(find "$build/tests" -maxdepth 1 -name "test_*" -type f -perm -u+x | sort) 2>&1 | tee -a "$log"
"$here/run_e2e.sh" 2>&1 | tee -a "$log"

sum() { grep -E "^(unit|e2e): " "$log" | grep -oE "[0-9]+ $1" | awk '{s += $1} END {print s + 0}'; }
p=$(sum passed) f=$(sum failed) s=$(sum skipped)
echo "all: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
