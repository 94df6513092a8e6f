package linesig

/*
#include <stdlib.h>
#include "linesig.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"
)

// LeanXMSSKey is a leanXMSS secret key (the lean devnets' BLAKE2s XMSS) with the next
// epoch it may sign. It signs each epoch of its range at most once, in increasing
// order: save Bytes() after every Sign, before the signature leaves the process, or a
// key reloaded from older bytes could sign an epoch twice (which lets anyone forge).
// Not safe for concurrent use; Close it when done (a finalizer frees it otherwise).
type LeanXMSSKey struct {
	ptr *C.LinesigLeanxmssKey
}

func newLeanXMSSKey(make func(**C.LinesigLeanxmssKey) C.int) (*LeanXMSSKey, error) {
	var ptr *C.LinesigLeanxmssKey
	if err := call(func() C.int { return make(&ptr) }); err != nil {
		return nil, err
	}
	k := &LeanXMSSKey{ptr: ptr}
	runtime.SetFinalizer(k, (*LeanXMSSKey).Close)
	return k, nil
}

// LeanXMSSKeyGen makes the key a 32-byte seed grows for epochs start..end (inclusive;
// the spec's keyGen), or, with a nil seed, a key from the operating system's
// randomness.
func LeanXMSSKeyGen(seed []byte, start, end uint32) (*LeanXMSSKey, error) {
	return newLeanXMSSKey(func(out **C.LinesigLeanxmssKey) C.int {
		return C.linesig_leanxmss_keygen(bytePtr(seed), C.size_t(len(seed)), C.uint32_t(start), C.uint32_t(end), out)
	})
}

// LeanXMSSKeyFromBytes loads a key saved with Bytes (its tree is rebuilt).
func LeanXMSSKeyFromBytes(b []byte) (*LeanXMSSKey, error) {
	return newLeanXMSSKey(func(out **C.LinesigLeanxmssKey) C.int {
		return C.linesig_leanxmss_key_from_bytes(bytePtr(b), C.size_t(len(b)), out)
	})
}

func (k *LeanXMSSKey) live() error {
	if k.ptr == nil {
		return errors.New("linesig: leanXMSS key is closed")
	}
	return nil
}

// PublicKey is the key's 32-byte public key.
func (k *LeanXMSSKey) PublicKey() ([]byte, error) {
	if err := k.live(); err != nil {
		return nil, err
	}
	out := make([]byte, 32)
	err := call(func() C.int { return C.linesig_leanxmss_public_key(k.ptr, bytePtr(out), C.size_t(len(out))) })
	runtime.KeepAlive(k)
	return out, err
}

// NextEpoch is the lowest epoch the key may still sign.
func (k *LeanXMSSKey) NextEpoch() (uint64, error) {
	if err := k.live(); err != nil {
		return 0, err
	}
	var info C.LinesigLeanxmssKeyInfo
	err := call(func() C.int { return C.linesig_leanxmss_key_info(k.ptr, &info) })
	runtime.KeepAlive(k)
	return uint64(info.next_epoch), err
}

// Sign signs a 32-byte message at epoch: an error for an epoch outside the key's range
// or at or before one it signed.
func (k *LeanXMSSKey) Sign(epoch uint32, message []byte) ([]byte, error) {
	if err := k.live(); err != nil {
		return nil, err
	}
	signature := make([]byte, int(C.linesig_signature_len(C.uint32_t(LeanXMSS))))
	err := call(func() C.int {
		return C.linesig_leanxmss_sign(k.ptr, C.uint32_t(epoch), bytePtr(message), C.size_t(len(message)),
			bytePtr(signature), C.size_t(len(signature)))
	})
	runtime.KeepAlive(k)
	if err != nil {
		return nil, err
	}
	return signature, nil
}

// Bytes is the key with its signing state, to save after every signature.
func (k *LeanXMSSKey) Bytes() ([]byte, error) {
	if err := k.live(); err != nil {
		return nil, err
	}
	var buffer C.LinesigBuffer
	err := call(func() C.int { return C.linesig_leanxmss_key_to_bytes(k.ptr, &buffer) })
	runtime.KeepAlive(k)
	if err != nil {
		return nil, err
	}
	defer C.linesig_buffer_free(&buffer)
	return C.GoBytes(unsafe.Pointer(buffer.ptr), C.int(buffer.len)), nil
}

// Close frees the key; later calls return an error.
func (k *LeanXMSSKey) Close() {
	if k.ptr != nil {
		C.linesig_leanxmss_key_free(k.ptr)
		k.ptr = nil
	}
}
