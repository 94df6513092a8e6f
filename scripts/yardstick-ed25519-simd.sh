#!/usr/bin/env bash
# linesig's `avx512` backend against the ed25519-simd crate (AVX-512 IFMA only), one thread,
# the same seeded items in one process. Needs a CPU with AVX-512 F/BW/DQ/IFMA to run.
#
#   scripts/yardstick-ed25519-simd.sh [COUNT] [MESSAGE_BYTES] [ROUNDS] [--invalid K]
#       [--msgs-per-key M] [--policy strict|zip215|all]
#
# e.g. `taskset -c 0 scripts/yardstick-ed25519-simd.sh 20000 1232 7 --invalid 64`.
# yardsticks/ed25519-simd/Cargo.lock is kept current by CI (`cargo metadata --locked`
# on it), so `--locked` holds on a fresh clone.
#
# ed25519-simd refuses to compile unless those features are enabled at build time, so
# this builds a separate binary (yardsticks/ed25519-simd, outside the workspace) with
# them; linesig's own binaries stay generic. `--target` keeps the flags off build scripts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
target=$(rustc -vV | sed -n 's/^host: //p')
(cd yardsticks/ed25519-simd &&
  RUSTFLAGS="-C target-feature=+avx512f,+avx512bw,+avx512dq,+avx512ifma" \
  CARGO_TARGET_DIR=../../target/yardstick \
  cargo build --release --locked --target "$target")
# The binary is compiled for AVX-512 throughout, so it cannot even start elsewhere.
for flag in avx512f avx512bw avx512dq avx512ifma; do
  if ! grep -qw "$flag" /proc/cpuinfo 2>/dev/null; then
    echo "yardstick-ed25519-simd: this CPU lacks $flag; ed25519-simd (and linesig's ifma backend) need AVX-512 IFMA" >&2
    exit 2
  fi
done
exec "target/yardstick/$target/release/yardstick-ed25519-simd" "$@"
