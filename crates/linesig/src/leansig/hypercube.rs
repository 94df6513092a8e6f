//! The legacy "top-level" message encoding (leanSig 73bedc2 `hypercube.rs`): a big
//! integer made of the message hash's field elements picks a vertex of [0, w−1]^v
//! among the layers 0..=FINAL_LAYER, where layer d holds the vertices whose digits sum
//! to v(w−1) − d.
//!
//! The verifier needs only the vertices of the target layer (target sum 375 is layer
//! 448 − 375 = 73): any other layer is a failed encoding, so it is rejected before the
//! vertex is computed.

use num_bigint::BigUint as Integer;
use num_traits::ToPrimitive;
use std::sync::OnceLock;

/// Layer sizes of [0, w−1]^v for one base w: `sizes[v][d]` vertices at distance d from
/// the top corner, for v up to the largest dimension in use.
struct LayerSizes {
    sizes: Vec<Vec<Integer>>,
    /// `prefix[v][d]`: the vertices of layers below d, Σ_{d' < d} sizes[v][d'].
    prefix: Vec<Vec<Integer>>,
}

const MAX_DIMENSION: usize = 64;

impl LayerSizes {
    fn new(w: usize) -> Self {
        let mut sizes = vec![Vec::new(); MAX_DIMENSION + 1];
        sizes[1] = vec![Integer::from(1u8); w];
        for v in 2..=MAX_DIMENSION {
            // A vertex of dimension v at distance d: its first digit is at distance j,
            // the other v − 1 digits at d − j.
            sizes[v] = (0..=(w - 1) * v)
                .map(|d| {
                    let low = d.saturating_sub((w - 1) * (v - 1));
                    (low..=d.min(w - 1))
                        .map(|j| &sizes[v - 1][d - j])
                        .fold(Integer::default(), |acc, x| acc + x)
                })
                .collect();
        }
        let prefix = sizes
            .iter()
            .map(|layer| {
                let mut sum = Integer::default();
                let mut out = vec![sum.clone()];
                for size in layer {
                    sum += size;
                    out.push(sum.clone());
                }
                out
            })
            .collect();
        LayerSizes { sizes, prefix }
    }
}

fn base_8() -> &'static LayerSizes {
    static SIZES: OnceLock<LayerSizes> = OnceLock::new();
    SIZES.get_or_init(|| LayerSizes::new(8))
}

/// The digits of the vertex that `hash` (field elements, canonical, most significant
/// first) names, if it lies in the layer whose digits sum to `target_sum`.
pub(crate) fn encode(
    hash: &[u32],
    dimension: usize,
    final_layer: usize,
    target_sum: usize,
) -> Option<Vec<u8>> {
    const W: usize = 8;
    let tables = base_8();
    let sizes = &tables.sizes;
    let mut acc = Integer::default();
    for &fe in hash {
        acc *= super::lanes::P;
        acc += fe;
    }
    acc %= &tables.prefix[dimension][final_layer + 1];
    let layer = dimension * (W - 1) - target_sum;
    // Vertices of the layers before `layer` come first.
    let before = &tables.prefix[dimension][layer];
    if acc < *before {
        return None;
    }
    let mut x = acc - before;
    if x >= sizes[dimension][layer] {
        return None;
    }
    let mut digits = Vec::with_capacity(dimension);
    let mut d = layer;
    for i in 1..dimension {
        let low = d.saturating_sub((W - 1) * (dimension - i));
        let mut chosen = W;
        for j in low..=d.min(W - 1) {
            let count = &sizes[dimension - i][d - j];
            if x >= *count {
                x -= count;
            } else {
                chosen = j;
                break;
            }
        }
        debug_assert!(chosen < W, "x lies inside the layer");
        digits.push((W - 1 - chosen) as u8);
        d -= chosen;
    }
    let rest = x.to_usize().expect("below w") + d;
    digits.push((W - 1 - rest) as u8);
    Some(digits)
}
