#!/usr/bin/env bash
# linesig-agave against solana-perf's ed25519_verify on the same packets, one worker and
# all cores (docs/agave.md). `scripts/bench-agave.sh [COUNT] [agave-bench options]`:
# COUNT packets of `linesig gen`'s default mix (100,000 unless given; seed 1), then
# `agave-bench` with the options given (e.g. `--backend avx2`, `--rounds 5`, `--json`).
# Exits non-zero unless every round left solana-perf's flags on every packet.
# LINESIG_AGAVE_PROFILE=agave-lines builds the benchmark without LTO, and LINESIG_BIN=PATH
# writes the packets with that `linesig` binary instead of building target/release/linesig
# (scripts/test.sh's smoke run: the flags, not the rates).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
count=${1:-100000}
shift || true
source scripts/lib/linesig-bin.sh
profile=${LINESIG_AGAVE_PROFILE:-release}
cargo build --profile "$profile" --locked --manifest-path crates/linesig-agave/Cargo.toml \
    --target-dir target --example agave-bench --quiet
packets=target/agave-bench-$count.lspkt
[ -s "$packets" ] || "$linesig" gen --count "$count" --seed 1 --out "$packets"
for workers in $(printf '%s\n' 1 "$(nproc)" | sort -un); do
    "target/$profile/examples/agave-bench" "$packets" --workers "$workers" "$@"
done
