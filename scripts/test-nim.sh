#!/usr/bin/env bash
# The Nim face: its tests (shared leanSig vectors, a corrupted signature, a reloaded key,
# aggregation, ML-DSA, every bad input a typed status) and a short run of the founding
# benchmark. Links target/release/liblinesig_ffi.a, which it builds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
source scripts/lib/nim.sh
cargo build --release --locked -p linesig-ffi
nim_build test_linesig bindings/nim/tests/test_linesig.nim
target/nim/test_linesig
nim_build founding_bench bindings/nim/founding_bench.nim
target/nim/founding_bench --short
# The README's Nim example, compiled and run as written.
mkdir -p target/nim
awk '/^```nim$/{on=1; next} /^```$/{on=0} on' README.md > target/nim/readme_example.nim
[ -s target/nim/readme_example.nim ] || { echo "linesig: the README has no Nim example" >&2; exit 1; }
nim_build readme_example target/nim/readme_example.nim --path:bindings/nim
target/nim/readme_example
