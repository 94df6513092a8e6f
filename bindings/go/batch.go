package linesig

/*
#include <stdlib.h>
#include "linesig.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
)

// BatchVerifier collects signatures and verifies them in one call, in the shape Go
// validators already call: CometBFT's crypto.BatchVerifier and curve25519-voi's
// (Add, then Verify() (bool, []bool)). Unlike a batch equation, every signature gets its
// own exact verdict from the same pass (linesig verifies each one in SIMD lanes), so an
// invalid signature costs nothing extra and never hides which one failed.
//
// Add copies its arguments, so the caller may reuse them. Verify does not empty the
// batch; Reset does, keeping the memory for the next one. A batch that is dropped
// without Verify costs nothing but its memory. A BatchVerifier is not safe for
// concurrent use; its Engine is, so goroutines each with their own BatchVerifier may
// share one Engine.
//
// Two shapes run at the engine's speed (scripts/bench-go.sh measures both):
//   - one goroutine, large batches (thousands), an Engine of all cores (Workers 0): the
//     engine spreads each batch over its workers;
//   - a goroutine per core, each with its own batches, sharing an Engine of Workers 1
//     and BatchSize at least the batch: each Verify then runs on its goroutine's own
//     thread, with no hand-off. Go's scheduler spends a little around each long cgo
//     call, so on a machine whose every core verifies, fewer, larger batches lose least.
type BatchVerifier struct {
	engine *Engine
	keyLen int
	sigLen int
	// The items' bytes back to back (key, message, signature, context), and where each
	// item's fields start: one pinned allocation per Verify instead of one per field.
	data    []byte
	entries []batchEntry
}

type batchEntry struct {
	offset                 int
	messageLen, contextLen int
}

// NewBatchVerifier returns an empty batch for e's scheme and policy.
func (e *Engine) NewBatchVerifier() *BatchVerifier {
	return e.NewBatchVerifierWithCapacity(0)
}

// NewBatchVerifierWithCapacity returns an empty batch with room for n items of 32-byte
// messages before it grows.
func (e *Engine) NewBatchVerifierWithCapacity(n int) *BatchVerifier {
	s := C.uint32_t(e.scheme)
	v := &BatchVerifier{
		engine: e,
		keyLen: int(C.linesig_public_key_len(s)),
		sigLen: int(C.linesig_signature_len(s)),
	}
	if n > 0 {
		v.entries = make([]batchEntry, 0, n)
		v.data = make([]byte, 0, n*(v.keyLen+v.sigLen+32))
	}
	return v
}

// Add queues one signature. It fails, and queues nothing, when the key or signature has
// the wrong length for the engine's scheme (CometBFT's Add does the same), or for a
// scheme that needs a context (leanSig's epoch: use AddWithContext).
func (v *BatchVerifier) Add(publicKey, message, signature []byte) error {
	return v.AddWithContext(publicKey, message, signature, nil)
}

// AddWithContext queues one signature with its context: ML-DSA's context string (at most
// 255 bytes), leanSig's epoch (LeanSigEpoch); Ed25519 takes none.
func (v *BatchVerifier) AddWithContext(publicKey, message, signature, context []byte) error {
	if err := v.check(publicKey, signature, context); err != nil {
		return err
	}
	v.entries = append(v.entries, batchEntry{offset: len(v.data), messageLen: len(message), contextLen: len(context)})
	v.data = append(v.data, publicKey...)
	v.data = append(v.data, message...)
	v.data = append(v.data, signature...)
	v.data = append(v.data, context...)
	return nil
}

// check refuses what no verdict could make valid and what a caller must have mislaid:
// a key or signature of the wrong length, a context the scheme does not take.
func (v *BatchVerifier) check(publicKey, signature, context []byte) error {
	if v.engine.ptr == nil {
		return errors.New("linesig: engine is closed")
	}
	scheme := v.engine.scheme
	badLength := func(format string, args ...any) error {
		return &Error{
			Status: C.LINESIG_STATUS_BAD_LENGTH,
			Kind:   C.GoString(C.linesig_status_message(C.LINESIG_STATUS_BAD_LENGTH)),
			Reason: C.GoString(C.linesig_scheme_name(C.uint32_t(scheme))) + ": " + fmt.Sprintf(format, args...),
		}
	}
	switch {
	case len(publicKey) != v.keyLen:
		return badLength("a public key is %d bytes, not %d", v.keyLen, len(publicKey))
	case len(signature) != v.sigLen:
		return badLength("a signature is %d bytes, not %d", v.sigLen, len(signature))
	}
	switch scheme {
	case Ed25519:
		if len(context) != 0 {
			return badLength("Ed25519 takes no context, not %d bytes", len(context))
		}
	case MLDSA44, MLDSA65, MLDSA87:
		if len(context) > 255 {
			return badLength("an ML-DSA context is at most 255 bytes, not %d", len(context))
		}
	default: // leanSig, leanXMSS
		if len(context) != 4 {
			return badLength("a leanSig or leanXMSS item's context is its epoch (4 bytes, LeanSigEpoch), not %d bytes", len(context))
		}
	}
	return nil
}

// Len is the number of signatures queued.
func (v *BatchVerifier) Len() int { return len(v.entries) }

// Reset empties the batch and keeps its memory.
func (v *BatchVerifier) Reset() {
	v.entries = v.entries[:0]
	v.data = v.data[:0]
}

// Verify verifies every queued signature: true and one true per item when all are
// valid, else false and each item's verdict, in the order added. An empty batch gives
// (false, nil), as curve25519-voi's does. If the engine cannot run (it was closed), every
// verdict is false; VerifyReasons says why.
func (v *BatchVerifier) Verify() (bool, []bool) {
	if len(v.entries) == 0 {
		return false, nil
	}
	codes, err := v.VerifyReasons()
	if err != nil {
		return false, make([]bool, len(v.entries))
	}
	return validity(codes)
}

// VerifyReasons gives each queued signature's code, in the order added: 0 for valid,
// else the reason (see Reason).
func (v *BatchVerifier) VerifyReasons() ([]uint8, error) {
	e := v.engine
	if e.ptr == nil {
		return nil, errors.New("linesig: engine is closed")
	}
	n := len(v.entries)
	if n == 0 {
		return []uint8{}, nil
	}
	// One pin covers every field: they all lie in v.data, which nothing changes until
	// the call returns.
	var pinner runtime.Pinner
	defer pinner.Unpin()
	pinner.Pin(&v.data[0])
	at := func(offset, length int) C.LinesigBytes { return view(v.data[offset : offset+length]) }
	fields, err := newFieldTable(n)
	if err != nil {
		return nil, err
	}
	defer fields.free()
	for i, entry := range v.entries {
		m := entry.offset + v.keyLen
		s := m + entry.messageLen
		c := s + v.sigLen
		fields.set(i, at(entry.offset, v.keyLen), at(m, entry.messageLen), at(s, v.sigLen), at(c, entry.contextLen))
	}
	codes, err := e.verifyFields(fields)
	runtime.KeepAlive(v)
	return codes, err
}

// LeanSigEpoch is a leanSig or leanXMSS item's context: its epoch, four bytes
// little-endian.
func LeanSigEpoch(epoch uint32) []byte {
	return binary.LittleEndian.AppendUint32(nil, epoch)
}
