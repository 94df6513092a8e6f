#!/usr/bin/env bash
# The founding Dilithium benchmark in C++ (bindings/cpp/bench/founding_bench.cpp,
# google-benchmark) against what it wraps, in one run on one machine, alternating:
# - the one-call rows (keygen, sign/32, verify/32 at 44/65/87) against their Rust twin
#   (crates/linesig-ffi/examples/founding_cpp_twin.rs: the same seeds and messages
#   through linesig's Rust API, libcrux underneath for keygen and signing);
# - the batch rows (1,024 signatures per call, all cores) against `linesig bench` on
#   1,024 signatures (ML-DSA-44, Ed25519; 4 messages per key, batch 512).
# Each side's figure is a median of 5 repetitions (google-benchmark's `median`
# aggregate; the twin's the same); a batch row's figure within a repetition is its
# median call, as `linesig bench` reports its median run (of 21). The tables give the
# median over the rounds of each and their ratio.
#
#   scripts/bench-cpp.sh [--rounds R] [--min-time S]   (S: seconds per repetition)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
source scripts/lib/cpp.sh
rounds=3
min_time=0.5
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        --min-time) min_time=$2; shift 2 ;;
        *) echo "usage: scripts/bench-cpp.sh [--rounds R] [--min-time S]" >&2; exit 2 ;;
    esac
done
cargo build --release --locked -p linesig-ffi -p linesig-cli
cargo build --release --locked -p linesig-ffi --example founding_cpp_twin
cpp_build founding_bench bindings/cpp/bench/founding_bench.cpp -lbenchmark
out=target/cpp/bench
rm -rf "$out" && mkdir -p "$out"
awk -F': ' '/^(model name|cpu family|model)\t/ && !seen[$1]++ {print}' /proc/cpuinfo
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds" >&2
    target/cpp/founding_bench --benchmark_min_time="$min_time" --benchmark_repetitions=5 \
        --benchmark_report_aggregates_only=true --benchmark_format=json > "$out/cpp.$round.json"
    target/release/examples/founding_cpp_twin --min-time "$min_time" --repetitions 5 > "$out/twin.$round.txt"
    for scheme in mldsa44 ed25519; do
        target/release/linesig bench --scheme "$scheme" --count 1024 --repeat 21 --yardstick none --json \
            > "$out/cli.$scheme.$round.json"
    done
done
python3 - "$out" "$rounds" <<'EOF'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
cpp, twin, cli = {}, {}, {}
for r in range(1, rounds + 1):
    for b in json.load(open(f"{out}/cpp.{r}.json"))["benchmarks"]:
        if b.get("aggregate_name") != "median":
            continue
        name = b["run_name"].replace("/real_time", "")
        value = b["median_items_per_second"] if "median_items_per_second" in b else b["real_time"]
        cpp.setdefault(name, []).append(value)
    for line in open(f"{out}/twin.{r}.txt"):
        f = line.split("\t")
        if f[0] == "row":
            twin.setdefault(f[1], []).append(float(f[2]))
    for scheme in ("mldsa44", "ed25519"):
        cli.setdefault(scheme, []).append(json.loads(open(f"{out}/cli.{scheme}.{r}.json").readline())["throughput_per_s"])
med = statistics.median
print(f"\nmedian over {rounds} round(s)")
print("| row | C++ over the C ABI (µs) | Rust API (µs) | C++ ÷ Rust |")
print("|---|---|---|---|")
for name, values in cpp.items():
    if name in twin:
        c, t = med(values) / 1e3, med(twin[name]) / 1e3
        print(f"| {name} | {c:.2f} | {t:.2f} | {c / t:.3f} |")
print("\n| row | C++, median call (sigs/s) | linesig bench, 1,024, median run (sigs/s) | C++ ÷ bench |")
print("|---|---|---|---|")
for name, scheme in (("mldsa44_verify_batch/1024", "mldsa44"), ("ed25519_verify_batch/1024", "ed25519")):
    c, b = med(cpp[name]), med(cli[scheme])
    print(f"| {name} | {c:,.0f} | {b:,.0f} | {c / b:.3f} |")
EOF
