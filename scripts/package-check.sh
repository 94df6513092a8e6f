#!/usr/bin/env bash
# What `cargo publish` would upload for linesig-simd, linesig, linesig-aggregate and
# linesig-agave builds from the packages alone: no path-only dependency, no file outside
# the package.
#
# linesig-simd, linesig and linesig-aggregate: `cargo package` of the three at once
# (which builds the packaged sources, each against the packaged crates below it).
# linesig-agave: its own workspace, and linesig is not on crates.io yet, so it is
# packaged without cargo's verification (nor a lock file: its lock would need linesig
# on crates.io) and then built from the two unpacked packages, with linesig patched to
# the packaged one, in a scratch directory outside both workspaces.
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

cargo package --locked --allow-dirty -p linesig-simd -p linesig -p linesig-aggregate --target-dir "$out/target" --quiet
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
cat >>"$scratch/linesig-agave-0.1.0/Cargo.toml" <<'EOF'

[workspace]

[patch.crates-io]
linesig-simd = { path = "../linesig-simd-0.1.0" }
linesig = { path = "../linesig-0.1.0" }
EOF
# The lock the repository tests with, so the check resolves what CI built.
cp crates/linesig-agave/Cargo.lock "$scratch/linesig-agave-0.1.0/Cargo.lock"
(cd "$scratch/linesig-agave-0.1.0" &&
  cargo build --release --target-dir "$out/target" --quiet)
echo "package-check: linesig-simd, linesig, linesig-aggregate and linesig-agave 0.1.0 build from their packages"
# The packages' builds are scratch, about 0.9 GB: a CI host's disk is shared, and a run
# once stopped on a full one.
rm -rf "$out"
