#!/usr/bin/env bash
# Pack prebuilt binaries and the shared vectors into .device/ (git-ignored) for a run on
# a borrowed machine that has no Rust toolchain and no network: the IFMA checks need a
# CPU with AVX-512 IFMA, which the CI machine kind lacks. The test binaries are the
# Ed25519 suites and Paillier's kernel suites (`t_linesig_paillier` runs the IFMA
# kernel's differential tests against GMP where the CPU has IFMA). For the Paillier
# bench against phe in the same run, the pack holds phe's and gmpy2's wheels for
# CPython 3.10 to 3.13. On the device,
#   bash scripts/device-check.sh
# runs everything: the Ed25519 suites and the ed25519-simd yardstick, then (through
# scripts/device-paillier.sh) the Paillier kernel suites and both key sizes with phe under
# the machine's python3. The Ed25519 fuzz target, where one was built, is packed gzipped,
# so that the pack and the checkout stay under the device's 64 MiB limit on what travels.
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
if [ -x fuzz/target/x86_64-unknown-linux-gnu/release/ed25519_backends ]; then
  cp fuzz/target/x86_64-unknown-linux-gnu/release/ed25519_backends .device/bin/
fi
y=target/yardstick/x86_64-unknown-linux-gnu/release/yardstick-ed25519-simd
[ -x "$y" ] && cp "$y" .device/bin/
strip .device/bin/*
# The fuzz target too, where one was built: it is run on the device only by hand.
[ ! -f .device/bin/ed25519_backends ] || gzip -f .device/bin/ed25519_backends
rm -rf .device/vectors && cp -r ../shared/vectors .device/vectors
# phe at the version the test environment pins (scripts/lib/python.sh), gmpy2 at the one it
# installs today, as manylinux wheels for whichever CPython the device has.
rm -rf .device/wheels && mkdir -p .device/wheels
for version in 3.10 3.11 3.12 3.13; do
  python3 -m pip download -q --only-binary=:all: --python-version "$version" \
    --platform manylinux_2_17_x86_64 --platform manylinux_2_28_x86_64 \
    -d .device/wheels phe==1.5.0 gmpy2==2.3.2 ||
    echo "no phe/gmpy2 wheels for CPython $version (offline?): the device bench falls back to GMP" >&2
done
du -sh .device
# What travels to the device is the checkout's files and .device together.
travel=$(($(du -sb .device | cut -f1) + $(git ls-files -z | xargs -0 du -cb | tail -1 | cut -f1)))
[ "$travel" -lt $((64 << 20)) ] || { echo ".device and the checkout are over 64 MiB ($travel bytes)" >&2; exit 1; }
