package linesig_test

// linesig against curve25519-voi, the Ed25519 library of Go validators (Oasis, CometBFT),
// on adversarial items: each linesig policy beside the voi options that state the same
// rules (docs/design.md §3), through voi's BatchVerifier (per-item verdicts) and its
// single verification. Every verdict must be equal.

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	linesig "github.com/linesig/linesig/bindings/go"
	"github.com/oasisprotocol/curve25519-voi/curve"
	"github.com/oasisprotocol/curve25519-voi/curve/scalar"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

// voiOptions are the voi options whose written rules are each policy's:
//   - Strict (ed25519-dalek verify_strict): small-order A and R rejected, A's encoding
//     hashed as given (non-canonical accepted), the cofactorless equation compared as
//     R's bytes, so a non-canonical R fails.
//   - Zip215: every Allow* on, the cofactored equation (voi's ZIP-215 preset).
//   - Zip215Strict (SIMD-0376): every Allow* off, the cofactored equation.
var voiOptions = []struct {
	policy linesig.Policy
	name   string
	opts   *voi.Options
}{
	{linesig.Strict, "strict", &voi.Options{Verify: &voi.VerifyOptions{AllowNonCanonicalA: true, CofactorlessVerify: true}}},
	{linesig.Zip215, "zip215", &voi.Options{Verify: voi.VerifyOptionsZIP_215}},
	{linesig.Zip215Strict, "zip215-strict", &voi.Options{Verify: &voi.VerifyOptions{}}},
}

type edItem struct {
	name          string
	key, msg, sig []byte
}

func TestAgreesWithCurve25519Voi(t *testing.T) {
	items := append(vectorItems(t), craftedItems(rand.New(rand.NewSource(215)))...)
	if len(items) < 5000 {
		t.Fatalf("only %d items", len(items))
	}
	for _, p := range voiOptions {
		e, err := linesig.NewEngine(linesig.Config{Policy: p.policy, Workers: 2, BatchSize: 64})
		if err != nil {
			t.Fatal(err)
		}
		v := e.NewBatchVerifier()
		voiBatch := voi.NewBatchVerifier()
		for _, it := range items {
			if err := v.Add(it.key, it.msg, it.sig); err != nil {
				t.Fatal(err)
			}
			voiBatch.AddWithOptions(it.key, it.msg, it.sig, p.opts)
		}
		_, got := v.Verify()
		_, want := voiBatch.Verify(nil)
		accepted := 0
		for i, it := range items {
			single := voi.VerifyWithOptions(it.key, it.msg, it.sig, p.opts)
			if got[i] != want[i] || single != want[i] {
				t.Errorf("%s: %s (key %x, sig %x): linesig %v, voi batch %v, voi single %v",
					p.name, it.name, it.key, it.sig, got[i], want[i], single)
			}
			if got[i] {
				accepted++
			}
		}
		t.Logf("%s: %d items, %d accepted by both", p.name, len(items), accepted)
		e.Close()
	}
}

// vectorItems: C2SP CCTV's edge cases, speccheck's, Firedancer's malleability sets.
func vectorItems(t *testing.T) []edItem {
	dir := filepath.Join(linesig.VectorsDir(), "ed25519")
	read := func(path string, into any) {
		raw, err := os.ReadFile(filepath.Join(dir, path))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, into); err != nil {
			t.Fatal(path, err)
		}
	}
	unhex := func(s string) []byte {
		b, err := hex.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var items []edItem
	var cctv []struct{ Key, Sig, Msg string }
	read("cctv/ed25519vectors.json", &cctv)
	for _, c := range cctv {
		items = append(items, edItem{"cctv", unhex(c.Key), []byte(c.Msg), unhex(c.Sig)})
	}
	var spec []struct {
		Message string
		PubKey  string `json:"pub_key"`
		Sig     string `json:"signature"`
	}
	read("speccheck/cases.json", &spec)
	for _, c := range spec {
		items = append(items, edItem{"speccheck", unhex(c.PubKey), unhex(c.Message), unhex(c.Sig)})
	}
	for _, file := range []string{"firedancer/malleability_should_pass.json", "firedancer/malleability_should_fail.json"} {
		var doc struct {
			Tests []struct {
				Msg      string `json:"msg_ascii"`
				Sig, Pub string
			}
		}
		read(file, &doc)
		for _, c := range doc.Tests {
			items = append(items, edItem{"firedancer", unhex(c.Pub), []byte(c.Msg), unhex(c.Sig)})
		}
	}
	return items
}

// A crafted point: its encoding, and, where known, a = its discrete log's part on the
// prime-order subgroup and tor its torsion part (point = aB + tor).
type craftedPoint struct {
	name  string
	enc   []byte
	a     *scalar.Scalar
	tor   *curve.EdwardsPoint
	known bool
}

// craftedItems: keys and R of every kind (honest, small order, mixed order, non-canonical
// encodings, x = 0 with the sign bit set), each S chosen to satisfy the cofactored
// equation where the logs are known, then S + L, S with its top bit, and bit flips.
func craftedItems(rng *rand.Rand) []edItem {
	torsion := torsionPoints()
	base := curve.ED25519_BASEPOINT_TABLE
	randomScalar := func() *scalar.Scalar {
		var wide [64]byte
		rng.Read(wide[:])
		s, _ := scalar.New().SetBytesModOrderWide(wide[:])
		return s
	}
	encode := func(p *curve.EdwardsPoint) []byte {
		var c curve.CompressedEdwardsY
		c.SetEdwardsPoint(p)
		return c[:]
	}
	// Points with a known log: aB + T_j for each torsion point (j = 0 honest).
	known := func(kind string) craftedPoint {
		j := rng.Intn(8)
		a := randomScalar()
		p := curve.NewEdwardsPoint().MulBasepoint(base, a)
		if kind == "small" {
			a = scalar.New()
			p.Identity()
		}
		if kind == "honest" {
			j = 0
		}
		p.Add(p, torsion[j])
		return craftedPoint{name: kind, enc: encode(p), a: a, tor: torsion[j], known: true}
	}
	// Encodings that are not the canonical bytes of their point: y + p for y < 19, and
	// x = 0 with the sign bit set. Their log is known only when they are small order.
	var odd []craftedPoint
	for y := 0; y < 19; y++ {
		for sign := 0; sign < 2; sign++ {
			enc := fieldPrimePlus(y)
			enc[31] |= byte(sign << 7)
			odd = append(odd, decodeOdd("y+p", enc))
		}
	}
	for _, y := range [][]byte{fieldPrimePlus(-1), {1}} { // y = −1 and y = 1: x = 0
		enc := make([]byte, 32)
		copy(enc, y)
		enc[31] |= 0x80
		odd = append(odd, decodeOdd("x=0 sign set", enc))
	}
	pick := func() craftedPoint {
		switch r := rng.Intn(10); {
		case r < 3:
			return known("honest")
		case r < 5:
			return known("small")
		case r < 8:
			return known("mixed")
		default:
			return odd[rng.Intn(len(odd))]
		}
	}
	var items []edItem
	for i := 0; i < 6000; i++ {
		A, R := pick(), pick()
		msg := make([]byte, 1+rng.Intn(64))
		rng.Read(msg)
		h := sha512.New()
		h.Write(R.enc)
		h.Write(A.enc)
		h.Write(msg)
		k, _ := scalar.New().SetBytesModOrderWide(h.Sum(nil))
		// S = r + k·a: [S]B − R − [k]A is then a torsion point, so the cofactored
		// equation holds; the cofactorless one holds when R's torsion is −k·(A's).
		S := scalar.New()
		if A.known && R.known {
			S.Mul(k, A.a).Add(S, R.a)
		} else {
			S = randomScalar()
		}
		sig := make([]byte, 64)
		copy(sig, R.enc)
		_ = S.ToBytes(sig[32:])
		name := "A " + A.name + ", R " + R.name
		items = append(items, edItem{name, A.enc, msg, sig})
		switch rng.Intn(6) {
		case 0: // S + L: the same point equation, a non-canonical scalar
			bad := append([]byte{}, sig...)
			addOrder(bad[32:])
			items = append(items, edItem{name + ", S+L", A.enc, msg, bad})
		case 1: // S's top bit
			bad := append([]byte{}, sig...)
			bad[63] |= 0x80
			items = append(items, edItem{name + ", S top bit", A.enc, msg, bad})
		case 2: // a flipped bit anywhere
			bad := append([]byte{}, sig...)
			bit := rng.Intn(512)
			bad[bit/8] ^= 1 << (bit % 8)
			items = append(items, edItem{name + ", flipped bit", A.enc, msg, bad})
		}
	}
	return items
}

// torsionPoints: the eight points of order dividing 8, T_0 = identity, T_j = j·T_1.
func torsionPoints() []*curve.EdwardsPoint {
	// A point of order 8 (RFC 8032 test vectors' and speccheck's small-order set).
	enc, _ := hex.DecodeString("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
	var c curve.CompressedEdwardsY
	_, _ = c.SetBytes(enc)
	t1, err := curve.NewEdwardsPoint().SetCompressedY(&c)
	if err != nil {
		panic(err)
	}
	points := []*curve.EdwardsPoint{curve.NewEdwardsPoint().Identity()}
	for j := 1; j < 8; j++ {
		points = append(points, curve.NewEdwardsPoint().Add(points[j-1], t1))
	}
	return points
}

// decodeOdd describes an odd encoding: a small-order point has log 0 and is its own
// torsion part; any other point (or none) has no known log.
func decodeOdd(name string, enc []byte) craftedPoint {
	var c curve.CompressedEdwardsY
	_, _ = c.SetBytes(enc)
	p, err := curve.NewEdwardsPoint().SetCompressedY(&c)
	if err != nil || !p.IsSmallOrder() {
		return craftedPoint{name: name + " (no known log)", enc: enc}
	}
	return craftedPoint{name: name + " small", enc: enc, a: scalar.New(), tor: p, known: true}
}

// fieldPrimePlus is p + y (p = 2^255 − 19) little-endian, for −1 ≤ y ≤ 18 (below 2^255,
// so the top bit, x's sign, is clear).
func fieldPrimePlus(y int) []byte {
	out := make([]byte, 32)
	for i := range out {
		out[i] = 0xff
	}
	out[31] = 0x7f
	// p = 2^255 − 19 = 0x7fff…ffed.
	v := 0xed + y
	out[0] = byte(v)
	return out
}

// addOrder adds L to a 32-byte little-endian scalar (it stays below 2^256 for S < L).
func addOrder(s []byte) {
	order, _ := hex.DecodeString("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	carry := 0
	for i := 0; i < 32; i++ {
		v := int(s[i]) + int(order[i]) + carry
		s[i], carry = byte(v), v>>8
	}
}
