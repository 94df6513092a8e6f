package linesig

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"math/rand"
	"strings"
	"testing"
)

// signed makes n honest Ed25519 items over n/perKey keys, seeded.
func signed(n, perKey int, seed int64) []Item {
	rng := rand.New(rand.NewSource(seed))
	items := make([]Item, n)
	var key ed25519.PrivateKey
	for i := range items {
		if i%perKey == 0 {
			s := make([]byte, ed25519.SeedSize)
			rng.Read(s)
			key = ed25519.NewKeyFromSeed(s)
		}
		msg := make([]byte, 32)
		rng.Read(msg)
		items[i] = Item{PublicKey: key.Public().(ed25519.PublicKey), Message: msg, Signature: ed25519.Sign(key, msg)}
	}
	return items
}

// Honest and corrupted signatures: linesig agrees with Go's crypto/ed25519 on each
// (on honest keys and these corruptions every Ed25519 rule gives the same verdict).
func TestAgreesWithCryptoEd25519(t *testing.T) {
	items := signed(3000, 4, 1)
	rng := rand.New(rand.NewSource(2))
	for i := range items {
		switch rng.Intn(4) {
		case 0:
			sig := append([]byte(nil), items[i].Signature...)
			sig[rng.Intn(64)] ^= 1 << uint(rng.Intn(8))
			items[i].Signature = sig
		case 1:
			items[i].Signature = items[i].Signature[:63]
		}
	}
	for _, policy := range []Policy{Strict, Zip215, Zip215Strict} {
		e, err := NewEngine(Config{Policy: policy, BatchSize: 64})
		if err != nil {
			t.Fatal(err)
		}
		codes, err := e.VerifyReasons(items)
		if err != nil {
			t.Fatal(err)
		}
		valid := 0
		for i, it := range items {
			want := len(it.Signature) == 64 && ed25519.Verify(it.PublicKey, it.Message, it.Signature)
			if (codes[i] == 0) != want {
				t.Fatalf("policy %d item %d: linesig %s, crypto/ed25519 %v", policy, i, Reason(codes[i]), want)
			}
			if len(it.Signature) != 64 && Reason(codes[i]) != "bad_length" {
				t.Fatalf("item %d: %s", i, Reason(codes[i]))
			}
			if want {
				valid++
			}
		}
		if valid < 1000 || valid > 2000 {
			t.Fatalf("the mix has both kinds: %d valid", valid)
		}
		e.Close()
	}
}

func TestErrors(t *testing.T) {
	// Each refusal names its reason, not only its kind.
	for _, c := range []struct {
		cfg    Config
		reason string
	}{
		{Config{Scheme: 99}, "unknown scheme number 99"},
		{Config{Scheme: MLDSA44, Policy: Zip215}, "policy 1 is an Ed25519 policy; mldsa44 takes none"},
		{Config{KeyCacheBytes: 1000}, "a key cache of 1000 bytes holds no key table"},
		// Checked before narrowing to 32 bits, with the field named.
		{Config{Workers: -1}, "Workers is -1"},
		{Config{Workers: 1<<32 + 3}, "Workers is 4294967299"},
		{Config{BatchSize: -5}, "BatchSize is -5"},
		{Config{Policy: Zip215, BatchEquation: 7}, "unknown batch_equation 7"},
	} {
		_, err := NewEngine(c.cfg)
		var le *Error
		if !errors.As(err, &le) || le.Status != 2 || !strings.Contains(err.Error(), "invalid configuration: "+c.reason) {
			t.Fatalf("%+v: %v", c.cfg, err)
		}
	}
	if e, err := NewEngine(Config{KeyCacheBytes: 16 << 20}); err != nil {
		t.Fatalf("a 16 MiB key cache was refused: %v", err)
	} else {
		e.Close()
	}
	e, err := NewEngine(Config{Scheme: MLDSA65})
	if err != nil {
		t.Fatal(err)
	}
	codes, err := e.VerifyReasons([]Item{{PublicKey: []byte{1}, Signature: []byte{2}}})
	if err != nil || Reason(codes[0]) != "bad_length" {
		t.Fatalf("%v %v", codes, err)
	}
	if out, err := e.Verify(nil); err != nil || len(out) != 0 {
		t.Fatal("empty batch")
	}
	e.Close()
	if _, err := e.Verify(signed(1, 1, 3)); err == nil {
		t.Fatal("closed engine accepted a call")
	}
	// Ed25519 has no context: a non-empty one is rejected, not ignored.
	e, _ = NewEngine(Config{})
	it := signed(1, 1, 4)[0]
	it.Context = []byte("ctx")
	if codes, _ := e.VerifyReasons([]Item{it}); Reason(codes[0]) != "bad_context" {
		t.Fatalf("context: %s", Reason(codes[0]))
	}
	e.Close()
}

func TestMLDSASignVerify(t *testing.T) {
	seed := make([]byte, 32)
	pk, sk, err := MLDSAKeyGen(MLDSA65, seed)
	if err != nil || len(pk) != 1952 || len(sk) != 4032 {
		t.Fatalf("keygen: %v %d %d", err, len(pk), len(sk))
	}
	msg, ctx := []byte("message"), []byte("ctx")
	det1, err1 := MLDSASign(MLDSA65, sk, msg, ctx, nil)
	det2, err2 := MLDSASign(MLDSA65, sk, msg, ctx, nil)
	hedged, err3 := MLDSASign(MLDSA65, sk, msg, ctx, bytes.Repeat([]byte{7}, 32))
	if err1 != nil || err2 != nil || err3 != nil || !bytes.Equal(det1, det2) || bytes.Equal(det1, hedged) {
		t.Fatalf("signing: %v %v %v", err1, err2, err3)
	}
	e, err := NewEngine(Config{Scheme: MLDSA65})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	codes, err := e.VerifyReasons([]Item{
		{PublicKey: pk, Message: msg, Signature: det1, Context: ctx},
		{PublicKey: pk, Message: msg, Signature: hedged, Context: ctx},
		{PublicKey: pk, Message: msg, Signature: hedged, Context: []byte("other")},
	})
	if err != nil || Reason(codes[0]) != "valid" || Reason(codes[1]) != "valid" || Reason(codes[2]) != "equation_failed" {
		t.Fatalf("%v %v", codes, err)
	}
	var le *Error
	if _, _, err := MLDSAKeyGen(LeanSigL18, seed); !errors.As(err, &le) || !strings.Contains(le.Reason, "not ML-DSA") {
		t.Fatalf("keygen for leanSig: %v", err)
	}
	if _, err := MLDSASign(MLDSA65, sk, msg, make([]byte, 256), nil); !errors.As(err, &le) || !strings.Contains(le.Reason, "255") {
		t.Fatalf("long context: %v", err)
	}
	if _, err := MLDSASign(MLDSA65, sk[:10], msg, nil, []byte{1}); err == nil {
		t.Fatal("a short key and randomness accepted")
	}
}

// The batch equation on and off give the same verdict on every item (here with an
// invalid signature among honest ones), and only "on" counts nothing else.
func TestBatchEquationKeepsEveryVerdict(t *testing.T) {
	items := signed(200, 4, 9)
	items[37].Signature = append([]byte(nil), items[37].Signature...)
	items[37].Signature[40] ^= 1
	var want []byte
	for _, be := range []BatchEquation{BatchEquationOff, BatchEquationDefault, BatchEquationOn} {
		e, err := NewEngine(Config{Policy: Zip215, Workers: 2, BatchSize: 64, BatchEquation: be})
		if err != nil {
			t.Fatal(err)
		}
		codes, err := e.VerifyReasons(items)
		e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if want == nil {
			want = codes
		} else if string(codes) != string(want) {
			t.Fatalf("batch equation %d changed a verdict", be)
		}
	}
	if Reason(want[37]) != "equation_failed" || Reason(want[36]) != "valid" {
		t.Fatalf("%s %s", Reason(want[37]), Reason(want[36]))
	}
}
