//! The C ABI: everything a client in C, C++, Go, Nim or Zig needs of linesig.
//! - [`ed25519`]: a key's public half and deterministic signatures from a 32-byte seed;
//! - [`engine`]: create an engine from a plain config struct, verify a batch given as
//!   arrays of (pointer, length) fields into a caller-provided verdict array (one byte
//!   per item: 0 valid, else the reason code), free the engine;
//! - [`leansig`]: key generation over an activation interval, signing, preparation, the
//!   secret key saved to bytes and loaded back, aggregation and its verification;
//! - [`leanxmss`]: key generation over an epoch range, signing each epoch once, the
//!   secret key to and from bytes, and key files;
//! - [`mldsa`]: key generation from a seed and signing (deterministic or hedged, with a
//!   context).
//!
//! Rules every function keeps: no panic crosses the boundary (each body runs under
//! `catch_unwind` and reports `LINESIG_STATUS_INTERNAL_ERROR`); null or inconsistent
//! arguments are a status code; every status but `OK` leaves its reason, in linesig's
//! words, for `linesig_last_error_message` on the calling thread. The caller frees
//! exactly what a function hands it: an engine (`linesig_engine_free`), a leanSig key
//! (`linesig_leansig_key_free`) and a `LinesigBuffer` (`linesig_buffer_free`). Strings
//! returned are static, except the last error message (see its function).

pub mod ed25519;
pub mod engine;
pub mod key_file;
pub mod leansig;
pub mod leanxmss;
pub mod mldsa;

use linesig::leansig::Instance;
use linesig::mldsa::ParameterSet;
use linesig::{Backend, Reject};
use std::cell::RefCell;
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
    /// An engine configuration linesig refuses: an unknown scheme, policy or backend
    /// number, a policy for a scheme without policies, a key cache too small for one
    /// table, too many workers (`linesig_last_error_message` says which).
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
    /// A scheme number this function does not take (unknown, or another scheme's: an
    /// ML-DSA scheme given to a leanSig function).
    UnknownScheme = 7,
    /// A buffer of the wrong length (a seed that is not 32 bytes, a leanSig message that
    /// is not 32, an output that is not the scheme's size, a context over 255 bytes), or
    /// a count out of range (aggregation: 1 to 8,192 signatures).
    BadLength = 8,
    /// Bytes that are not a leanSig secret key of this scheme: foreign, truncated,
    /// altered, another version or another instance's.
    BadKey = 9,
    /// An epoch the key cannot sign: outside its activation interval or its prepared
    /// interval (`linesig_leansig_advance_preparation` moves it), or a key interval past
    /// the lifetime.
    EpochOutOfRange = 10,
    /// An epoch at or before one this key has signed: a leanSig key signs each epoch at
    /// most once, in increasing order.
    EpochUsed = 11,
    /// An item of the list is not what the call needs: a signature that does not verify
    /// (aggregation refuses to prove it) or a signer whose key, message or epoch does
    /// not decode. Its index is in `*failed_index`.
    InvalidItem = 12,
    /// The aggregate proof does not hold for the listed signers: other keys, messages,
    /// epochs or order than it was made for, or an altered proof.
    ProofRejected = 13,
    /// Bytes that are not an aggregate proof in linesig's format.
    MalformedProof = 14,
    /// Signing gave up (ML-DSA's rejection sampling, leanSig's search for an encoding):
    /// retry with other randomness or, for leanSig, another message.
    SigningFailed = 15,
    /// This build has no aggregation (linesig-ffi without its `aggregate` feature).
    AggregationNotBuilt = 16,
    /// A key file that cannot be read, locked, created or written (the path and the
    /// operating system's reason are in `linesig_last_error_message`), or one that exists
    /// where a new key file was asked for.
    IoError = 17,
}

impl LinesigStatus {
    fn message(self) -> &'static std::ffi::CStr {
        match self {
            LinesigStatus::Ok => c"ok",
            LinesigStatus::NullPointer => c"null pointer argument",
            LinesigStatus::InvalidConfig => c"invalid configuration",
            LinesigStatus::UnsupportedBackend => c"backend not supported on this CPU",
            LinesigStatus::ThreadPool => c"could not start worker threads",
            LinesigStatus::InternalError => c"internal error",
            LinesigStatus::NotBuilt => c"not built in this version",
            LinesigStatus::UnknownScheme => c"unknown scheme for this function",
            LinesigStatus::BadLength => c"wrong length",
            LinesigStatus::BadKey => c"not a secret key of this scheme",
            LinesigStatus::EpochOutOfRange => c"epoch out of range",
            LinesigStatus::EpochUsed => c"epoch already signed",
            LinesigStatus::InvalidItem => c"an item does not verify or decode",
            LinesigStatus::ProofRejected => c"aggregate proof rejected",
            LinesigStatus::MalformedProof => c"malformed aggregate proof",
            LinesigStatus::SigningFailed => c"signing failed; retry",
            LinesigStatus::AggregationNotBuilt => c"aggregation not built",
            LinesigStatus::IoError => c"key file error",
        }
    }

    const ALL: [LinesigStatus; 17] = [
        LinesigStatus::Ok,
        LinesigStatus::NullPointer,
        LinesigStatus::InvalidConfig,
        LinesigStatus::UnsupportedBackend,
        LinesigStatus::ThreadPool,
        LinesigStatus::InternalError,
        LinesigStatus::NotBuilt,
        LinesigStatus::UnknownScheme,
        LinesigStatus::BadLength,
        LinesigStatus::BadKey,
        LinesigStatus::EpochOutOfRange,
        LinesigStatus::EpochUsed,
        LinesigStatus::InvalidItem,
        LinesigStatus::ProofRejected,
        LinesigStatus::MalformedProof,
        LinesigStatus::SigningFailed,
        LinesigStatus::AggregationNotBuilt,
    ];
}

/// Which scheme an engine verifies, or a key-generation or signing call takes.
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
    /// leanXMSS, the lean devnets' BLAKE2s XMSS (cryptography-specs `Xmss`): 32-byte
    /// keys, 1,208-byte signatures; epoch context.
    Leanxmss = 8,
}

/// One byte string: `len` bytes at `ptr` (`ptr` may be null when `len` is 0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct LinesigBytes {
    pub ptr: *const u8,
    pub len: usize,
}

/// Bytes linesig allocated for the caller (a secret key, a proof): free them with
/// `linesig_buffer_free`. Zeroed (null, 0) when a call fails.
#[repr(C)]
#[derive(Debug)]
pub struct LinesigBuffer {
    pub ptr: *mut u8,
    pub len: usize,
}

impl LinesigBuffer {
    const EMPTY: LinesigBuffer = LinesigBuffer {
        ptr: std::ptr::null_mut(),
        len: 0,
    };

    fn from_vec(bytes: Vec<u8>) -> LinesigBuffer {
        let bytes = Box::leak(bytes.into_boxed_slice());
        LinesigBuffer {
            ptr: bytes.as_mut_ptr(),
            len: bytes.len(),
        }
    }
}

/// Free a buffer linesig handed out and zero it (null, or an already zeroed buffer, is
/// ignored).
///
/// # Safety
/// `buffer` null or pointing to a `LinesigBuffer` a linesig call filled, not freed since.
#[no_mangle]
pub unsafe extern "C" fn linesig_buffer_free(buffer: *mut LinesigBuffer) {
    if buffer.is_null() {
        return;
    }
    // SAFETY: non-null, and the caller promises it holds what `from_vec` made.
    let buffer = unsafe { &mut *buffer };
    if !buffer.ptr.is_null() {
        // SAFETY: ptr and len are a leaked boxed slice's (`LinesigBuffer::from_vec`).
        unsafe { free_box(std::ptr::slice_from_raw_parts_mut(buffer.ptr, buffer.len)) };
    }
    *buffer = LinesigBuffer::EMPTY;
}

/// Drop what `Box::into_raw` made (null is ignored), a panic in a destructor caught:
/// the free functions' one body.
///
/// # Safety
/// `ptr` null or from `Box::into_raw`, not freed since, used by no other thread.
pub(crate) unsafe fn free_box<T: ?Sized>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: the caller hands back ownership of a pointer made by Box::into_raw.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(ptr) })));
    }
}

/// A failed call: its status and the reason, for `linesig_last_error_message`.
pub(crate) struct Failure {
    status: LinesigStatus,
    message: String,
}

impl Failure {
    pub(crate) fn new(status: LinesigStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }
}

pub(crate) type Outcome = Result<(), Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// Run `body`: its status, its reason kept for `linesig_last_error_message`, and a panic
/// turned into `InternalError`.
pub(crate) fn guarded(body: impl FnOnce() -> Outcome) -> c_int {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            set_last_error("");
            return LinesigStatus::Ok as c_int;
        }
        Ok(Err(failure)) => failure,
        Err(_) => Failure::new(
            LinesigStatus::InternalError,
            "internal error: a bug in linesig (a panic, caught); please report it",
        ),
    };
    set_last_error(&failure.message);
    failure.status as c_int
}

/// Box what `make` returns into `*out`, which the caller then owns and frees; `*out` is
/// null first, and stays null unless `make` succeeds (a caller that ignores the status
/// never holds a stale pointer).
///
/// # Safety
/// `out` null or writable storage for a pointer.
pub(crate) unsafe fn hand_out<T>(
    out: *mut *mut T,
    make: impl FnOnce() -> Result<T, Failure>,
) -> Outcome {
    if out.is_null() {
        return Err(null("out"));
    }
    // SAFETY: non-null, writable (the caller's promise).
    let out = unsafe { &mut *out };
    *out = std::ptr::null_mut();
    *out = Box::into_raw(Box::new(make()?));
    Ok(())
}

/// Write `value` to the caller's `*ptr` (the argument `name`; null is an error).
///
/// # Safety
/// `ptr` null or writable storage for a `T`.
pub(crate) unsafe fn write_out<T>(name: &str, ptr: *mut T, value: T) -> Outcome {
    if ptr.is_null() {
        return Err(null(name));
    }
    // SAFETY: non-null, writable (the caller's promise).
    unsafe { *ptr = value };
    Ok(())
}

/// A null-pointer failure naming the argument.
pub(crate) fn null(argument: &str) -> Failure {
    Failure::new(
        LinesigStatus::NullPointer,
        format!("{argument} is a null pointer"),
    )
}

/// `len` bytes at `ptr` (none when `len` is 0, whatever `ptr` is).
///
/// # Safety
/// `ptr` non-null when `len > 0` (checked by callers) and `len` readable bytes there.
pub(crate) unsafe fn slice<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 {
        &[]
    } else {
        // SAFETY: the caller's promise.
        unsafe { std::slice::from_raw_parts(ptr, len) }
    }
}

/// The input `len` bytes at `ptr`, refusing a null pointer with bytes to read.
///
/// # Safety
/// As [`slice`].
pub(crate) unsafe fn input<'a>(
    name: &str,
    ptr: *const u8,
    len: usize,
) -> Result<&'a [u8], Failure> {
    if ptr.is_null() && len > 0 {
        return Err(null(name));
    }
    // SAFETY: the caller's promise, the null case refused above.
    Ok(unsafe { slice(ptr, len) })
}

/// The caller's array of `count` entries at `ptr`, refusing a null pointer with entries
/// to read (none to read: an empty slice, whatever `ptr` is).
///
/// # Safety
/// `ptr` null or `count` readable entries.
pub(crate) unsafe fn array<'a, T>(
    name: &str,
    ptr: *const T,
    count: usize,
) -> Result<&'a [T], Failure> {
    if count == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null(name));
    }
    // SAFETY: non-null, `count` entries (the caller's promise).
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// As [`array`], for byte strings: an entry with a null pointer and bytes to read is
/// refused too, naming its index.
///
/// # Safety
/// As [`array`], and each entry `len` readable bytes at its `ptr`.
pub(crate) unsafe fn byte_strings<'a>(
    name: &str,
    ptr: *const LinesigBytes,
    count: usize,
) -> Result<&'a [LinesigBytes], Failure> {
    // SAFETY: the caller's promise.
    let list = unsafe { array(name, ptr, count) }?;
    match list.iter().position(|b| b.ptr.is_null() && b.len > 0) {
        Some(i) => Err(Failure::new(
            LinesigStatus::NullPointer,
            format!("{name}[{i}] has a null pointer and length {}", list[i].len),
        )),
        None => Ok(list),
    }
}

/// The output `len` bytes at `ptr`, which must be exactly `expected` long.
///
/// # Safety
/// `ptr` null or `len` writable bytes.
pub(crate) unsafe fn output<'a>(
    name: &str,
    ptr: *mut u8,
    len: usize,
    expected: usize,
) -> Result<&'a mut [u8], Failure> {
    if ptr.is_null() {
        return Err(null(name));
    }
    if len != expected {
        return Err(Failure::new(
            LinesigStatus::BadLength,
            format!("{name} is {len} bytes; the scheme's is {expected}"),
        ));
    }
    // SAFETY: non-null, `len` writable bytes (the caller's promise).
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// A 32-byte array argument (a seed, randomness, a leanSig message).
///
/// # Safety
/// As [`input`].
pub(crate) unsafe fn array32(name: &str, ptr: *const u8, len: usize) -> Result<[u8; 32], Failure> {
    // SAFETY: the caller's promise.
    let bytes = unsafe { input(name, ptr, len) }?;
    bytes.try_into().map_err(|_| {
        Failure::new(
            LinesigStatus::BadLength,
            format!("{name} is {len} bytes; it must be 32"),
        )
    })
}

/// What a scheme number names, for the functions that take one.
pub(crate) enum SchemeNumber {
    Ed25519,
    MlDsa(ParameterSet),
    LeanSig(Instance),
    LeanXmss(linesig::leanxmss::Instance),
}

pub(crate) fn scheme_number(scheme: u32) -> Result<SchemeNumber, Failure> {
    Ok(match scheme {
        1 => SchemeNumber::Ed25519,
        2 => SchemeNumber::MlDsa(ParameterSet::MlDsa44),
        3 => SchemeNumber::MlDsa(ParameterSet::MlDsa65),
        4 => SchemeNumber::MlDsa(ParameterSet::MlDsa87),
        5 => SchemeNumber::LeanSig(Instance::Devnet4),
        6 => SchemeNumber::LeanSig(Instance::L18),
        7 => SchemeNumber::LeanSig(Instance::L32),
        8 => SchemeNumber::LeanXmss(linesig::leanxmss::Instance::Spec),
        other => {
            return Err(Failure::new(
                LinesigStatus::UnknownScheme,
                format!("unknown scheme number {other} (1 ed25519, 2–4 mldsa44/65/87, 5–7 leansig-devnet4/l18/l32, 8 leanxmss)"),
            ))
        }
    })
}

fn scheme_name(scheme: u32) -> &'static str {
    match scheme_number(scheme) {
        Ok(SchemeNumber::Ed25519) => "ed25519",
        Ok(SchemeNumber::MlDsa(p)) => p.name(),
        Ok(SchemeNumber::LeanSig(i)) => i.name(),
        Ok(SchemeNumber::LeanXmss(i)) => i.name(),
        Err(_) => "unknown",
    }
}

/// The size in bytes of a scheme's public key (0 for an unknown scheme).
#[no_mangle]
pub extern "C" fn linesig_public_key_len(scheme: u32) -> usize {
    match scheme_number(scheme) {
        Ok(SchemeNumber::Ed25519) => linesig::wire::KEY_LEN,
        Ok(SchemeNumber::MlDsa(p)) => p.public_key_len(),
        Ok(SchemeNumber::LeanSig(i)) => i.public_key_len(),
        Ok(SchemeNumber::LeanXmss(_)) => linesig::leanxmss::PUBLIC_KEY_BYTES,
        Err(_) => 0,
    }
}

/// The size in bytes of a scheme's signature (0 for an unknown scheme).
#[no_mangle]
pub extern "C" fn linesig_signature_len(scheme: u32) -> usize {
    match scheme_number(scheme) {
        Ok(SchemeNumber::Ed25519) => linesig::wire::SIGNATURE_LEN,
        Ok(SchemeNumber::MlDsa(p)) => p.signature_len(),
        Ok(SchemeNumber::LeanSig(i)) => i.signature_len(),
        Ok(SchemeNumber::LeanXmss(_)) => linesig::leanxmss::SIGNATURE_BYTES,
        Err(_) => 0,
    }
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
    schemes: Vec<(u32, CString)>,
}

static NAMES: LazyLock<Names> = LazyLock::new(|| {
    let c = |s: &str| CString::new(s).expect("names have no NUL");
    Names {
        reasons: Reject::ALL
            .iter()
            .map(|r| (r.code(), c(r.as_str())))
            .collect(),
        backends: Backend::ALL.iter().map(|b| (*b, c(b.name()))).collect(),
        schemes: (1..=8).map(|s| (s, c(scheme_name(s)))).collect(),
    }
});

/// The name of a scheme number ("ed25519", "mldsa65", "leansig-devnet4", …), or
/// "unknown".
#[no_mangle]
pub extern "C" fn linesig_scheme_name(scheme: u32) -> *const c_char {
    NAMES
        .schemes
        .iter()
        .find(|(s, _)| *s == scheme)
        .map_or(c"unknown".as_ptr(), |(_, n)| n.as_ptr())
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

/// A short description of a status code (static). For why a particular call failed,
/// `linesig_last_error_message`.
#[no_mangle]
pub extern "C" fn linesig_status_message(status: c_int) -> *const c_char {
    LinesigStatus::ALL
        .iter()
        .find(|s| **s as c_int == status)
        .map_or(c"unknown status", |s| s.message())
        .as_ptr()
}

/// Why the last linesig call on this thread failed, in linesig's words (e.g. "a key
/// cache of 1000 bytes holds no key table: …"); "" after a call that succeeded. The
/// string stays valid until the next linesig call on this thread: copy it to keep it.
#[no_mangle]
pub extern "C" fn linesig_last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn text(p: *const c_char) -> &'static str {
        // SAFETY: the functions tested return static NUL-terminated strings.
        unsafe { CStr::from_ptr(p) }.to_str().unwrap()
    }

    /// The C names must be the library's names for every code, in both directions.
    #[test]
    fn reason_names_match_the_library() {
        for reason in Reject::ALL {
            assert_eq!(text(linesig_reason_name(reason.code())), reason.as_str());
        }
        assert_eq!(text(linesig_reason_name(0)), "valid");
        assert_eq!(text(linesig_reason_name(200)), "unknown");
    }

    #[test]
    fn every_status_has_its_own_message() {
        let mut seen = std::collections::HashSet::new();
        for (i, status) in LinesigStatus::ALL.iter().enumerate() {
            assert_eq!(*status as usize, i, "ALL lists the statuses in order");
            assert!(seen.insert(text(linesig_status_message(*status as c_int))));
        }
        assert_eq!(text(linesig_status_message(99)), "unknown status");
    }

    #[test]
    fn scheme_names_and_sizes() {
        assert_eq!(text(linesig_scheme_name(3)), "mldsa65");
        assert_eq!(text(linesig_scheme_name(5)), "leansig-devnet4");
        assert_eq!(text(linesig_scheme_name(0)), "unknown");
        assert_eq!(linesig_public_key_len(5), 52);
        assert_eq!(linesig_signature_len(6), 2332);
        assert_eq!(linesig_signature_len(2), 2420);
        assert_eq!(linesig_public_key_len(42), 0);
    }
}
