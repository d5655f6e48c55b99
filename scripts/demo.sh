#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: record the bundled multi-threaded workload, show what was
# captured, infer its causal edges, replay it in a sandbox, print the report.
set -euo pipefail
BUILD=${BUILD:-build}
out=${DEMO_DIR:-$BUILD/demo}
mkdir -p "$out/work"
iot=$BUILD/iotrace
. "$(dirname "$0")/mounts.sh"
ensure_mounts || exit 1

echo "== iotrace record -o $out/demo.iot -- $BUILD/progs/demo_workload $out/work"
"$iot" record -o "$out/demo.iot" -- "$BUILD/progs/demo_workload" "$out/work"

echo
echo "== iotrace info $out/demo.iot"
"$iot" info "$out/demo.iot"

echo
echo "== iotrace dump $out/demo.iot (first 40 lines)"
"$iot" dump "$out/demo.iot" | head -n 40 || true

echo
echo "== iotrace analyze --infer-causality $out/demo.iot -o $out/demo.jsonl"
"$iot" analyze --infer-causality "$out/demo.iot" -o "$out/demo.jsonl"
head -n 1 "$out/demo.jsonl" | jq -c '{events, lost_events, threads: (.threads | length),
	files: (.files | length), edges: .causality_stats.edges}'
"$iot" analyze --summary --infer-causality "$out/demo.iot"

echo
echo "== iotrace export $out/demo.iot --format chrome -o $out/demo.json (open in ui.perfetto.dev)"
"$iot" export "$out/demo.iot" --format chrome -o "$out/demo.json"

echo
echo "== iotrace replay $out/demo.jsonl --root $out/root --natural --report $out/report.json"
rm -rf "$out/root"
"$iot" replay "$out/demo.jsonl" --root "$out/root" --natural --report "$out/report.json"
jq '{wall_ns, trace_wall_ns, events, failed, short, lag_ns, concurrency}' "$out/report.json"
