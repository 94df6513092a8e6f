//! The half-size scalars' walks on AVX-512F with FMA: sixteen walks in lockstep, two
//! vectors of eight f64 per quantity, the lanes' step conditions in mask registers.

use super::{halve_all_in_lanes, HalfScalars, LeadingWords, COFACTOR_BOUND, MAX_STEPS, WALK_LANES};
use core::arch::x86_64::*;

linesig_simd::isa_path!("avx512f,fma");

kernels! {
    /// [`halve_all_in_lanes`] with the lockstep steps on AVX-512 vectors of eight f64.
    pub(super) fn halve_all(scalars: &[([u8; 32], [u8; 32])], out: &mut Vec<HalfScalars>) {
        // The closure inherits this function's target features, so the call is safe.
        halve_all_in_lanes(scalars, out, |w| lehmer_matrices(w))
    }

    /// [`lehmer_matrices`] on two AVX-512 vectors per quantity, the same steps (the
    /// divisions round toward −∞, which the argument there does not need, but costs
    /// nothing). The state stays in registers; the lanes' step masks are AVX-512 mask
    /// registers.
    pub(super) fn lehmer_matrices(words: &[LeadingWords; WALK_LANES]) -> [[i64; 4]; WALK_LANES] {
        const VECTORS: usize = WALK_LANES / 8;
        let load = |v: [f64; WALK_LANES]| -> [__m512d; VECTORS] {
            core::array::from_fn(|h| {
                // SAFETY: `v[8h..8h + 8]` is 64 readable bytes.
                unsafe { _mm512_loadu_pd(v[8 * h..].as_ptr()) }
            })
        };
        let (u, v, threshold) = (
            load(words.map(|w| w.u)),
            load(words.map(|w| w.v)),
            load(words.map(|w| w.threshold)),
        );
        let mut states: [StepState; VECTORS] =
            core::array::from_fn(|h| new_state(u[h], v[h], threshold[h]));
        for _ in 0..MAX_STEPS {
            if states.iter().all(|s| s.live == 0) {
                break;
            }
            // Independent vectors, stepped one after the other: each step waits on its
            // division, and the other vector's step fills the wait.
            for state in &mut states {
                step(state);
            }
        }
        let mut out = [[0i64; 4]; WALK_LANES];
        for (h, state) in states.iter().enumerate() {
            let mut values = [[0f64; 8]; 4];
            for (value, v) in values.iter_mut().zip([state.a, state.b, state.c, state.d]) {
                // SAFETY: `value` is 64 writable bytes.
                unsafe { _mm512_storeu_pd(value.as_mut_ptr(), v) };
            }
            for lane in 0..8 {
                out[8 * h + lane] = values.map(|v| v[lane] as i64);
            }
        }
        out
    }

    #[inline]
    fn new_state(
        x: __m512d,
        y: __m512d,
        threshold: __m512d,
    ) -> StepState {
        let (zero, one) = (_mm512_setzero_pd(), _mm512_set1_pd(1.0));
        StepState {
            x,
            y,
            a: one,
            b: zero,
            c: zero,
            d: one,
            threshold,
            live: _mm512_cmp_pd_mask::<_CMP_GT_OQ>(y, zero),
        }
    }

    /// One step of `lehmer_matrices` in every live lane.
    #[inline]
    fn step(state: &mut StepState) {
        const DOWN: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        let StepState {
            x,
            y,
            a,
            b,
            c,
            d,
            threshold,
            live,
        } = *state;
        let zero = _mm512_setzero_pd();
        let bound = _mm512_set1_pd(COFACTOR_BOUND);
        let (num_1, den_1) = (_mm512_add_pd(x, a), _mm512_add_pd(y, c));
        let (num_2, den_2) = (_mm512_add_pd(x, b), _mm512_add_pd(y, d));
        let q = _mm512_roundscale_pd::<DOWN>(_mm512_div_round_pd::<DOWN>(num_1, den_1));
        let q_2 = _mm512_roundscale_pd::<DOWN>(_mm512_div_round_pd::<DOWN>(num_2, den_2));
        let c_next = _mm512_fnmadd_pd(q, c, a);
        let d_next = _mm512_fnmadd_pd(q, d, b);
        let y_next = _mm512_fnmadd_pd(q, y, x);
        // The conditions as independent masks ANDed at the end, not one chain of
        // masked compares: the step's latency is the loop's.
        let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(den_1, zero)
            & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(den_2, zero)
            & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(num_1, zero)
            & _mm512_cmp_pd_mask::<_CMP_GE_OQ>(num_2, zero);
        let agree = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(q, q_2);
        let bounded = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_abs_pd(c_next), bound)
            & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_abs_pd(d_next), bound);
        let step = live & positive & agree & bounded;
        let y_stepped = _mm512_mask_mov_pd(y, step, y_next);
        *state = StepState {
            x: _mm512_mask_mov_pd(x, step, y),
            y: y_stepped,
            a: _mm512_mask_mov_pd(a, step, c),
            b: _mm512_mask_mov_pd(b, step, d),
            c: _mm512_mask_mov_pd(c, step, c_next),
            d: _mm512_mask_mov_pd(d, step, d_next),
            threshold,
            live: _mm512_mask_cmp_pd_mask::<_CMP_GE_OQ>(step, y_stepped, threshold),
        };
    }
}

/// Eight lanes of [`lehmer_matrices`]: the leading words, their matrix so far,
/// and the lanes still stepping.
#[derive(Clone, Copy)]
struct StepState {
    x: __m512d,
    y: __m512d,
    a: __m512d,
    b: __m512d,
    c: __m512d,
    d: __m512d,
    threshold: __m512d,
    live: u8,
}
