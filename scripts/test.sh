#!/usr/bin/env bash
# Every test: library unit tests, all Ed25519 vector sets under every policy, the
# differential tests against the oracles, the engine contract, the CLI end to end.
# LINESIG_SOAK_ROUNDS=N multiplies the seeded differential run (default 1 = 300 rounds).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
# The vector sets live in ../shared/vectors beside the checkout (or $LINESIG_VECTORS_DIR).
cargo test --release --locked --workspace
