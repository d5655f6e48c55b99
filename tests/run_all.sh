#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Everything `make test` runs: the unit tests, then the end-to-end tests.
# Prints the overall "N passed, N failed, N skipped" last.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${BUILD:-$here/../build}
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# plain, then under ASan and UBSan
"$here/run_unit.sh" $(find "$build/tests" "$build/san/tests" -maxdepth 1 -name "test_*" \
	-type f -perm -u+x 2>/dev/null | sort) 2>&1 | tee -a "$log"
# every fuzz seed and every input that once crashed, under ASan and UBSan
fuzz_pass=0 fuzz_fail=0
for bin in "$build"/fuzz/fuzz_*; do
	[ -x "$bin" ] && [ -f "$bin" ] || continue
	name=${bin##*/}
	corpus="$here/fuzz/corpus/${name#fuzz_}"
	if "$bin" -close_fd_mask=2 "$corpus"/* >/dev/null 2>&1; then
		fuzz_pass=$((fuzz_pass + 1))
		echo "PASS  fuzz/$name ($(ls "$corpus" | wc -l) inputs)"
	else
		fuzz_fail=$((fuzz_fail + 1))
		echo "FAIL  fuzz/$name: run '$bin $corpus/*' to see which input"
	fi
done
echo "unit: $fuzz_pass passed, $fuzz_fail failed" | tee -a "$log" >/dev/null
# every .c and .h as .clang-format lays it out (make format mends it)
if make -s -C "$here/.." format-check >/dev/null 2>&1; then
	echo "PASS  format"
	echo "unit: 1 passed, 0 failed" >>"$log"
else
	echo "FAIL  format: 'make format-check' lists the lines, 'make format' mends them"
	echo "unit: 0 passed, 1 failed" >>"$log"
fi
# every #include goes down the layers of docs/architecture.md
if "$here/layers.sh"; then
	echo "PASS  layers"
	echo "unit: 1 passed, 0 failed" >>"$log"
else
	echo "FAIL  layers: an #include above crosses a layer the wrong way"
	echo "unit: 0 passed, 1 failed" >>"$log"
fi

"$here/run_e2e.sh" 2>&1 | tee -a "$log"

sum() { grep -E "^(unit|e2e): " "$log" | grep -oE "[0-9]+ $1" | awk '{s += $1} END {print s + 0}'; }
p=$(sum passed) f=$(sum failed) s=$(sum skipped)
echo "all: $p passed, $f failed, $s skipped"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
