#!/usr/bin/env bash
# The C++ face: linesig.hpp's test (the shared ML-DSA vectors, round trips at every
# level, Ed25519, leanSig keys, every error a linesig::Error), the founding benchmark
# built and run briefly, and the README's C++ example as written. Installs g++,
# libbenchmark-dev and nlohmann-json3-dev where missing; links
# target/release/liblinesig_ffi.a, which it builds.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
source scripts/lib/cpp.sh
cargo build --release --locked -p linesig-ffi
cpp_build test_linesig bindings/cpp/tests/test_linesig.cpp
target/cpp/test_linesig
cpp_build founding_bench bindings/cpp/bench/founding_bench.cpp -lbenchmark
target/cpp/founding_bench --benchmark_min_time=0.01
# The README's C++ example, inside a main() that gives it its inputs.
awk '/^```cpp$/{on=1; next} /^```$/{on=0} on' README.md > target/cpp/readme_example.inc
[ -s target/cpp/readme_example.inc ] || { echo "linesig: the README has no C++ example" >&2; exit 1; }
cpp_build readme_example bindings/cpp/tests/readme_example.cpp -I target/cpp
target/cpp/readme_example
