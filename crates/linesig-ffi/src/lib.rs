//! The C ABI: create an engine from a plain config struct, verify a batch given as
//! arrays of (pointer, length) fields into a caller-provided verdict array (one byte per
//! item: 0 valid, else the reason code), free the engine.
//!
//! Rules every function keeps: no panic crosses the boundary (each body runs under
//! `catch_unwind` and reports `LINESIG_STATUS_INTERNAL_ERROR`), null or inconsistent
//! arguments are a status code, and nothing is allocated for the caller to free except
//! the engine, through `linesig_engine_free`. Strings returned are static.

use linesig::leansig::Instance;
use linesig::mldsa::ParameterSet;
use linesig::{Backend, Engine, Item, ItemSource, Policy, Reject, Scheme, Verdict};
use std::ffi::{c_char, c_int, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::LazyLock;

/// Status of a call. 0 is success.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinesigStatus {
    Ok = 0,
    /// A required pointer was null, or a field had a null pointer and a non-zero length.
    NullPointer = 1,
    /// An unknown scheme, policy or backend number, or a policy given for a scheme
    /// without policies.
    InvalidConfig = 2,
    /// The requested backend cannot run on this CPU.
    UnsupportedBackend = 3,
    /// The worker threads could not be started.
    ThreadPool = 4,
    /// A bug in linesig (a caught panic); the call had no effect on the caller's data.
    InternalError = 5,
    /// The configuration asks for a feature this build does not have. (Reserved: no
    /// setting returns it today; the hot-key cache, which once did, is built.)
    NotBuilt = 6,
}

/// Which scheme an engine verifies.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinesigScheme {
    Ed25519 = 1,
    Mldsa44 = 2,
    Mldsa65 = 3,
    Mldsa87 = 4,
    /// leanSig devnet-4 (Poseidon1, lifetime 2^32). Each item's context is its epoch:
    /// four bytes, u32 little-endian.
    LeansigDevnet4 = 5,
    /// leanSig legacy, lifetime 2^18 (Poseidon2; what nim-leansig wraps); epoch context.
    LeansigL18 = 6,
    /// leanSig legacy, lifetime 2^32 (Poseidon2); epoch context.
    LeansigL32 = 7,
}

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
    /// Backend: 0 = automatic, 1 = reference, 2 = avx2, 3 = ifma (for ML-DSA: libcrux,
    /// linesig's verifier on AVX2, on AVX-512).
    pub backend: u32,
    /// Bytes for the hot-key cache (Ed25519 keys' fixed-base tables, ML-DSA expanded
    /// keys); 0 = off. A value too small for one table (Ed25519: about 105 KB, 210 KB on
    /// avx2; ML-DSA-44/65/87: about 21/38/68 KB) is `InvalidConfig`.
    pub key_cache_bytes: u64,
}

/// One byte string: `len` bytes at `ptr` (`ptr` may be null when `len` is 0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LinesigBytes {
    pub ptr: *const u8,
    pub len: usize,
}

/// An engine: worker pool and configuration. Opaque to C.
pub struct LinesigEngine {
    engine: Engine,
}

/// Run `body`, turning a panic into `InternalError`.
fn guarded(body: impl FnOnce() -> LinesigStatus) -> c_int {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(LinesigStatus::InternalError) as c_int
}

fn scheme_of(config: &LinesigConfig) -> Result<Scheme, LinesigStatus> {
    let policy = match config.policy {
        0 => Policy::Strict,
        1 => Policy::Zip215,
        2 => Policy::Zip215Strict,
        _ => return Err(LinesigStatus::InvalidConfig),
    };
    // A policy is Ed25519's alone: any other scheme with one set is a configuration error.
    let without_policy = |scheme| {
        if config.policy == 0 {
            Ok(scheme)
        } else {
            Err(LinesigStatus::InvalidConfig)
        }
    };
    match config.scheme {
        0 | 1 => Ok(Scheme::Ed25519(policy)),
        2 => without_policy(Scheme::MlDsa(ParameterSet::MlDsa44)),
        3 => without_policy(Scheme::MlDsa(ParameterSet::MlDsa65)),
        4 => without_policy(Scheme::MlDsa(ParameterSet::MlDsa87)),
        5 => without_policy(Scheme::LeanSig(Instance::Devnet4)),
        6 => without_policy(Scheme::LeanSig(Instance::L18)),
        7 => without_policy(Scheme::LeanSig(Instance::L32)),
        _ => Err(LinesigStatus::InvalidConfig),
    }
}

/// Create an engine. On success `*out` owns it (free with `linesig_engine_free`); on
/// failure `*out` is set to null and the status says why.
///
/// # Safety
/// `config` must point to a `LinesigConfig`; `out` to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn linesig_engine_new(
    config: *const LinesigConfig,
    out: *mut *mut LinesigEngine,
) -> c_int {
    guarded(|| {
        if config.is_null() || out.is_null() {
            return LinesigStatus::NullPointer;
        }
        // SAFETY: non-null, and the caller promises they point to valid storage.
        let (config, out) = unsafe { (*config, &mut *out) };
        *out = std::ptr::null_mut();
        let scheme = match scheme_of(&config) {
            Ok(s) => s,
            Err(status) => return status,
        };
        let Ok(key_cache) = usize::try_from(config.key_cache_bytes) else {
            return LinesigStatus::InvalidConfig;
        };
        let mut builder = Engine::builder().scheme(scheme).key_cache(key_cache);
        if config.workers > 0 {
            builder = builder.workers(config.workers as usize);
        }
        if config.batch_size > 0 {
            builder = builder.batch_size(config.batch_size as usize);
        }
        builder = match config.backend {
            0 => builder,
            1 => builder.backend(Backend::Reference),
            2 => builder.backend(Backend::Avx2),
            3 => builder.backend(Backend::Ifma),
            _ => return LinesigStatus::InvalidConfig,
        };
        match builder.build() {
            Ok(engine) => {
                *out = Box::into_raw(Box::new(LinesigEngine { engine }));
                LinesigStatus::Ok
            }
            Err(linesig::Error::UnsupportedBackend { .. }) => LinesigStatus::UnsupportedBackend,
            Err(linesig::Error::ThreadPool(_)) => LinesigStatus::ThreadPool,
            Err(_) => LinesigStatus::InvalidConfig,
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
    if !engine.is_null() {
        // SAFETY: the caller hands back ownership of a pointer made by Box::into_raw.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(engine) })));
    }
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
    if b.len == 0 {
        &[]
    } else {
        // SAFETY: checked non-null with len > 0 before the engine runs (`verify`), and
        // the caller promises `len` readable bytes at `ptr`.
        unsafe { std::slice::from_raw_parts(b.ptr, b.len) }
    }
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
        if engine.is_null()
            || (count > 0
                && (public_keys.is_null()
                    || messages.is_null()
                    || signatures.is_null()
                    || verdicts.is_null()))
        {
            return LinesigStatus::NullPointer;
        }
        if count == 0 {
            return LinesigStatus::Ok;
        }
        // SAFETY: non-null, `count` entries each (the caller's promise).
        let (engine, items, out) = unsafe {
            (
                &(*engine).engine,
                ForeignItems {
                    public_keys: std::slice::from_raw_parts(public_keys, count),
                    messages: std::slice::from_raw_parts(messages, count),
                    signatures: std::slice::from_raw_parts(signatures, count),
                    contexts: (!contexts.is_null())
                        .then(|| std::slice::from_raw_parts(contexts, count)),
                },
                std::slice::from_raw_parts_mut(verdicts, count),
            )
        };
        let fields = [
            Some(items.public_keys),
            Some(items.messages),
            Some(items.signatures),
            items.contexts,
        ];
        if fields
            .iter()
            .flatten()
            .flat_map(|f| f.iter())
            .any(|b| b.ptr.is_null() && b.len > 0)
        {
            return LinesigStatus::NullPointer;
        }
        let mut result = vec![Verdict::Invalid(Reject::EquationFailed); count];
        if engine.verify_into(&items, &mut result).is_err() {
            return LinesigStatus::InternalError;
        }
        for (slot, verdict) in out.iter_mut().zip(&result) {
            *slot = verdict.reject().map_or(0, Reject::code);
        }
        LinesigStatus::Ok
    })
}

/// The library version, e.g. "0.1.0".
#[no_mangle]
pub extern "C" fn linesig_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// NUL-terminated copies of the library's own names (made once, kept for the process),
/// so C sees exactly `Reject::as_str` and `Backend::name`.
struct Names {
    reasons: Vec<(u8, CString)>,
    backends: Vec<(Backend, CString)>,
}

static NAMES: LazyLock<Names> = LazyLock::new(|| {
    let c = |s: &str| CString::new(s).expect("names have no NUL");
    Names {
        reasons: Reject::ALL
            .iter()
            .map(|r| (r.code(), c(r.as_str())))
            .collect(),
        backends: Backend::ALL.iter().map(|b| (*b, c(b.name()))).collect(),
    }
});

/// The Ed25519 backend an engine runs ("reference", "avx2", "ifma"), or "" for null.
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

/// The name of a verdict code: "valid" for 0, "bad_length", "equation_failed", …, or
/// "unknown".
#[no_mangle]
pub extern "C" fn linesig_reason_name(code: u8) -> *const c_char {
    if code == 0 {
        return c"valid".as_ptr();
    }
    NAMES
        .reasons
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(c"unknown".as_ptr(), |(_, n)| n.as_ptr())
}

/// A short description of a status code.
#[no_mangle]
pub extern "C" fn linesig_status_message(status: c_int) -> *const c_char {
    match status {
        0 => c"ok".as_ptr(),
        1 => c"null pointer argument".as_ptr(),
        2 => c"invalid configuration".as_ptr(),
        3 => c"backend not supported on this CPU".as_ptr(),
        4 => c"could not start worker threads".as_ptr(),
        5 => c"internal error".as_ptr(),
        6 => c"not built in this version".as_ptr(),
        _ => c"unknown status".as_ptr(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C names must be the library's names for every code, in both directions.
    #[test]
    fn reason_names_match_the_library() {
        for reason in Reject::ALL {
            // SAFETY: static NUL-terminated strings.
            let name = unsafe { std::ffi::CStr::from_ptr(linesig_reason_name(reason.code())) };
            assert_eq!(name.to_str().unwrap(), reason.as_str());
        }
        // SAFETY: as above.
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(linesig_reason_name(0)) }
                .to_str()
                .unwrap(),
            "valid"
        );
        assert_eq!(
            unsafe { std::ffi::CStr::from_ptr(linesig_reason_name(200)) }
                .to_str()
                .unwrap(),
            "unknown"
        );
    }
}
