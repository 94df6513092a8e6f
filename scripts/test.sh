#!/usr/bin/env bash
# Every test: library unit tests, all Ed25519 and ML-DSA vector sets, the differential
# tests against the oracles on every backend, the engine contract, the CLI end to end,
# leanSig aggregation (the crate linesig-aggregate, once, in the workspace run), the C
# ABI (header drift, C examples, error paths of every function), linesig-agave against
# every solana-perf release from 4.0.3 to 4.2.2, the Go binding (with curve25519-voi as
# its oracle), the Nim and C++ faces, and the Python package (built with maturin into
# target/python-venv; pytest, including interop with phe).
# LINESIG_SOAK_ROUNDS=N multiplies the seeded differential runs (default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
# The vector sets live in ../shared/vectors beside the checkout (or $LINESIG_VECTORS_DIR).
# The tests build with the `tests` profile (optimised, no LTO: the root Cargo.toml says
# why); the C ABI library and the Python module, which the other faces link, with
# `release`.
cargo test --profile tests --locked --workspace
# The scripts and the Python tests below run the `linesig` binary these tests built.
export LINESIG_BIN="$PWD/target/tests/linesig"
# linesig-agave (a workspace of its own: Agave's pins): against solana-perf 4.2.2 itself
# on every case and a seeded loop of 1,000,000 mutated packets, with its `agave-lines`
# profile (release code without LTO). It shares the target directory, so what both
# workspaces build the same way is built once.
cargo test --profile agave-lines --locked --manifest-path crates/linesig-agave/Cargo.toml --target-dir target
# …its benchmark end to end on a small file: it fails unless every packet's flags equal
# solana-perf's…
LINESIG_AGAVE_PROFILE=agave-lines bash scripts/bench-agave.sh 2000 --rounds 1
# …and against every other release it supports (4.0.3, 4.1.0–4.1.2, 4.2.0, 4.2.1), each
# with its lock and its line's feature, against that release's own ed25519_verify (the
# profile's build is scratch after it).
bash scripts/test-agave-lines.sh
# The pipeline under a UDP load on loopback, at small scale: half capacity, then twice
# it; every packet accounted for and the overload shed (scripts/serve-load.sh full runs
# the latency and memory targets by hand).
bash scripts/serve-load.sh small
# The Go binding links target/release/liblinesig_ffi.a.
cargo build --release --locked -p linesig-ffi
if ! command -v go >/dev/null 2>&1; then
    echo "linesig: go not found; install Go 1.22 or newer to test bindings/go" >&2
    exit 1
fi
# Go: the engine and BatchVerifier tests, the differential against curve25519-voi (from
# the Go module proxy), and a short run of the founding Go benchmark beside voi. Go keys
# its caches on the cgo flags, not on the contents of the archive they name, so a cached
# test result or `go run` executable may predate the archive just built: the tests run
# with `-count=1`, and the benchmark is linked afresh into an emptied directory (as
# scripts/bench-go.sh does).
go_bench=target/go-test
rm -rf "$go_bench" && mkdir -p "$go_bench"
(cd bindings/go && go vet ./... && go test -count=1 ./... &&
    go build -o "../../$go_bench/linesig-bench" ./cmd/linesig-bench)
"$go_bench/linesig-bench" -short
# The Nim face (installs Debian's nim where it is missing): tests, a short run of the
# founding benchmark, the README's Nim example.
bash scripts/test-nim.sh
# The C++ face (installs g++, libbenchmark-dev, nlohmann-json3-dev where missing): the
# ML-DSA vectors, round trips and errors through linesig.hpp, a short run of the
# founding google-benchmark, the README's C++ example.
bash scripts/test-cpp.sh
# The Python package: phe-compatible Paillier, against phe itself.
source scripts/lib/python.sh
"$LINESIG_PYTHON" -m pytest -q bindings/python/tests
