#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: record the bundled multi-threaded workload, then show what was
# captured.  Analysis and replay join in as they are built.
set -euo pipefail
BUILD=${BUILD:-build}
out=${DEMO_DIR:-$BUILD/demo}
mkdir -p "$out/work"
iot=$BUILD/iotrace

echo "== iotrace record -o $out/demo.iot -- $BUILD/progs/demo_workload $out/work"
"$iot" record -o "$out/demo.iot" -- "$BUILD/progs/demo_workload" "$out/work"

echo
echo "== iotrace info $out/demo.iot"
"$iot" info "$out/demo.iot"

echo
echo "== iotrace dump $out/demo.iot (first 40 lines)"
"$iot" dump "$out/demo.iot" | head -n 40 || true

if "$iot" analyze --help >/dev/null 2>&1; then
	echo
	echo "== iotrace analyze --infer-causality $out/demo.iot -o $out/demo.jsonl"
	"$iot" analyze --infer-causality "$out/demo.iot" -o "$out/demo.jsonl"
	"$iot" analyze --summary "$out/demo.iot" || true
fi
if "$iot" replay --help >/dev/null 2>&1; then
	echo
	echo "== iotrace replay $out/demo.jsonl --root $out/root --natural"
	"$iot" replay "$out/demo.jsonl" --root "$out/root" --natural --report "$out/report.json"
	cat "$out/report.json"
fi
