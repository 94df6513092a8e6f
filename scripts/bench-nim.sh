#!/usr/bin/env bash
# The founding benchmark through Nim and the C ABI (bindings/nim/founding_bench.nim),
# then its Rust twin (the same calls through linesig's Rust API) and
# `linesig bench --scheme leansig-devnet4 --aggregate 2`, in one run on one machine; the
# table at the end divides Nim's mean by Rust's for every operation.
# Options go to both programs: --short, --batch N.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
source scripts/nim.sh
cargo build --release --locked -p linesig-ffi --example founding_rust
cargo build --release --locked -p linesig-cli
nim_build founding_bench bindings/nim/founding_bench.nim
target/nim/founding_bench --machine "$@" | tee target/nim/founding.txt
echo
echo "Rust twin (target/release/examples/founding_rust $*):"
target/release/examples/founding_rust "$@" | tee target/nim/founding_rust.txt
echo
target/release/linesig bench --scheme leansig-devnet4 --aggregate 2 --repeat 5 | tee target/nim/cli_aggregate.txt
echo
echo "| operation | Nim over the C ABI, mean ms | Rust API, mean ms | Nim ÷ Rust |"
echo "|---|---|---|---|"
awk -F'\t' 'FNR == NR && $1 == "op" { rust[$2] = $3; next }
            $1 == "op" { printf "| %s | %.2f | %.2f | %.3f |\n", $2, $3, rust[$2], $3 / rust[$2] }' \
    target/nim/founding_rust.txt target/nim/founding.txt
awk '$1 == "aggregate" && NF == 6 { a = $3 } $1 == "verify" && NF == 6 { v = $3 }
     END { printf "linesig bench --aggregate 2 (mean ms): aggregate %.2f, verify %.2f\n", a, v }' \
    target/nim/cli_aggregate.txt
awk -F'\t' '$1 == "op" && $2 ~ /^(Aggregate 2|Verify Aggregated \(2)/ { printf "Nim (mean ms): %s %.2f\n", $2, $3 }' \
    target/nim/founding.txt
