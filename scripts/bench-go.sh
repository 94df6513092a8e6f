#!/usr/bin/env bash
# The founding Go benchmark (bindings/go/cmd/linesig-bench): linesig's BatchVerifier and
# curve25519-voi's on the same items in the same run, over workers × batch size; then the
# Go call path against `linesig bench` on the same workload (50,000 signatures, 4 messages
# per key, 32-byte messages), alternating, on one core and on all: the median of each and
# their ratio.
#
#   scripts/bench-go.sh [--rounds R] [--short]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
rounds=3
count=50000
sweep=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --short) sweep+=(-short); rounds=1; count=4000; shift ;;
        *) echo "usage: scripts/bench-go.sh [--rounds R] [--short]" >&2; exit 2 ;;
    esac
done
cargo build --release --locked -p linesig-ffi -p linesig-cli
out=target/go-bench
rm -rf "$out" && mkdir -p "$out"
(cd bindings/go && go build -o ../../$out/linesig-bench ./cmd/linesig-bench)
awk -F': ' '/^(model name|cpu family|model)\t/ && !seen[$1]++ {print}' /proc/cpuinfo
"$out/linesig-bench" "${sweep[@]}" -rounds "$rounds"
echo
# The Go call path against `linesig bench` on the same workload, alternating: on one
# core, one goroutine with batches of 512 on a one-worker engine (each Verify inline on
# its thread); on all cores, one batch of every item on an engine of all cores (the
# bench's own shape), and the founding shape: a goroutine per core, batches of 512.
cores=$(nproc)
for round in $(seq 1 "$rounds"); do
    run_go() { "$out/linesig-bench" -json -voi=false -count "$count" -rounds 1 "$@" | grep '"impl":"linesig"'; }
    run_go -workers 1 -engine-workers 1 -batches 512 >> "$out/go.one-core.jsonl"
    run_go -workers 1 -engine-workers 0 -batches "$count" >> "$out/go.all-cores.jsonl"
    run_go -workers "$cores" -engine-workers 1 -batches 512 >> "$out/go.goroutines.jsonl"
    for workers in 1 "$cores"; do
        target/release/linesig bench --count "$count" --workers "$workers" --batch 512 \
            --repeat 1 --yardstick none --json >> "$out/cli.$workers.jsonl"
    done
done
python3 - "$out" "$rounds" "$cores" <<'PY'
import json, statistics, sys
out, rounds, cores = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rate = lambda path, key: statistics.median(json.loads(l)[key] for l in open(path))
print(f"\nThe Go call path against linesig bench (batch 512), median of {rounds} alternating round(s)")
print("| shape | Go (sigs/s) | linesig bench (sigs/s) | Go ÷ bench |")
print("|---|---|---|---|")
for label, name, w in (("1 core: 1 goroutine, BatchVerifier of 512, engine of 1 worker", "one-core", 1),
                       (f"{cores} cores: 1 BatchVerifier of every item, engine of all cores", "all-cores", cores),
                       (f"{cores} cores: {cores} goroutines, BatchVerifiers of 512, one engine of 1 worker", "goroutines", cores)):
    go, cli = rate(f"{out}/go.{name}.jsonl", "sigs_per_sec"), rate(f"{out}/cli.{w}.jsonl", "throughput_per_s")
    print(f"| {label} | {go:,.0f} | {cli:,.0f} | {go / cli:.3f} |")
PY
