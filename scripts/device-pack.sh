#!/usr/bin/env bash
# Pack prebuilt binaries and the shared vectors into .device/ (git-ignored) for a run on
# a borrowed machine that has no Rust toolchain and no network: the IFMA checks need a
# CPU with AVX-512 IFMA, which the CI machine kind lacks. The test binaries are the
# Ed25519 suites and Paillier's kernel suites (`t_linesig_paillier` runs the IFMA
# kernel's differential tests against GMP where the CPU has IFMA), then on the device:
#   .device/bin/t_linesig_paillier && .device/bin/t_paillier
#   taskset -c 5 .device/bin/linesig bench --scheme paillier2048 --workers 1 --repeat 5 \
#     --yardstick none --op-iterations 0
# `linesig-whole-scan.gz` is the same CLI built with `--cfg linesig_whole_scan`
# (decryption's table scan just before each product, not spread over the squarings), for
# an A/B of the spread on that CPU: `gunzip -k .device/bin/linesig-whole-scan.gz`, then
# alternate the two binaries on the command above and compare the decrypt rows. (Gzipped
# so that the pack stays under the device's 64 MiB carry limit.)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -p linesig-cli
rm -rf .device/bin && mkdir -p .device/bin
cargo test --release --locked -p linesig -p linesig-paillier --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        if m["target"]["name"] in ("linesig", "vectors", "differential", "engine",
                                   "linesig_paillier", "paillier"):
            print(m["target"]["name"], m["executable"])' |
  while read -r name path; do cp "$path" ".device/bin/t_$name"; done
cp target/release/linesig .device/bin/
RUSTFLAGS="${RUSTFLAGS:-} --cfg linesig_whole_scan" CARGO_TARGET_DIR=target/whole-scan \
  cargo build --release --locked -p linesig-cli
if [ -x fuzz/target/x86_64-unknown-linux-gnu/release/ed25519_backends ]; then
  cp fuzz/target/x86_64-unknown-linux-gnu/release/ed25519_backends .device/bin/
fi
y=target/yardstick/x86_64-unknown-linux-gnu/release/yardstick-ed25519-simd
[ -x "$y" ] && cp "$y" .device/bin/
strip .device/bin/*
strip -o .device/bin/linesig-whole-scan target/whole-scan/release/linesig
gzip -f .device/bin/linesig-whole-scan
rm -rf .device/vectors && cp -r ../shared/vectors .device/vectors
du -sh .device
[ "$(du -sb .device | cut -f1)" -lt $((64 << 20)) ] || { echo ".device is over 64 MiB" >&2; exit 1; }
