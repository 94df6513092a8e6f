#!/usr/bin/env bash
# linesig-agave against every solana-perf release it supports, each compared with that
# release's own `ed25519_verify`. The crate's Cargo.lock holds the newest (4.2.2: the
# default feature, tested in full by scripts/test.sh); crates/linesig-agave/locks/ holds
# one lock per other release. For each: the lock in place, the line's feature
# (solana-perf-4-0, -4-1 or -4-2), the crate's unit tests and the comparison with
# solana-perf (every case, and LINESIG_AGAVE_FUZZ_PACKETS mutated packets, 20,000 here
# unless set), built with the `agave-lines` profile (release code, no LTO: each
# release's own crates build in about a minute).
#
#   scripts/test-agave-lines.sh [VERSION ...]     the releases named (default: every lock)
#   scripts/test-agave-lines.sh --update-locks    rebuild every lock from the crate's own,
#                                                 each with solana-perf at its release
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
crate=crates/linesig-agave
# Agave's crates that solana-perf pins to its own release and linesig-agave names.
pinned=(solana-perf agave-transaction-view solana-compute-budget solana-transaction-context)

saved=$(mktemp)
cp "$crate/Cargo.lock" "$saved"
trap 'cp "$saved" "$crate/Cargo.lock"; rm -f "$saved"' EXIT

releases=()
for lock in "$crate"/locks/solana-perf-*.lock; do
    release=${lock##*/solana-perf-}
    releases+=("${release%.lock}")
done

if [ "${1:-}" = "--update-locks" ]; then
    for release in "${releases[@]}"; do
        cp "$saved" "$crate/Cargo.lock"
        args=()
        for p in "${pinned[@]}"; do args+=(-p "$p"); done
        cargo update -q --manifest-path "$crate/Cargo.toml" "${args[@]}" --precise "$release"
        cp "$crate/Cargo.lock" "$crate/locks/solana-perf-$release.lock"
        echo "locks/solana-perf-$release.lock"
    done
    exit 0
fi

scratch=false
if [ $# -gt 0 ]; then
    releases=("$@")
else
    # The whole matrix (CI's call): its profile's build, about 1 GB, is scratch after it
    # (a CI host's disk is shared; a run once stopped on a full one).
    scratch=true
fi
for release in "${releases[@]}"; do
    lock="$crate/locks/solana-perf-$release.lock"
    if [ ! -f "$lock" ]; then
        echo "test-agave-lines: no lock for solana-perf $release ($lock)" >&2
        exit 1
    fi
    case "$release" in
        4.0.*) line=4-0 ;;
        4.1.*) line=4-1 ;;
        4.2.*) line=4-2 ;;
        *) echo "test-agave-lines: solana-perf $release is no line linesig-agave builds for" >&2; exit 1 ;;
    esac
    locked=$(grep -A1 '^name = "solana-perf"$' "$lock" | sed -n 's/^version = "\(.*\)"$/\1/p')
    if [ "$locked" != "$release" ]; then
        echo "test-agave-lines: $lock holds solana-perf $locked, not $release" >&2
        exit 1
    fi
    echo "== linesig-agave against solana-perf $release (feature solana-perf-$line)"
    cp "$lock" "$crate/Cargo.lock"
    LINESIG_AGAVE_FUZZ_PACKETS="${LINESIG_AGAVE_FUZZ_PACKETS:-20000}" \
        cargo test --profile agave-lines --locked --manifest-path "$crate/Cargo.toml" --target-dir target \
        --no-default-features --features "solana-perf-$line" \
        --lib --test against_solana_perf --test fallback
done
if $scratch; then
    rm -rf target/agave-lines
fi
