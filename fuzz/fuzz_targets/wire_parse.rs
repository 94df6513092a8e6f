//! Arbitrary bytes into the Solana packet parser: it never panics, it accepts exactly
//! what the Solana SDK's decoder and sanitizer accept (plus docs/design.md §5's limits), and
//! every range it returns lies inside the packet.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linesig::wire::{self, ParseOptions};

#[path = "../../crates/linesig/tests/support/solana_oracle.rs"]
mod solana_oracle;

fuzz_target!(|packet: &[u8]| {
    let ours = wire::parse(packet, ParseOptions::default());
    assert_eq!(ours.is_ok(), solana_oracle::oracle_accepts(packet), "{:?}", ours.err());
    if let Ok(tx) = ours {
        assert_eq!(tx.items().count(), tx.signature_count());
    }
    // With precompile extraction on, only the extra rules may reject it, and every
    // triple's ranges are in bounds (items() would panic otherwise).
    if let Ok(tx) = wire::parse(packet, ParseOptions { accept_v1: true, precompile: true }) {
        assert!(tx.items().count() >= tx.signature_count());
    }
});
