//! Lane-parallel Ed25519 verification, written once over any [`LaneField`] and
//! instantiated per backend inside a `#[target_feature]` function, so that every
//! `#[inline(always)]` layer below compiles with that backend's instructions.
//!
//! Per work unit:
//! 1. Distinct keys are decoded in lanes (square root, small-order check) and each gets
//!    a table of its multiples 0..8 of −A, so a key signing many messages is decoded
//!    and tabulated once.
//! 2. Signatures pass the shared byte-level checks (S < L, R's encoding rules), then run
//!    `LANES` at a time: [S]B + [k](−A) by Horner over 64 signed radix-16 windows (four
//!    doublings and two table additions per window, the same schedule in every lane),
//!    then `Strict` compresses and compares bytes with R, and the cofactored policies
//!    decode R and test [8]([S]B − [k]A − R) = O. A ragged tail fills its spare lanes
//!    with copies of a real job and drops their results.

mod point;
mod scalar;

use super::field::{LaneField, MAX_LANES};
use super::policy::Rules;
use super::{challenge, precheck_key, precheck_signature, UnitEntry};
use crate::engine::grouping::key_groups;
use crate::verdict::{Reject, Verdict};
use curve25519_dalek::constants::ED25519_BASEPOINT_COMPRESSED;
use point::{compress, decompress, Cached, CachedLimbs, Constants, Extended};

/// Multiples 0..8 of one lane's point (entry 0 is the identity).
type Table<F> = [CachedLimbs<F>; 9];

/// One signature ready for the lanes.
struct Job {
    slot: u32,
    table: u32,
    r: [u8; 32],
    s: [u8; 32],
    k: [u8; 32],
}

/// Push the table of multiples of `p` for each lane in `keep` (in lane order).
#[inline(always)]
fn build_tables<F: LaneField>(
    c: &Constants<F>,
    p: &Extended<F>,
    keep: u8,
    out: &mut Vec<Table<F>>,
) {
    let p_cached = p.to_cached(c);
    let mut multiples = [Cached::identity(); 9];
    multiples[1] = p_cached;
    let mut acc = *p;
    for m in multiples.iter_mut().skip(2) {
        acc = acc.add(&p_cached).to_extended();
        *m = acc.to_cached(c);
    }
    for lane in (0..F::LANES).filter(|l| keep >> l & 1 == 1) {
        out.push(core::array::from_fn(|j| multiples[j].lane(lane)));
    }
}

/// The multiples 0..8 of the base point B in `F`'s limb format; a backend builds it
/// once and keeps it in a static.
#[inline(always)]
fn basepoint_table<F: LaneField>(c: &Constants<F>) -> Table<F> {
    let (b, _) = decompress(
        c,
        &[ED25519_BASEPOINT_COMPRESSED.to_bytes(); MAX_LANES][..F::LANES],
    );
    let mut t = Vec::with_capacity(1);
    build_tables(c, &b, 1, &mut t);
    t[0]
}

/// Verify a work unit's well-formed entries into `out` (indexed by `entry.slot`).
#[inline(always)]
pub(crate) fn verify_entries<F: LaneField>(
    rules: Rules,
    basepoint_table: &Table<F>,
    entries: &mut [UnitEntry<'_>],
    out: &mut [Verdict],
) {
    let c = Constants::<F>::new();

    // 1. Keys.
    let groups = key_groups(entries, |e| e.public_key);
    let mut key_state: Vec<Result<u32, Reject>> = vec![Err(Reject::BadPublicKey); groups.len()];
    let mut to_decode = Vec::with_capacity(groups.len());
    for (g, range) in groups.iter().enumerate() {
        match precheck_key(rules, entries[range.start].public_key) {
            Err(reason) => key_state[g] = Err(reason),
            Ok(()) => to_decode.push(g),
        }
    }
    let mut tables: Vec<Table<F>> = Vec::with_capacity(to_decode.len());
    for chunk in to_decode.chunks(F::LANES) {
        let encodings: [[u8; 32]; MAX_LANES] = core::array::from_fn(|i| {
            *entries[groups[chunk[i.min(chunk.len() - 1)]].start].public_key
        });
        let (a, decoded) = decompress(&c, &encodings[..F::LANES]);
        let small = if rules.reject_small_order {
            a.small_order_mask()
        } else {
            0
        };
        let live = ((1u16 << chunk.len()) - 1) as u8;
        let keep = live & decoded & !small;
        let first = tables.len() as u32;
        build_tables(&c, &a.neg(), keep, &mut tables);
        let mut next = first;
        for (lane, &g) in chunk.iter().enumerate() {
            key_state[g] = if decoded >> lane & 1 == 0 {
                Err(Reject::BadPublicKey)
            } else if small >> lane & 1 == 1 {
                Err(Reject::SmallOrderKey)
            } else {
                next += 1;
                Ok(next - 1)
            };
        }
    }

    // 2. Signatures.
    let mut jobs = Vec::with_capacity(entries.len());
    for (g, range) in groups.iter().enumerate() {
        for entry in &entries[range.clone()] {
            let slot = entry.slot as usize;
            let table = match key_state[g] {
                Ok(t) => t,
                Err(reason) => {
                    out[slot] = Verdict::Invalid(reason);
                    continue;
                }
            };
            match precheck_signature(rules, entry.signature) {
                Err(reason) => out[slot] = Verdict::Invalid(reason),
                Ok((r, s)) => jobs.push(Job {
                    slot: entry.slot,
                    table,
                    r: *r,
                    s: s.to_bytes(),
                    k: challenge(r, entry.public_key, entry.message).to_bytes(),
                }),
            }
        }
    }
    for chunk in jobs.chunks(F::LANES) {
        verify_chunk(rules, &c, &tables, basepoint_table, chunk, out);
    }
}

/// Up to `F::LANES` jobs at once.
#[inline(always)]
fn verify_chunk<F: LaneField>(
    rules: Rules,
    c: &Constants<F>,
    tables: &[Table<F>],
    basepoint_table: &Table<F>,
    chunk: &[Job],
    out: &mut [Verdict],
) {
    let job = |lane: usize| &chunk[lane.min(chunk.len() - 1)];
    let k_digits: [[i8; 64]; MAX_LANES] = core::array::from_fn(|i| scalar::radix16(&job(i).k));
    let s_digits: [[i8; 64]; MAX_LANES] = core::array::from_fn(|i| scalar::radix16(&job(i).s));
    let key_tables: [&Table<F>; MAX_LANES] =
        core::array::from_fn(|i| &tables[job(i).table as usize]);

    // acc = Σ_w 16^w·(k_w·(−A) + s_w·B), from the top window down.
    let mut acc = Extended::<F>::identity();
    for w in (0..64).rev() {
        if w != 63 {
            acc = acc.mul_by_16();
        }
        for (digits, per_lane_table) in [(&k_digits, None), (&s_digits, Some(basepoint_table))] {
            let mut negate = 0u8;
            let rows: [&CachedLimbs<F>; MAX_LANES] = core::array::from_fn(|i| {
                let d = digits[i][w];
                negate |= u8::from(d < 0) << i;
                &per_lane_table.unwrap_or(key_tables[i])[d.unsigned_abs() as usize]
            });
            acc = acc
                .add(&Cached::gather(&rows[..F::LANES], negate))
                .to_extended();
        }
    }

    if !rules.cofactored {
        // enc([S]B − [k]A) == R bytes (R's byte rules were checked before).
        let mut encoded = [[0u8; 32]; MAX_LANES];
        compress(&acc, &mut encoded[..F::LANES]);
        for (lane, j) in chunk.iter().enumerate() {
            out[j.slot as usize] = if encoded[lane] == j.r {
                Verdict::Valid
            } else {
                Verdict::Invalid(Reject::EquationFailed)
            };
        }
    } else {
        let r_encodings: [[u8; 32]; MAX_LANES] = core::array::from_fn(|i| job(i).r);
        let (r, decoded) = decompress(c, &r_encodings[..F::LANES]);
        let small = if rules.reject_small_order {
            r.small_order_mask()
        } else {
            0
        };
        let holds = acc
            .add(&r.neg().to_cached(c))
            .to_extended()
            .small_order_mask();
        for (lane, j) in chunk.iter().enumerate() {
            let bit = |m: u8| m >> lane & 1 == 1;
            out[j.slot as usize] = if !bit(decoded) {
                Verdict::Invalid(Reject::BadSignatureR)
            } else if bit(small) {
                Verdict::Invalid(Reject::SmallOrderR)
            } else if bit(holds) {
                Verdict::Valid
            } else {
                Verdict::Invalid(Reject::EquationFailed)
            };
        }
    }
}

/// The AVX2 instantiation: four signatures per vector.
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use super::super::field::avx2::Fe4;
    use super::*;
    use std::sync::OnceLock;

    static BASEPOINT_TABLE: OnceLock<Table<Fe4>> = OnceLock::new();

    #[target_feature(enable = "avx2")]
    fn verify_entries_avx2(rules: Rules, entries: &mut [UnitEntry<'_>], out: &mut [Verdict]) {
        let table = BASEPOINT_TABLE.get_or_init(|| basepoint_table(&Constants::<Fe4>::new()));
        verify_entries::<Fe4>(rules, table, entries, out)
    }

    /// Whether this CPU can run the AVX2 backend.
    pub(crate) fn supported() -> bool {
        is_x86_feature_detected!("avx2")
    }

    /// Verify on AVX2. The engine selects this backend only where [`supported`] holds;
    /// should it ever be called elsewhere it verifies on the reference path instead of
    /// executing unsupported instructions.
    pub(crate) fn verify_unit(rules: Rules, entries: &mut [UnitEntry<'_>], out: &mut [Verdict]) {
        if supported() {
            // SAFETY: the CPU supports AVX2, checked just above.
            unsafe { verify_entries_avx2(rules, entries, out) }
        } else {
            super::super::reference::verify_entries(rules, entries, out)
        }
    }
}
