package linesig

import (
	"crypto/ed25519"
	"fmt"
	"math/rand"
	"runtime"
	"strings"
	"testing"
	"time"
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
	if _, err := NewEngine(Config{Scheme: 99}); err == nil {
		t.Fatal("unknown scheme accepted")
	}
	if _, err := NewEngine(Config{Scheme: MLDSA44, Policy: Zip215}); err == nil {
		t.Fatal("policy for ML-DSA accepted")
	}
	if _, err := NewEngine(Config{KeyCacheBytes: 1000}); err == nil || !strings.Contains(err.Error(), "invalid configuration") {
		t.Fatalf("a key cache too small for one table was accepted: %v", err)
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

// BenchmarkVerify mirrors the founding Go benchmark's report: workers, batch size,
// messages per key, throughput and time per signature.
func BenchmarkVerify(b *testing.B) {
	const n, perKey, batch = 50000, 4, 512
	items := signed(n, perKey, 5)
	e, err := NewEngine(Config{BatchSize: batch})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := e.Verify(items); err != nil {
			b.Fatal(err)
		}
	}
	elapsed := time.Since(start)
	b.StopTimer()
	total := float64(n * b.N)
	b.ReportMetric(total/elapsed.Seconds(), "sigs/s")
	b.ReportMetric(float64(elapsed.Nanoseconds())/total, "ns/sig")
	b.Log(fmt.Sprintf("workers %d, batch %d, messages per key %d, backend %s, %d signatures x %d: %.0f sigs/s",
		runtime.NumCPU(), batch, perKey, e.Backend(), n, b.N, total/elapsed.Seconds()))
}
