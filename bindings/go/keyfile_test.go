package linesig

import (
	"bytes"
	"path/filepath"
	"testing"
	"time"
)

// A key file signs each epoch once across handles: the save happens inside Sign, a
// reopened file knows the epochs used, a second handle waits for the first's lock, and
// a file is never overwritten.
func TestLeanXMSSKeyFileSignsEachEpochOnce(t *testing.T) {
	key, err := LeanXMSSKeyGen(bytes.Repeat([]byte{3}, 32), 10, 13)
	if err != nil {
		t.Fatal(err)
	}
	defer key.Close()
	pk, _ := key.PublicKey()
	path := filepath.Join(t.TempDir(), "k.key")
	if err := CreateLeanXMSSKeyFile(key, path); err != nil {
		t.Fatal(err)
	}
	if err := CreateLeanXMSSKeyFile(key, path); err == nil || err.(*Error).Status != 17 {
		t.Fatalf("overwrote a key file: %v", err)
	}
	file, err := OpenLeanXMSSKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	message := bytes.Repeat([]byte{9}, 32)
	signature, err := file.Sign(11, message)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := NewEngine(Config{Scheme: LeanXMSS})
	defer e.Close()
	if ok, _ := e.Verify([]Item{{pk, message, signature, LeanSigEpoch(11)}}); !ok[0] {
		t.Fatal("the key file's signature does not verify")
	}
	// A second handle waits for the lock until the first closes.
	opened := make(chan *LeanXMSSKeyFile)
	go func() {
		second, err := OpenLeanXMSSKeyFile(path)
		if err != nil {
			t.Error(err)
		}
		opened <- second
	}()
	select {
	case <-opened:
		t.Fatal("a second handle opened while the first held the lock")
	case <-time.After(300 * time.Millisecond):
	}
	file.Close()
	second := <-opened
	if second == nil {
		return
	}
	defer second.Close()
	if next, _ := second.NextEpoch(); next != 12 {
		t.Fatalf("the reopened file's next epoch is %d, not 12", next)
	}
	if _, err := second.Sign(11, message); err == nil || err.(*Error).Status != 11 {
		t.Fatalf("signed epoch 11 twice: %v", err)
	}
	if _, err := file.Sign(12, message); err == nil {
		t.Fatal("a closed handle signed")
	}
	if _, err := OpenLeanXMSSKeyFile(filepath.Join(t.TempDir(), "none.key")); err == nil || err.(*Error).Status != 17 {
		t.Fatalf("opened a missing file: %v", err)
	}
}
