#!/usr/bin/env bash
# linesig's batch equation (`zip215`, on and off) against commonware-cryptography-
# curve25519 2026.10.0's `verify_batch` (Pippenger, AVX-512 IFMA where the CPU has it,
# else its portable code) and ed25519-zebra's batch verifier: one thread each, the same
# keys, signatures and framed message bytes, rounds interleaved, medians and ratios, with
# the CPU model. Runs on any x86-64 CPU (commonware and linesig pick their paths at run
# time); `LINESIG_BACKEND=avx2` measures linesig's AVX2 path.
#
#   scripts/yardstick-commonware.sh [--batches 64,1024,4096] [--msg-size 32]
#       [--msgs-per-key 1] [--signatures 16384] [--rounds 7] [--seed 42]
#       [--invalid none|1/64|1/1024|all]...
#
# e.g. `taskset -c 0 scripts/yardstick-commonware.sh --invalid none --invalid 1/1024`.
# yardsticks/commonware/Cargo.lock is kept current by CI (`cargo metadata --locked`).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
(cd yardsticks/commonware && CARGO_TARGET_DIR=../../target/yardstick cargo build --release --locked)
exec target/yardstick/release/yardstick-commonware "$@"
