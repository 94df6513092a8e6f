#!/usr/bin/env bash
# What `cargo publish` would upload for linesig-simd, linesig, linesig-aggregate and
# linesig-agave compiles from the packages alone: no path-only dependency, no file outside
# the package.
#
# Each is packaged without cargo's own verification (a debug build of every dependency,
# which nothing else here reuses); the unpacked packages are then checked (`cargo check`:
# every source, build script and included file compiled, nothing linked) in a scratch
# directory outside the workspaces, each dependency among them patched to its packaged
# copy: linesig-simd, linesig and linesig-aggregate as one workspace with the repository's
# lock, linesig-agave in its own with its lock (linesig is not on crates.io yet, so that
# package carries no lock file).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
root=$PWD
out=$root/target/package-check
rm -rf "$out"
mkdir -p "$out"

# Cargo unpacks the crates of its temporary registry under $CARGO_HOME/registry/src/-<id>/
# and keeps them: an unpacking left by an earlier run (the id is the registry's path, the
# same on every run from this checkout) would be built in place of today's sources. Remove
# ours before and after, and nothing else.
stale_unpackings() {
  rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/-*/linesig{-simd,,-aggregate,-agave}-0.1.0
}
stale_unpackings
trap stale_unpackings EXIT

cargo package --locked --allow-dirty --no-verify -p linesig-simd -p linesig -p linesig-aggregate \
  --target-dir "$out/target" --quiet
(cd crates/linesig-agave &&
  cargo package --locked --allow-dirty --no-verify --exclude-lockfile --target-dir "$out/target" --quiet)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"; stale_unpackings' EXIT
tar -xzf "$out/target/package/linesig-simd-0.1.0.crate" -C "$scratch"
tar -xzf "$out/target/package/linesig-0.1.0.crate" -C "$scratch"
tar -xzf "$out/target/package/linesig-aggregate-0.1.0.crate" -C "$scratch"
tar -xzf "$out/target/package/linesig-agave-0.1.0.crate" -C "$scratch"
for crate in linesig-simd-0.1.0 linesig-0.1.0 linesig-aggregate-0.1.0 linesig-agave-0.1.0; do
  for licence in LICENSE-APACHE LICENSE-MIT; do
    [ -s "$scratch/$crate/$licence" ] || { echo "$crate: $licence missing from the package" >&2; exit 1; }
  done
done
cat >"$scratch/Cargo.toml" <<'EOF'
[workspace]
resolver = "2"
members = ["linesig-simd-0.1.0", "linesig-0.1.0", "linesig-aggregate-0.1.0"]

[patch.crates-io]
linesig-simd = { path = "linesig-simd-0.1.0" }
linesig = { path = "linesig-0.1.0" }
EOF
cp Cargo.lock "$scratch/Cargo.lock"
(cd "$scratch" && cargo check --workspace --target-dir "$out/target" --quiet)
cat >>"$scratch/linesig-agave-0.1.0/Cargo.toml" <<'EOF'

[workspace]

[patch.crates-io]
linesig-simd = { path = "../linesig-simd-0.1.0" }
linesig = { path = "../linesig-0.1.0" }
EOF
# The lock the repository tests with, so the check resolves what CI built.
cp crates/linesig-agave/Cargo.lock "$scratch/linesig-agave-0.1.0/Cargo.lock"
(cd "$scratch/linesig-agave-0.1.0" && cargo check --target-dir "$out/target" --quiet)
echo "package-check: linesig-simd, linesig, linesig-aggregate and linesig-agave 0.1.0 compile from their packages"
# The packages' builds are scratch: a CI host's disk is shared, and a run once stopped on
# a full one.
rm -rf "$out"
