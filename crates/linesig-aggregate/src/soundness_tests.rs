//! The aggregate statement end to end on the shared devnet-4 vectors: honest lists
//! prove and verify, the trace equals linesig's own verifier step by step, and every
//! lie the issue lists fails to be proved or to verify (a bad signature among N, a
//! wrong message, epoch or key, reordered or missing signers, flipped proof bytes, a
//! chain shortened or lengthened, digits off by one).

use super::statement::{layout, AggregateAir, Claim, Witness, MAIN_WIDTH};
use super::{capacity, prove, signer, stark, verify_aggregate, AggregateError};
use super::{VerifyAggregateError, MAX_SIGNATURES};
use linesig::leansig::internals::lanes::{from_monty, Portable};
use linesig::leansig::internals::{decode, hash};
use linesig::leansig::{epoch_context, Instance};
use linesig::Item;
use linesig::Reject;
use p3_field::{PrimeCharacteristicRing, PrimeField32};
use p3_koala_bear::KoalaBear;
use p3_matrix::dense::RowMajorMatrix;

pub(super) struct Case {
    public_key: Vec<u8>,
    message: Vec<u8>,
    signature: Vec<u8>,
    epoch: [u8; 4],
    valid: bool,
}

pub(super) fn cases() -> Vec<Case> {
    let path = format!(
        "{}/../../../shared/vectors/leansig/leansig_devnet4_c08a3ba_L32_dim46.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("shared vectors")).unwrap();
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            public_key: hex::decode(c["public_key"].as_str().unwrap()).unwrap(),
            message: hex::decode(c["message"].as_str().unwrap()).unwrap(),
            signature: hex::decode(c["signature"].as_str().unwrap()).unwrap(),
            epoch: epoch_context(c["epoch"].as_u64().unwrap() as u32),
            valid: c["expected_spec"].as_bool().unwrap(),
        })
        .collect()
}

fn item(c: &Case) -> Item<'_> {
    Item::new(&c.public_key, &c.message, &c.signature).with_context(&c.epoch)
}

pub(super) fn valid(cases: &[Case]) -> Vec<Item<'_>> {
    cases.iter().filter(|c| c.valid).map(item).collect()
}

const DEVNET4: Instance = Instance::Devnet4;

pub(super) fn signers(items: &[Item<'_>]) -> Vec<(Claim, Witness)> {
    items
        .iter()
        .map(|item| signer(DEVNET4, item).unwrap())
        .collect()
}

fn violates(air: &AggregateAir, trace: &RowMajorMatrix<KoalaBear>) -> bool {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        p3_air::check_constraints(air, trace, &[])
    }));
    std::panic::set_hook(previous);
    result.is_err()
}

#[test]
fn the_valid_vectors_aggregate_and_verify() {
    let cases = cases();
    let items = valid(&cases);
    assert_eq!(items.len(), 4, "the devnet-4 file's valid signatures");
    let proof = prove(DEVNET4, &items).expect("valid signatures prove");
    verify_aggregate(DEVNET4, &items, &proof.bytes).expect("the proof verifies");
    // Verification reads no signature.
    let bare: Vec<Item<'_>> = items
        .iter()
        .map(|i| Item::new(i.public_key, i.message, &[]).with_context(i.context))
        .collect();
    verify_aggregate(DEVNET4, &bare, &proof.bytes).expect("signatures are not read");
    // One signer, and a count that is not a power of two (padding blocks).
    for n in [1, 3] {
        let proof = prove(DEVNET4, &items[..n]).unwrap();
        verify_aggregate(DEVNET4, &items[..n], &proof.bytes).unwrap();
    }
}

#[test]
fn honest_traces_satisfy_every_constraint() {
    let cases = cases();
    let items = valid(&cases);
    for n in [1, 2, 3] {
        let signers = signers(&items[..n]);
        let claims: Vec<Claim> = signers.iter().map(|s| s.0).collect();
        let air = AggregateAir::new(&claims, capacity(DEVNET4));
        assert!(!violates(&air, &air.trace(&signers)), "{n} signers");
    }
}

#[test]
fn the_trace_follows_linesigs_verifier_step_by_step() {
    let cases = cases();
    let items = valid(&cases);
    let signers = signers(&items);
    let claims: Vec<Claim> = signers.iter().map(|s| s.0).collect();
    let air = AggregateAir::new(&claims, capacity(DEVNET4));
    let trace = air.trace(&signers);
    let params = linesig::leansig::internals::params(DEVNET4);
    let canonical = |x: KoalaBear| x.as_canonical_u32();
    for (s, item) in items.iter().enumerate() {
        let d = decode(DEVNET4, item).unwrap();
        let row =
            |r: usize| &trace.values[(64 * s + r) * MAIN_WIDTH..(64 * s + r + 1) * MAIN_WIDTH];
        // The message hash: the digit registers start at its elements.
        let message = hash::message_elements(&d.message);
        let expected = hash::message_hash::<Portable<1>>(
            params,
            &[(d.key.parameter, d.epoch, d.signature.rho, message)],
        );
        for (m, &element) in expected[0][..6].iter().enumerate() {
            assert_eq!(canonical(row(0)[layout::REMAINING + m]), element);
        }
        // Every chain end.
        let digits = linesig::leansig::internals::encode(params, &expected[0]).unwrap();
        let mut ends = Vec::new();
        for (i, &x) in digits.iter().enumerate() {
            let mut walk =
                hash::ChainWalk::<Portable<1>>::new(params, &[d.key.parameter], &[d.epoch]);
            walk.set(0, &d.signature.hashes[i]);
            for position in x as usize + 1..=7 {
                walk.step(&[i], &[position]);
            }
            let end = if x == 7 {
                d.signature.hashes[i]
            } else {
                walk.get(0)
            };
            for (k, &x) in end.iter().enumerate() {
                assert_eq!(
                    canonical(row(i)[layout::END + k]),
                    from_monty(x),
                    "chain {i}"
                );
            }
            ends.push(end);
        }
        // The leaf, then every tree node.
        let mut node = hash::leaf::<Portable<1>>(
            params,
            linesig::leansig::internals::capacity(DEVNET4),
            &[d.key.parameter],
            &[d.epoch],
            &[ends],
        )[0];
        for level in 0..32 {
            if level % 2 == 0 {
                let r = layout::TREE_ROW + level / 2;
                for (k, &x) in node.iter().enumerate() {
                    assert_eq!(canonical(row(r)[layout::NODE + k]), from_monty(x));
                }
            }
            let position = d.epoch >> level;
            let sibling = d.signature.path[level];
            let (left, right) = if position & 1 == 0 {
                (node, sibling)
            } else {
                (sibling, node)
            };
            let tweak = hash::tree_tweak(level + 1, position >> 1);
            node =
                hash::tree_node::<Portable<1>>(params, &[(d.key.parameter, tweak, left, right)])[0];
        }
        assert_eq!(node, d.key.root);
    }
}

#[test]
fn tweaks_match_the_verifiers() {
    use super::statement::{chain_tweak, tree_tweak};
    let monty = |t: [KoalaBear; 2]| {
        t.map(|x| linesig::leansig::internals::lanes::to_monty(x.as_canonical_u32()))
    };
    for epoch in [0, 1, 1000, 131_071, u32::MAX, 0x7f00_0000] {
        let walk = hash::EpochTweak::new(epoch);
        for (chain, position) in [(0, 1), (45, 7), (17, 3)] {
            assert_eq!(
                monty(chain_tweak(epoch, chain, position)),
                walk.chain(chain, position)
            );
        }
        for level in [0, 1, 32] {
            assert_eq!(
                monty(tree_tweak(level, epoch >> level.min(31))),
                hash::tree_tweak(level, epoch >> level.min(31))
            );
        }
    }
}

#[test]
fn a_bad_signature_among_many_is_refused_with_its_index() {
    let cases = cases();
    let good = valid(&cases);
    for (k, bad) in cases.iter().filter(|c| !c.valid).enumerate() {
        let mut items = good.clone();
        let at = k % (items.len() + 1);
        items.insert(at, item(bad));
        match prove(DEVNET4, &items) {
            Err(AggregateError::InvalidSignature { index, .. }) => assert_eq!(index, at),
            other => panic!("an invalid signature at {at}: {other:?}"),
        }
    }
    assert_eq!(prove(DEVNET4, &[]), Err(AggregateError::Empty));
    assert_eq!(
        prove(Instance::L18, &good),
        Err(AggregateError::UnsupportedInstance(Instance::L18))
    );
    let many = vec![good[0]; MAX_SIGNATURES + 1];
    assert_eq!(
        prove(DEVNET4, &many),
        Err(AggregateError::TooMany {
            count: MAX_SIGNATURES + 1
        })
    );
}

#[test]
fn a_proof_holds_for_its_list_only() {
    let cases = cases();
    let items = valid(&cases);
    let proof = prove(DEVNET4, &items).unwrap().bytes;
    let refused = |list: &[Item<'_>], bytes: &[u8]| verify_aggregate(DEVNET4, list, bytes).is_err();

    // A different message, epoch or key for one signer.
    let other_message = [0x5au8; 32];
    let mut list = items.clone();
    list[1].message = &other_message;
    assert!(refused(&list, &proof), "wrong message");
    let other_epoch = epoch_context(2);
    let mut list = items.clone();
    list[2].context = &other_epoch;
    assert!(refused(&list, &proof), "wrong epoch");
    let mut other_root = items[0].public_key.to_vec();
    other_root[0] ^= 1;
    let mut other_parameter = items[0].public_key.to_vec();
    other_parameter[40] ^= 1;
    for key in [&other_root, &other_parameter] {
        let mut list = items.clone();
        list[0].public_key = key;
        assert!(refused(&list, &proof), "wrong key");
    }

    // Reordered, one missing, one repeated.
    let mut list = items.clone();
    list.swap(0, 3);
    assert!(matches!(
        verify_aggregate(DEVNET4, &list, &proof),
        Err(VerifyAggregateError::Rejected(_))
    ));
    assert_eq!(
        verify_aggregate(DEVNET4, &items[..3], &proof),
        Err(VerifyAggregateError::CountMismatch {
            proof: 4,
            listed: 3
        })
    );
    // The count rewritten to match a shorter list: the statement still differs.
    let mut recounted = proof.clone();
    recounted[5..9].copy_from_slice(&3u32.to_le_bytes());
    assert!(
        refused(&items[..3], &recounted),
        "a superset's proof for a prefix"
    );
    // A prefix's proof, its count rewritten to the whole list's: three signers and four
    // fill the same 256 rows, so only the binding to the list refuses it.
    assert_eq!(
        AggregateAir::degree_bits(3),
        AggregateAir::degree_bits(items.len())
    );
    let mut extended = prove(DEVNET4, &items[..3]).unwrap().bytes;
    extended[5..9].copy_from_slice(&(items.len() as u32).to_le_bytes());
    assert!(
        matches!(
            verify_aggregate(DEVNET4, &items, &extended),
            Err(VerifyAggregateError::Rejected(_))
        ),
        "a prefix's proof for the whole list"
    );
    let mut list = items.clone();
    list[3] = list[0];
    assert!(
        refused(&list, &proof),
        "a signer repeated in place of another"
    );

    // A signer that does not decode is named.
    let mut list = items.clone();
    let short = [0u8; 51];
    list[2].public_key = &short;
    assert_eq!(
        verify_aggregate(DEVNET4, &list, &proof),
        Err(VerifyAggregateError::BadSigner {
            index: 2,
            reason: Reject::BadLength
        })
    );
}

#[test]
fn flipped_proof_bytes_never_verify() {
    let cases = cases();
    let items = valid(&cases);
    let proof = prove(DEVNET4, &items[..2]).unwrap().bytes;
    let step = (proof.len() / 61).max(1);
    for at in (0..proof.len())
        .step_by(step)
        .chain([4, 5, proof.len() - 1])
    {
        let mut flipped = proof.clone();
        flipped[at] ^= 0x10;
        assert!(
            verify_aggregate(DEVNET4, &items[..2], &flipped).is_err(),
            "flip at byte {at} of {} verified",
            proof.len()
        );
    }
    let mut trailing = proof.clone();
    trailing.push(0);
    assert_eq!(
        verify_aggregate(DEVNET4, &items[..2], &trailing),
        Err(VerifyAggregateError::Format(
            stark::ProofFormatError::TrailingBytes(1)
        ))
    );
    assert!(verify_aggregate(DEVNET4, &items[..2], &proof[..proof.len() / 3]).is_err());
    assert!(verify_aggregate(DEVNET4, &items[..2], &[]).is_err());
}

/// The trace of `signers` with chain `chain` of signer 0 refilled for digit `x`: a
/// chain shortened or lengthened, its own row consistent.
fn with_digit(
    air: &AggregateAir,
    signers: &[(Claim, Witness)],
    chain: usize,
    x: usize,
) -> RowMajorMatrix<KoalaBear> {
    let mut trace = air.trace(signers);
    let row = &mut trace.values[chain * MAIN_WIDTH..(chain + 1) * MAIN_WIDTH];
    let _ = air.fill_chain(
        row,
        &signers[0].0,
        Some(chain),
        signers[0].1.hashes[chain],
        x,
    );
    trace
}

#[test]
fn chains_cannot_be_shortened_or_lengthened_and_digits_must_add_up() {
    let cases = cases();
    let items = valid(&cases);
    let signers = signers(&items[..1]);
    let air = AggregateAir::new(&[signers[0].0], capacity(DEVNET4));
    let honest = air.trace(&signers);
    assert!(!violates(&air, &honest));
    // The digits of signer 0, from its remaining-value registers' steps.
    let digit = |trace: &RowMajorMatrix<KoalaBear>, chain: usize| {
        let row = &trace.values[chain * MAIN_WIDTH..(chain + 1) * MAIN_WIDTH];
        (0..layout::STEPS)
            .filter(|&j| row[layout::slot(j)] == KoalaBear::ZERO)
            .count()
    };
    let (a, b) = (
        (0..46).find(|&i| digit(&honest, i) > 0).unwrap(),
        (0..46).find(|&i| digit(&honest, i) < 7).unwrap(),
    );
    // Shortened (one step fewer), lengthened (one more), and both at once (sum kept).
    let x = digit(&honest, a);
    assert!(
        violates(&air, &with_digit(&air, &signers, a, x - 1)),
        "chain {a} lengthened"
    );
    let y = digit(&honest, b);
    assert!(
        violates(&air, &with_digit(&air, &signers, b, y + 1)),
        "chain {b} shortened"
    );
    // A flag flipped on its own, and the digit sum off by one.
    let mut flag = honest.clone();
    flag.values[b * MAIN_WIDTH + layout::slot(6)] = KoalaBear::ZERO;
    assert!(violates(&air, &flag));
    let mut sum = honest.clone();
    for r in 1..64 {
        sum.values[r * MAIN_WIDTH + layout::DIGIT_SUM] += KoalaBear::ONE;
    }
    assert!(violates(&air, &sum), "digit sum off by one");
    // The remainder bits and the message hash's rho.
    let mut bits = honest.clone();
    bits.values[layout::CHECK_ROW * MAIN_WIDTH + layout::BITS] += KoalaBear::ONE;
    assert!(violates(&air, &bits));
    let mut rho = honest.clone();
    rho.values[layout::LANE_B + 16] += KoalaBear::ONE;
    assert!(violates(&air, &rho));
}
