package linesig

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// leanXMSSCase reads one data.yaml of ../shared/vectors/leanxmss: its scalar fields,
// hex as bytes and numbers as text.
func leanXMSSCase(t *testing.T, folder, name string) (map[string][]byte, map[string]string) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(vectorsDir(), "leanxmss", folder, name, "data.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hexes, plain := map[string][]byte{}, map[string]string{}
	for _, line := range strings.Split(string(text), "\n") {
		key, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), "'")
		if strings.HasPrefix(value, "0x") {
			b, err := hex.DecodeString(value[2:])
			if err != nil {
				t.Fatal(err)
			}
			hexes[key] = b
		} else {
			plain[key] = value
		}
	}
	return hexes, plain
}

func epochOf(t *testing.T, plain map[string]string, key string) uint32 {
	t.Helper()
	n, err := strconv.ParseUint(plain[key], 10, 32)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(n)
}

// The spec's valid vector verifies through the engine and the batch verifier; a
// tampered copy and a wrong epoch do not.
func TestLeanXMSSVectors(t *testing.T) {
	c, plain := leanXMSSCase(t, "verify", "verify_valid")
	epoch := epochOf(t, plain, "epoch")
	e, err := NewEngine(Config{Scheme: LeanXMSS, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	tampered := bytes.Clone(c["signature"])
	tampered[700] ^= 1
	items := []Item{
		{c["public_key"], c["message"], c["signature"], LeanSigEpoch(epoch)},
		{c["public_key"], c["message"], tampered, LeanSigEpoch(epoch)},
		{c["public_key"], c["message"], c["signature"], LeanSigEpoch(epoch + 1)},
	}
	got, err := e.Verify(items)
	if err != nil || !got[0] || got[1] || got[2] {
		t.Fatalf("verdicts %v, %v", got, err)
	}
	batch := e.NewBatchVerifier()
	for _, it := range items[:2] {
		if err := batch.AddWithContext(it.PublicKey, it.Message, it.Signature, it.Context); err != nil {
			t.Fatal(err)
		}
	}
	if all, each := batch.Verify(); all || !each[0] || each[1] {
		t.Fatalf("batch verdicts %v %v", all, each)
	}

	k, plain := leanXMSSCase(t, "key_gen", "key_gen_max_epoch")
	key, err := LeanXMSSKeyGen(k["seed"], epochOf(t, plain, "epoch_start"), epochOf(t, plain, "epoch_end"))
	if err != nil {
		t.Fatal(err)
	}
	defer key.Close()
	if pk, _ := key.PublicKey(); !bytes.Equal(pk, k["output"]) {
		t.Fatalf("public key %x, want %x", pk, k["output"])
	}
}

// A key signs each epoch once, also after its bytes are reloaded.
func TestLeanXMSSKeySignsOnce(t *testing.T) {
	key, err := LeanXMSSKeyGen(make([]byte, 32), 3, 6)
	if err != nil {
		t.Fatal(err)
	}
	message := bytes.Repeat([]byte{7}, 32)
	signature, err := key.Sign(4, message)
	if err != nil {
		t.Fatal(err)
	}
	pk, _ := key.PublicKey()
	e, _ := NewEngine(Config{Scheme: LeanXMSS})
	defer e.Close()
	if ok, _ := e.Verify([]Item{{pk, message, signature, LeanSigEpoch(4)}}); !ok[0] {
		t.Fatal("own signature refused")
	}
	saved, err := key.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	key.Close()
	reloaded, err := LeanXMSSKeyFromBytes(saved)
	if err != nil {
		t.Fatal(err)
	}
	defer reloaded.Close()
	if next, _ := reloaded.NextEpoch(); next != 5 {
		t.Fatalf("next epoch %d", next)
	}
	if _, err := reloaded.Sign(4, message); err == nil || err.(*Error).Status != 11 {
		t.Fatalf("signed a used epoch: %v", err)
	}
	if _, err := reloaded.Sign(7, message); err == nil {
		t.Fatal("signed outside the range")
	}
	if _, err := LeanXMSSKeyGen(make([]byte, 32), 6, 3); err == nil {
		t.Fatal("an empty range made a key")
	}
	if _, err := LeanXMSSKeyFromBytes([]byte("LXSK")); err == nil {
		t.Fatal("four bytes made a key")
	}
}
