package linesig

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// vectorsDir is ../shared/vectors beside the checkout, or $LINESIG_VECTORS_DIR.
func vectorsDir() string {
	if dir := os.Getenv("LINESIG_VECTORS_DIR"); dir != "" {
		return dir
	}
	return filepath.Join("..", "..", "..", "shared", "vectors")
}

// A batch's verdicts are the engine's on the same items: honest and corrupted, every
// policy; all valid gives true; the order is the order added; Reset reuses it.
func TestBatchVerifierAgreesWithEngine(t *testing.T) {
	items := signed(700, 4, 11)
	rng := rand.New(rand.NewSource(12))
	for i := range items {
		if rng.Intn(5) == 0 {
			sig := bytes.Clone(items[i].Signature)
			sig[rng.Intn(64)] ^= 1 << rng.Intn(8)
			items[i].Signature = sig
		}
	}
	for _, policy := range []Policy{Strict, Zip215, Zip215Strict} {
		e, err := NewEngine(Config{Policy: policy, Workers: 2, BatchSize: 64})
		if err != nil {
			t.Fatal(err)
		}
		want, err := e.Verify(items)
		if err != nil {
			t.Fatal(err)
		}
		v := e.NewBatchVerifierWithCapacity(len(items))
		for round := 0; round < 2; round++ {
			v.Reset()
			for _, it := range items {
				if err := v.Add(it.PublicKey, it.Message, it.Signature); err != nil {
					t.Fatal(err)
				}
			}
			all, got := v.Verify()
			if all || len(got) != len(want) {
				t.Fatalf("policy %d: all %v, %d verdicts", policy, all, len(got))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("policy %d, item %d: batch %v, engine %v", policy, i, got[i], want[i])
				}
			}
		}
		v.Reset()
		for _, it := range signed(50, 3, 13) {
			if err := v.Add(it.PublicKey, it.Message, it.Signature); err != nil {
				t.Fatal(err)
			}
		}
		if all, got := v.Verify(); !all || len(got) != 50 {
			t.Fatalf("policy %d: an honest batch gives %v, %d verdicts", policy, all, len(got))
		}
		e.Close()
	}
}

// Add copies: changing the caller's slices after Add changes nothing.
func TestBatchVerifierCopies(t *testing.T) {
	e, err := NewEngine(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	it := signed(1, 1, 14)[0]
	v := e.NewBatchVerifier()
	if err := v.Add(it.PublicKey, it.Message, it.Signature); err != nil {
		t.Fatal(err)
	}
	it.Message[0] ^= 1
	if all, got := v.Verify(); !all || !got[0] {
		t.Fatal("a later change to the caller's message reached the batch")
	}
}

// Add refuses, and queues nothing, what has the wrong shape for the scheme; an empty
// batch is (false, nil); a closed engine gives every verdict false and says why.
func TestBatchVerifierErrors(t *testing.T) {
	e, err := NewEngine(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	it := signed(1, 1, 15)[0]
	v := e.NewBatchVerifier()
	if all, got := v.Verify(); all || got != nil {
		t.Fatalf("empty batch: %v %v", all, got)
	}
	for _, bad := range [][3][]byte{
		{it.PublicKey[:31], it.Message, it.Signature},
		{it.PublicKey, it.Message, it.Signature[:63]},
		{nil, it.Message, nil},
	} {
		err := v.Add(bad[0], bad[1], bad[2])
		var le *Error
		if !errors.As(err, &le) || le.Status != 8 || le.Reason == "" {
			t.Fatalf("wrong lengths: %v", err)
		}
	}
	if err := v.AddWithContext(it.PublicKey, it.Message, it.Signature, []byte{1}); err == nil {
		t.Fatal("an Ed25519 context accepted")
	}
	if v.Len() != 0 {
		t.Fatalf("refused items were queued: %d", v.Len())
	}
	if err := v.Add(it.PublicKey, it.Message, it.Signature); err != nil {
		t.Fatal(err)
	}
	e.Close()
	if all, got := v.Verify(); all || len(got) != 1 || got[0] {
		t.Fatalf("closed engine: %v %v", all, got)
	}
	if _, err := v.VerifyReasons(); err == nil {
		t.Fatal("a closed engine verified")
	}
	if err := v.Add(it.PublicKey, it.Message, it.Signature); err == nil {
		t.Fatal("a closed engine's batch took an item")
	}
}

// ML-DSA: the context travels with each item; a signature under another context fails.
func TestBatchVerifierMLDSA(t *testing.T) {
	e, err := NewEngine(Config{Scheme: MLDSA44, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	pk, sk, err := MLDSAKeyGen(MLDSA44, bytes.Repeat([]byte{3}, 32))
	if err != nil {
		t.Fatal(err)
	}
	v := e.NewBatchVerifier()
	msg := []byte("batch")
	for i := 0; i < 5; i++ {
		ctx := []byte("ctx" + strconv.Itoa(i))
		sig, err := MLDSASign(MLDSA44, sk, msg, ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if i == 3 {
			ctx = []byte("other")
		}
		if err := v.AddWithContext(pk, msg, sig, ctx); err != nil {
			t.Fatal(err)
		}
	}
	all, got := v.Verify()
	if all || !got[0] || !got[2] || !got[4] || got[3] {
		t.Fatalf("%v %v", all, got)
	}
	if err := v.AddWithContext(pk, msg, make([]byte, 2420), make([]byte, 256)); err == nil {
		t.Fatal("a 256-byte context accepted")
	}
}

// leanSig: every case of the shared devnet-4 and L18 vectors through a batch, each epoch
// as its context; a case whose lengths the scheme cannot take is refused by Add and
// must be one the vectors call invalid.
func TestBatchVerifierLeanSigVectors(t *testing.T) {
	for file, scheme := range map[string]Scheme{
		"leansig_devnet4_c08a3ba_L32_dim46.json": LeanSigDevnet4,
		"leansig_legacy_73bedc2_L18_dim64.json":  LeanSigL18,
	} {
		raw, err := os.ReadFile(filepath.Join(vectorsDir(), "leansig", file))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Cases []struct {
				Key       string `json:"public_key"`
				Msg       string `json:"message"`
				Sig       string `json:"signature"`
				Epoch     uint32
				Reference bool  `json:"expected_reference"`
				Spec      *bool `json:"expected_spec"`
			}
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		e, err := NewEngine(Config{Scheme: scheme, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		v := e.NewBatchVerifier()
		var expected []bool
		for _, c := range doc.Cases {
			want := c.Reference
			if c.Spec != nil {
				want = *c.Spec
			}
			key, _ := hex.DecodeString(c.Key)
			msg, _ := hex.DecodeString(c.Msg)
			sig, _ := hex.DecodeString(c.Sig)
			if err := v.AddWithContext(key, msg, sig, LeanSigEpoch(c.Epoch)); err != nil {
				if want {
					t.Fatalf("%s: a valid case refused: %v", file, err)
				}
				continue
			}
			expected = append(expected, want)
		}
		if len(expected) < 10 {
			t.Fatalf("%s: %d cases", file, len(expected))
		}
		_, got := v.Verify()
		for i := range expected {
			if got[i] != expected[i] {
				t.Fatalf("%s: case %d: %v, want %v", file, i, got[i], expected[i])
			}
		}
		if err := v.Add(make([]byte, v.keyLen), make([]byte, 32), make([]byte, v.sigLen)); err == nil {
			t.Fatalf("%s: an item without its epoch accepted", file)
		}
		e.Close()
	}
}

// The descriptor table lives in C memory and Go writes pointers into it; Go's write
// barrier reads each slot's old contents while the collector runs, so a slot must never
// hold a stale pointer (a reused malloc block once held the last call's pointers, into
// memory the collector had since freed: "found bad pointer in Go heap"). Calls on fresh
// Go memory each round, two goroutines, with the collector running throughout.
func TestVerifyWhileCollecting(t *testing.T) {
	e, err := NewEngine(Config{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	base := signed(256, 4, 21)
	stop := make(chan struct{})
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for {
			select {
			case <-stop:
				return
			default:
				runtime.GC()
			}
		}
	}()
	errs := make(chan error, 2)
	for g := 0; g < 2; g++ {
		go func(g int) {
			for round := 0; round < 300; round++ {
				// Fresh copies: the previous round's become garbage for the collector.
				items := make([]Item, len(base))
				v := e.NewBatchVerifier()
				for i, it := range base {
					items[i] = Item{PublicKey: bytes.Clone(it.PublicKey), Message: bytes.Clone(it.Message), Signature: bytes.Clone(it.Signature)}
					if err := v.Add(items[i].PublicKey, items[i].Message, items[i].Signature); err != nil {
						errs <- err
						return
					}
				}
				var codes []uint8
				var err error
				if round%2 == g {
					codes, err = v.VerifyReasons()
				} else {
					codes, err = e.VerifyReasons(items)
				}
				if err != nil {
					errs <- err
					return
				}
				if all, _ := validity(codes); !all {
					errs <- fmt.Errorf("goroutine %d, round %d: an honest batch failed", g, round)
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 2; g++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	close(stop)
	<-collected
}
