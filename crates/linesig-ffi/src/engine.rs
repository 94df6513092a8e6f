//! The verifying engine through C: a config struct in, an opaque engine out, batches
//! verified in place into one verdict byte per item.

use crate::{
    byte_strings, free_box, guarded, hand_out, null, scheme_number, Failure, LinesigBytes,
    LinesigStatus, SchemeNumber, NAMES,
};
use linesig::{Backend, Engine, Item, ItemSource, Policy, Reject, Scheme, Verdict};
use std::ffi::{c_char, c_int};

/// Engine settings. Zero-initialise, then set what you need: zero means the default.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LinesigConfig {
    /// A `LinesigScheme` value (0 = Ed25519).
    pub scheme: u32,
    /// Ed25519 policy: 0 = strict (Solana today), 1 = zip215, 2 = zip215-strict (SIMD-0376).
    pub policy: u32,
    /// Worker threads, at most 1024 (`MAX_WORKERS`; more is `InvalidConfig`); 0 = all
    /// cores.
    pub workers: u32,
    /// Items per work unit; 0 = 512.
    pub batch_size: u32,
    /// Backend: 0 = automatic, 1 = portable, 2 = avx2, 3 = avx512 (for ML-DSA: libcrux,
    /// linesig's verifier on AVX2, on AVX-512).
    pub backend: u32,
    /// Bytes for the hot-key cache (Ed25519 keys' fixed-base tables, ML-DSA expanded
    /// keys); 0 = off. A value too small for one table (Ed25519: about 105 KB, 210 KB on
    /// avx2; ML-DSA-44/65/87: about 21/38/68 KB) is `InvalidConfig`.
    pub key_cache_bytes: u64,
    /// The batch equation of the cofactored Ed25519 policies (zip215, zip215-strict):
    /// 0 = default (on), 1 = on, 2 = off (each signature alone: every verdict a
    /// deterministic function of its item). Verdicts are the same either way; other
    /// schemes and `strict` ignore it.
    pub batch_equation: u32,
}

/// An engine: worker pool and configuration. Opaque to C.
pub struct LinesigEngine {
    engine: Engine,
}

fn invalid(message: String) -> Failure {
    Failure::new(LinesigStatus::InvalidConfig, message)
}

fn scheme_of(config: &LinesigConfig) -> Result<Scheme, Failure> {
    let policy = match config.policy {
        0 => Policy::Strict,
        1 => Policy::Zip215,
        2 => Policy::Zip215Strict,
        other => {
            return Err(invalid(format!(
                "unknown policy number {other} (0 strict, 1 zip215, 2 zip215-strict)"
            )))
        }
    };
    let number = if config.scheme == 0 { 1 } else { config.scheme };
    let scheme = match scheme_number(number) {
        Ok(SchemeNumber::Ed25519) => return Ok(Scheme::Ed25519(policy)),
        Ok(SchemeNumber::MlDsa(p)) => Scheme::MlDsa(p),
        Ok(SchemeNumber::LeanSig(i)) => Scheme::LeanSig(i),
        Ok(SchemeNumber::LeanXmss(i)) => Scheme::LeanXmss(i),
        // An engine's configuration error keeps its status of old: InvalidConfig.
        Err(failure) => return Err(invalid(failure.message)),
    };
    // A policy is Ed25519's alone: any other scheme with one set is a configuration error.
    if config.policy != 0 {
        return Err(invalid(format!(
            "policy {} is an Ed25519 policy; {} takes none (leave policy 0)",
            config.policy,
            crate::scheme_name(number)
        )));
    }
    Ok(scheme)
}

fn engine_of(config: &LinesigConfig) -> Result<Engine, Failure> {
    let scheme = scheme_of(config)?;
    let key_cache = usize::try_from(config.key_cache_bytes).map_err(|_| {
        invalid(format!(
            "a key cache of {} bytes does not fit in memory",
            config.key_cache_bytes
        ))
    })?;
    let batch_equation = match config.batch_equation {
        0 | 1 => true,
        2 => false,
        other => {
            return Err(invalid(format!(
                "unknown batch_equation {other} (0 default, 1 on, 2 off)"
            )))
        }
    };
    let mut builder = Engine::builder()
        .scheme(scheme)
        .key_cache(key_cache)
        .batch_equation(batch_equation);
    if config.workers > 0 {
        builder = builder.workers(config.workers as usize);
    }
    if config.batch_size > 0 {
        builder = builder.batch_size(config.batch_size as usize);
    }
    builder = match config.backend {
        0 => builder,
        1 => builder.backend(Backend::Portable),
        2 => builder.backend(Backend::Avx2),
        3 => builder.backend(Backend::Avx512),
        other => {
            return Err(invalid(format!(
                "unknown backend number {other} (0 automatic, 1 portable, 2 avx2, 3 avx512)"
            )))
        }
    };
    builder.build().map_err(|e| {
        let status = match e {
            linesig::Error::UnsupportedBackend { .. } => LinesigStatus::UnsupportedBackend,
            linesig::Error::ThreadPool(_) => LinesigStatus::ThreadPool,
            _ => LinesigStatus::InvalidConfig,
        };
        Failure::new(status, e.to_string())
    })
}

/// Create an engine. On success `*out` owns it (free with `linesig_engine_free`); on
/// failure `*out` is set to null, the status says what kind of failure and
/// `linesig_last_error_message` why.
///
/// # Safety
/// `config` must point to a `LinesigConfig`; `out` to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_engine_new(
    config: *const LinesigConfig,
    out: *mut *mut LinesigEngine,
) -> c_int {
    guarded(|| {
        // SAFETY: the caller promises writable storage for a pointer.
        unsafe {
            hand_out(out, || {
                if config.is_null() {
                    return Err(null("config"));
                }
                // SAFETY: non-null, and the caller promises it points to a LinesigConfig.
                let engine = engine_of(&*config)?;
                Ok(LinesigEngine { engine })
            })
        }
    })
}

/// Free an engine (null is ignored).
///
/// # Safety
/// `engine` must be null or a pointer from `linesig_engine_new`, not yet freed, and not
/// in use by another thread.
#[no_mangle]
pub unsafe extern "C" fn linesig_engine_free(engine: *mut LinesigEngine) {
    // SAFETY: the caller's promise, as `free_box` needs it.
    unsafe { free_box(engine) }
}

/// The caller's arrays, read in place by the engine's workers.
struct ForeignItems<'a> {
    public_keys: &'a [LinesigBytes],
    messages: &'a [LinesigBytes],
    signatures: &'a [LinesigBytes],
    contexts: Option<&'a [LinesigBytes]>,
}

// SAFETY: the pointers are only read, during the call that borrows them, and the caller
// promises the bytes stay valid and unmodified until it returns.
unsafe impl Sync for ForeignItems<'_> {}

fn bytes(b: &LinesigBytes) -> &[u8] {
    // SAFETY: checked non-null with len > 0 before the engine runs (`linesig_verify`),
    // and the caller promises `len` readable bytes at `ptr`.
    unsafe { crate::slice(b.ptr, b.len) }
}

impl ItemSource for ForeignItems<'_> {
    fn len(&self) -> usize {
        self.public_keys.len()
    }
    fn item(&self, i: usize) -> Item<'_> {
        let item = Item::new(
            bytes(&self.public_keys[i]),
            bytes(&self.messages[i]),
            bytes(&self.signatures[i]),
        );
        match self.contexts {
            Some(c) => item.with_context(bytes(&c[i])),
            None => item,
        }
    }
}

/// Verify `count` items: item i is (`public_keys[i]`, `messages[i]`, `signatures[i]`,
/// and `contexts[i]` if `contexts` is not null). Writes `verdicts[i]`: 0 if valid, else
/// a reason code (see `linesig_reason_name`). Verdicts are in input order.
///
/// # Safety
/// `engine` from `linesig_engine_new`; each non-null array holds `count` entries, each
/// entry `len` readable bytes at `ptr`; `verdicts` has room for `count` bytes. Nothing
/// may change these bytes during the call.
#[no_mangle]
pub unsafe extern "C" fn linesig_verify(
    engine: *const LinesigEngine,
    count: usize,
    public_keys: *const LinesigBytes,
    messages: *const LinesigBytes,
    signatures: *const LinesigBytes,
    contexts: *const LinesigBytes,
    verdicts: *mut u8,
) -> c_int {
    guarded(|| {
        if engine.is_null() {
            return Err(null("engine"));
        }
        if count == 0 {
            return Ok(());
        }
        if verdicts.is_null() {
            return Err(null("verdicts"));
        }
        // SAFETY: `count` entries each (the caller's promise); nulls refused by the
        // helpers, `verdicts` above.
        let (engine, items, out) = unsafe {
            (
                &(*engine).engine,
                ForeignItems {
                    public_keys: byte_strings("public_keys", public_keys, count)?,
                    messages: byte_strings("messages", messages, count)?,
                    signatures: byte_strings("signatures", signatures, count)?,
                    contexts: if contexts.is_null() {
                        None
                    } else {
                        Some(byte_strings("contexts", contexts, count)?)
                    },
                },
                std::slice::from_raw_parts_mut(verdicts, count),
            )
        };
        let mut result = vec![Verdict::Invalid(Reject::EquationFailed); count];
        engine
            .verify_into(&items, &mut result)
            .map_err(|e| Failure::new(LinesigStatus::InternalError, e.to_string()))?;
        for (slot, verdict) in out.iter_mut().zip(&result) {
            *slot = verdict.reject().map_or(0, Reject::code);
        }
        Ok(())
    })
}

/// The backend an engine runs ("portable", "avx2", "avx512"), or "" for null.
///
/// # Safety
/// `engine` null or from `linesig_engine_new`.
#[no_mangle]
pub unsafe extern "C" fn linesig_engine_backend(engine: *const LinesigEngine) -> *const c_char {
    if engine.is_null() {
        return c"".as_ptr();
    }
    // SAFETY: non-null engine from linesig_engine_new.
    let backend = unsafe { &(*engine).engine }.backend();
    NAMES
        .backends
        .iter()
        .find(|(b, _)| *b == backend)
        .map_or(c"".as_ptr(), |(_, n)| n.as_ptr())
}
