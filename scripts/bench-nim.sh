#!/usr/bin/env bash
# The founding benchmark through Nim and the C ABI (bindings/nim/founding_bench.nim),
# alternating with its Rust twin (the same calls through linesig's Rust API), then
# `linesig bench --scheme leansig-devnet4 --aggregate 2`, in one run on one machine. The
# table at the end gives, per operation, the median over the rounds of each program's
# mean and their ratio.
#
#   scripts/bench-nim.sh [--rounds R] [--short] [--batch N]
#
# --rounds (default 3) is the script's; the other options go to both programs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
source scripts/lib/nim.sh
rounds=3
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=$2; shift 2 ;;
        *) args+=("$1"); shift ;;
    esac
done
# The library Nim links, then the twin (`--example` alone would not refresh the .a).
cargo build --release --locked -p linesig-ffi
cargo build --release --locked -p linesig-ffi --example founding_rust
cargo build --release --locked -p linesig-cli
nim_build founding_bench bindings/nim/founding_bench.nim
out=target/nim/bench
rm -rf "$out" && mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
    echo "== round $round of $rounds: Nim over the C ABI" >&2
    target/nim/founding_bench --machine "${args[@]}" | tee "$out/nim.$round.txt"
    echo "== round $round of $rounds: the Rust twin" >&2
    target/release/examples/founding_rust "${args[@]}" | tee "$out/rust.$round.txt"
done
echo
target/release/linesig bench --scheme leansig-devnet4 --aggregate 2 --repeat 5 | tee "$out/cli_aggregate.txt"
echo
python3 - "$out" "$rounds" <<'EOF'
import statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def means(kind):
    table = {}
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{kind}.{r}.txt"):
            f = line.rstrip("\n").split("\t")
            if f[0] == "op":
                table.setdefault(f[1], []).append(float(f[2]))
    return table
nim, rust = means("nim"), means("rust")
print(f"median over {rounds} round(s) of each program's mean (ms)")
print("| operation | Nim over the C ABI | Rust API | Nim ÷ Rust |")
print("|---|---|---|---|")
for name, values in nim.items():
    n, r = statistics.median(values), statistics.median(rust[name])
    print(f"| {name} | {n:.3f} | {r:.3f} | {n / r:.3f} |")
cli = {}
for line in open(f"{out}/cli_aggregate.txt"):
    f = line.split()
    if len(f) == 6 and f[0] in ("aggregate", "verify"):
        cli[f[0]] = float(f[2])
a, v = statistics.median(nim["Aggregate 2 Sigs (devnet-4)"]), statistics.median(nim["Verify Aggregated (2 signers)"])
print(f"\nlinesig bench --aggregate 2 (mean ms): aggregate {cli['aggregate']:.2f}, verify {cli['verify']:.2f}")
print(f"Nim ÷ linesig bench: aggregate 2 {a / cli['aggregate']:.3f}, verify the aggregate {v / cli['verify']:.3f}")
EOF
