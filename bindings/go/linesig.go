// Package linesig verifies batches of signatures on all cores through linesig's C ABI:
// one verdict per item, bit-exact with the chain's reference (Ed25519 policies for
// Solana today, SIMD-0376 and ZIP-215; ML-DSA-44/65/87; leanSig; leanXMSS), either a slice at a
// time (Engine.Verify) or in the batch-verifier shape Go validators call (BatchVerifier:
// Add, then Verify() (bool, []bool)), and makes ML-DSA keys and signatures (MLDSAKeyGen,
// MLDSASign) and leanXMSS keys that sign each epoch once (LeanXMSSKeyGen). A failed call returns an *Error with the C ABI's status and linesig's
// reason.
//
// Build the static library first (from the repository root):
//
//	cargo build --release -p linesig-ffi
package linesig

/*
#cgo CFLAGS: -I${SRCDIR}/../../crates/linesig-ffi/include
#cgo LDFLAGS: ${SRCDIR}/../../target/release/liblinesig_ffi.a -lpthread -ldl -lm
#include "linesig.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// Scheme is the signature scheme an engine verifies.
type Scheme uint32

const (
	Ed25519 Scheme = C.LINESIG_SCHEME_ED25519
	MLDSA44 Scheme = C.LINESIG_SCHEME_MLDSA44
	MLDSA65 Scheme = C.LINESIG_SCHEME_MLDSA65
	MLDSA87 Scheme = C.LINESIG_SCHEME_MLDSA87
	// leanSig: each Item's Context is its epoch, four bytes little-endian.
	LeanSigDevnet4 Scheme = C.LINESIG_SCHEME_LEANSIG_DEVNET4
	LeanSigL18     Scheme = C.LINESIG_SCHEME_LEANSIG_L18
	LeanSigL32     Scheme = C.LINESIG_SCHEME_LEANSIG_L32
	// LeanXMSS is the lean devnets' BLAKE2s XMSS; Context is the epoch as for leanSig.
	LeanXMSS Scheme = C.LINESIG_SCHEME_LEANXMSS
)

// Policy is an Ed25519 acceptance rule.
type Policy uint32

const (
	// Strict is Solana mainnet today (ed25519-dalek verify_strict).
	Strict Policy = 0
	// Zip215 is Zcash and Cosmos (ed25519-zebra, ed25519-consensus).
	Zip215 Policy = 1
	// Zip215Strict is Solana SIMD-0376.
	Zip215Strict Policy = 2
)

// Config configures an engine; the zero value is Ed25519, Strict, all cores, batch 512.
type Config struct {
	Scheme    Scheme
	Policy    Policy
	Workers   int // 0: all cores
	BatchSize int // 0: 512
	// KeyCacheBytes is the memory for the cache of hot keys: Ed25519 fixed-base tables,
	// ML-DSA expanded keys (0: off). A value too small for one table (Ed25519 about
	// 105 KB, ML-DSA-44 about 21 KB) is an error.
	KeyCacheBytes uint64
	// BatchEquation is the zip215 / zip215-strict batch equation (zero value: on).
	// Verdicts are the same either way; off, each is a deterministic function of its item.
	BatchEquation BatchEquation
}

// BatchEquation says whether the cofactored Ed25519 policies check each work unit with
// one randomized batch equation before any signature alone.
type BatchEquation uint32

const (
	// BatchEquationDefault is on.
	BatchEquationDefault BatchEquation = 0
	BatchEquationOn      BatchEquation = 1
	// BatchEquationOff verifies each signature alone, with no randomness.
	BatchEquationOff BatchEquation = 2
)

// Item is one signature to verify. Context is for ML-DSA (at most 255 bytes); it must be
// empty for Ed25519.
type Item struct {
	PublicKey []byte
	Message   []byte
	Signature []byte
	Context   []byte
}

// Engine is a verifier with its own worker pool. Safe for concurrent use; Close it when
// done (a finalizer frees it otherwise).
type Engine struct {
	ptr    *C.LinesigEngine
	scheme Scheme
}

// Error is a failed call: Status is the C ABI's code (LINESIG_STATUS_*), Kind its
// short description and Reason linesig's account of this failure ("unknown scheme
// number 99 (…)", "a key cache of 1000 bytes holds no key table: …").
type Error struct {
	Status int
	Kind   string
	Reason string
}

func (e *Error) Error() string {
	if e.Reason == "" {
		return "linesig: " + e.Kind
	}
	return fmt.Sprintf("linesig: %s: %s", e.Kind, e.Reason)
}

// call runs a C ABI call and, if it fails, reads its reason on the same OS thread (the
// C ABI keeps the last reason per thread; a goroutine may move between calls).
func call(f func() C.int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	status := f()
	if status == C.LINESIG_STATUS_OK {
		return nil
	}
	return &Error{
		Status: int(status),
		Kind:   C.GoString(C.linesig_status_message(status)),
		Reason: C.GoString(C.linesig_last_error_message()),
	}
}

// NewEngine creates an engine.
func NewEngine(cfg Config) (*Engine, error) {
	// Range-checked before narrowing to the C ABI's uint32: 1<<32 + 3 must not become 3.
	for _, field := range []struct {
		name  string
		value int
	}{{"Workers", cfg.Workers}, {"BatchSize", cfg.BatchSize}} {
		if field.value < 0 || uint64(field.value) > math.MaxUint32 {
			return nil, &Error{
				Status: int(C.LINESIG_STATUS_INVALID_CONFIG),
				Kind:   C.GoString(C.linesig_status_message(C.LINESIG_STATUS_INVALID_CONFIG)),
				Reason: fmt.Sprintf("%s is %d: 0 (the default) or a positive count that fits 32 bits", field.name, field.value),
			}
		}
	}
	c := C.LinesigConfig{
		scheme:          C.uint32_t(cfg.Scheme),
		policy:          C.uint32_t(cfg.Policy),
		workers:         C.uint32_t(cfg.Workers),
		batch_size:      C.uint32_t(cfg.BatchSize),
		key_cache_bytes: C.uint64_t(cfg.KeyCacheBytes),
		batch_equation:  C.uint32_t(cfg.BatchEquation),
	}
	var ptr *C.LinesigEngine
	if err := call(func() C.int { return C.linesig_engine_new(&c, &ptr) }); err != nil {
		return nil, err
	}
	scheme := cfg.Scheme
	if scheme == 0 { // the C ABI's default
		scheme = Ed25519
	}
	e := &Engine{ptr: ptr, scheme: scheme}
	runtime.SetFinalizer(e, (*Engine).Close)
	return e, nil
}

// Close frees the engine; later calls fail.
func (e *Engine) Close() {
	if e.ptr != nil {
		C.linesig_engine_free(e.ptr)
		e.ptr = nil
	}
}

// Backend names the Ed25519 backend in use ("portable", "avx2", "avx512").
func (e *Engine) Backend() string {
	return C.GoString(C.linesig_engine_backend(e.ptr))
}

// Verify returns one verdict per item, in order: true for valid.
func (e *Engine) Verify(items []Item) ([]bool, error) {
	codes, err := e.VerifyReasons(items)
	_, valid := validity(codes)
	return valid, err
}

// validity turns verdict codes into one bool per item (code 0 is valid), and says
// whether all are.
func validity(codes []uint8) (all bool, valid []bool) {
	all = true
	valid = make([]bool, len(codes))
	for i, c := range codes {
		valid[i] = c == 0
		all = all && valid[i]
	}
	return all, valid
}

// VerifyReasons returns one code per item: 0 for valid, else the reason (see Reason).
func (e *Engine) VerifyReasons(items []Item) ([]uint8, error) {
	if e.ptr == nil {
		return nil, errors.New("linesig: engine is closed")
	}
	n := len(items)
	if n == 0 {
		return []uint8{}, nil
	}
	// The field descriptors point into Go memory, so they live in C memory (cgo forbids
	// Go memory that holds Go pointers); the bytes they point to are pinned for the call.
	fields, err := newFieldTable(n)
	if err != nil {
		return nil, err
	}
	defer fields.free()
	var pinner runtime.Pinner
	defer pinner.Unpin()
	describe := func(b []byte) C.LinesigBytes {
		if len(b) > 0 {
			pinner.Pin(&b[0])
		}
		return view(b)
	}
	for i, it := range items {
		fields.set(i, describe(it.PublicKey), describe(it.Message), describe(it.Signature), describe(it.Context))
	}
	return e.verifyFields(fields)
}

// fieldTable is linesig_verify's four arrays of byte-string descriptors (keys, messages,
// signatures, contexts), n entries each, back to back in one C allocation.
type fieldTable struct {
	n      int
	fields []C.LinesigBytes
}

// newFieldTable allocates the table zeroed. Zeroed, not merely allocated: set stores Go
// pointers into it, and while the collector marks, Go's write barrier reads every slot's
// old pointer and looks it up in the heap; a reused malloc block still holds an earlier
// call's pointers, into memory the collector may since have freed, and the runtime
// stops with "found bad pointer in Go heap" (TestVerifyWhileCollecting).
func newFieldTable(n int) (fieldTable, error) {
	p := C.calloc(C.size_t(4*n), C.size_t(unsafe.Sizeof(C.LinesigBytes{})))
	if p == nil {
		return fieldTable{}, fmt.Errorf("linesig: no memory for the descriptors of %d items", n)
	}
	return fieldTable{n: n, fields: unsafe.Slice((*C.LinesigBytes)(p), 4*n)}, nil
}

func (t fieldTable) set(i int, key, message, signature, context C.LinesigBytes) {
	t.fields[i], t.fields[t.n+i], t.fields[2*t.n+i], t.fields[3*t.n+i] = key, message, signature, context
}

func (t fieldTable) free() { C.free(unsafe.Pointer(&t.fields[0])) }

// verifyFields runs linesig_verify over a table of n ≥ 1 items whose bytes stay put for
// the call (pinned Go memory or C memory).
func (e *Engine) verifyFields(t fieldTable) ([]uint8, error) {
	n := t.n
	// verdicts holds no Go pointers, so cgo lets the call write it directly.
	verdicts := make([]uint8, n)
	f := t.fields
	err := call(func() C.int {
		return C.linesig_verify(e.ptr, C.size_t(n), &f[0], &f[n], &f[2*n], &f[3*n],
			(*C.uint8_t)(unsafe.Pointer(&verdicts[0])))
	})
	runtime.KeepAlive(e)
	if err != nil {
		return nil, err
	}
	return verdicts, nil
}

// Reason names a verdict code: "valid", "bad_length", "equation_failed", …
func Reason(code uint8) string {
	return C.GoString(C.linesig_reason_name(C.uint8_t(code)))
}

// Version is the linesig library version.
func Version() string {
	return C.GoString(C.linesig_version())
}

// view describes b for the C ABI: its first byte's address (nil when empty) and length.
func view(b []byte) C.LinesigBytes {
	return C.LinesigBytes{ptr: bytePtr(b), len: C.size_t(len(b))}
}

// bytePtr is the address of b's first byte, or nil for an empty slice.
func bytePtr(b []byte) *C.uint8_t {
	if len(b) == 0 {
		return nil
	}
	return (*C.uint8_t)(unsafe.Pointer(&b[0]))
}

// MLDSAKeyGen derives an ML-DSA key pair from a 32-byte seed (FIPS 204
// ML-DSA.KeyGen_internal; the same seed gives the same keys in every implementation).
func MLDSAKeyGen(s Scheme, seed []byte) (publicKey, signingKey []byte, err error) {
	publicKey = make([]byte, max(1, int(C.linesig_public_key_len(C.uint32_t(s)))))
	signingKey = make([]byte, max(1, int(C.linesig_mldsa_signing_key_len(C.uint32_t(s)))))
	err = call(func() C.int {
		return C.linesig_mldsa_keygen(C.uint32_t(s), bytePtr(seed), C.size_t(len(seed)),
			bytePtr(publicKey), C.size_t(len(publicKey)), bytePtr(signingKey), C.size_t(len(signingKey)))
	})
	if err != nil {
		return nil, nil, err
	}
	return publicKey, signingKey, nil
}

// MLDSASign signs message under context (at most 255 bytes) with FIPS 204 ML-DSA.Sign:
// hedged with 32 fresh bytes of randomness, deterministic when randomness is nil.
func MLDSASign(s Scheme, signingKey, message, context, randomness []byte) ([]byte, error) {
	signature := make([]byte, max(1, int(C.linesig_signature_len(C.uint32_t(s)))))
	err := call(func() C.int {
		return C.linesig_mldsa_sign(C.uint32_t(s), bytePtr(signingKey), C.size_t(len(signingKey)),
			bytePtr(message), C.size_t(len(message)), bytePtr(context), C.size_t(len(context)),
			bytePtr(randomness), C.size_t(len(randomness)), bytePtr(signature), C.size_t(len(signature)))
	})
	if err != nil {
		return nil, err
	}
	return signature, nil
}
