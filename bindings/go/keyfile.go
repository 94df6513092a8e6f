package linesig

/*
#include <stdlib.h>
#include "linesig.h"
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// LeanXMSSKeyFile is a leanXMSS key file open for signing, the protocol `linesig sign`
// follows: the file is locked (an exclusive flock) from Open to Close, so a second
// handle, in this process or another, waits; and Sign saves the key durably (a unique
// temporary file, fsync, rename, fsync of the directory) before it returns the
// signature, so no later Open can sign that epoch again, whatever crashes. A signer
// that keeps keys in its own store instead must do the same: hold a lock over load,
// sign and save, and save before the signature leaves the process.
// Not safe for concurrent use; Close it when done (a finalizer closes it otherwise).
type LeanXMSSKeyFile struct {
	ptr *C.LinesigLeanxmssKeyFile
}

// CreateLeanXMSSKeyFile writes key to a new key file at path, durably; an error if the
// file exists (a key file is never overwritten).
func CreateLeanXMSSKeyFile(key *LeanXMSSKey, path string) error {
	if err := key.live(); err != nil {
		return err
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	err := call(func() C.int { return C.linesig_leanxmss_key_file_create(key.ptr, cpath) })
	runtime.KeepAlive(key)
	return err
}

// OpenLeanXMSSKeyFile opens the key file at path, waiting for its lock while another
// handle or process holds it, and loads the key.
func OpenLeanXMSSKeyFile(path string) (*LeanXMSSKeyFile, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var ptr *C.LinesigLeanxmssKeyFile
	if err := call(func() C.int { return C.linesig_leanxmss_key_file_open(cpath, &ptr) }); err != nil {
		return nil, err
	}
	f := &LeanXMSSKeyFile{ptr: ptr}
	runtime.SetFinalizer(f, (*LeanXMSSKeyFile).Close)
	return f, nil
}

func (f *LeanXMSSKeyFile) live() error {
	if f.ptr == nil {
		return &Error{Status: int(C.LINESIG_STATUS_NULL_POINTER), Kind: "closed", Reason: "the key file is closed"}
	}
	return nil
}

// NextEpoch is the lowest epoch the key may still sign.
func (f *LeanXMSSKeyFile) NextEpoch() (uint64, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	var info C.LinesigLeanxmssKeyInfo
	err := call(func() C.int { return C.linesig_leanxmss_key_file_info(f.ptr, &info) })
	runtime.KeepAlive(f)
	return uint64(info.next_epoch), err
}

// Sign signs a 32-byte message at epoch and saves the key file before returning: the
// epoch rules of LeanXMSSKey.Sign; an error (Status LINESIG_STATUS_IO_ERROR) if the
// save failed, with no signature, and the epoch used up all the same.
func (f *LeanXMSSKeyFile) Sign(epoch uint32, message []byte) ([]byte, error) {
	if err := f.live(); err != nil {
		return nil, err
	}
	signature := make([]byte, int(C.linesig_signature_len(C.uint32_t(LeanXMSS))))
	err := call(func() C.int {
		return C.linesig_leanxmss_key_file_sign(f.ptr, C.uint32_t(epoch), bytePtr(message),
			C.size_t(len(message)), bytePtr(signature), C.size_t(len(signature)))
	})
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	return signature, nil
}

// Close releases the lock and the handle; later calls return an error.
func (f *LeanXMSSKeyFile) Close() {
	if f.ptr != nil {
		C.linesig_leanxmss_key_file_close(f.ptr)
		f.ptr = nil
	}
}
