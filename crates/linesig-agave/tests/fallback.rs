//! The free function when no engine can be built (`LINESIG_BACKEND` naming no backend):
//! it verifies on the portable path and still leaves solana-perf's flags on every
//! packet, where `Verifier::new` reports the error. A binary of its own, since the
//! variable is read once per process.

mod support;

use linesig::wire::Version;
use solana_perf::packet::PacketFlags;
use support::*;

#[test]
fn an_unbuildable_engine_falls_back_to_the_portable_path() {
    std::env::set_var("LINESIG_BACKEND", "no-such-backend");
    assert!(linesig_agave::Verifier::new().is_err());
    let mut signers = Signers::new(9, 20);
    let mut cases = Vec::new();
    for version in [Version::Legacy, Version::V0, Version::V1] {
        for n in [1, 2, 3] {
            let good = signed(version, &signers.pick(n), 1, SYSTEM_PROGRAM);
            let mut bad = good.clone();
            bad[good.len() - 1] ^= 1;
            cases.push(Case::new(good));
            cases.push(Case::new(bad));
        }
        cases.push(Case::new(vote(version, &signers.pick(1))));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for reject_non_vote in [false, true] {
        for &tx_v1 in TX_V1 {
            let batches = batches(&cases, Layout::Mixed(3));
            let mut theirs = batches.clone();
            oracle(&pool, &mut theirs, reject_non_vote, tx_v1);
            let mut mine = batches;
            ours(&pool, &mut mine, reject_non_vote, tx_v1);
            assert_eq!(
                flags(&mine),
                flags(&theirs),
                "reject_non_vote {reject_non_vote}, tx_v1 {tx_v1}"
            );
            let kept = |f: &PacketFlags| !f.contains(PacketFlags::DISCARD);
            assert!(flags(&mine).iter().any(kept), "some packets pass");
        }
    }
}
