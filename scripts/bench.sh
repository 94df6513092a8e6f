#!/usr/bin/env bash
# The main job: `linesig bench` on its built-in defaults (50,000 Ed25519 signatures, 4
# messages per key, all cores, batch 512, policy strict). Extra arguments pass through,
# e.g. `scripts/bench.sh --sweep` or `scripts/bench.sh --json`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
cargo build --release --locked -p linesig-cli
exec ./target/release/linesig bench "$@"
