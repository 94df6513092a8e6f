package linesig_test

import (
	"crypto/ed25519"
	"os"
	"regexp"
	"strings"
	"testing"

	linesig "github.com/linesig/linesig/bindings/go"
)

// readmeExample is the README's Go example, line for line (TestReadmeExample checks that
// the README still says exactly this, so every name it uses is declared in it), wrapped
// in a function that returns its results.
func readmeExample(pk, msg, sig []byte) (bool, []bool, error) {
	e, err := linesig.NewEngine(linesig.Config{Policy: linesig.Zip215}) // CometBFT's rules
	if err != nil {
		return false, nil, err
	}
	defer e.Close()
	v := e.NewBatchVerifier()
	if err := v.Add(pk, msg, sig); err != nil { // a key or signature of the wrong length
		return false, nil, err
	}
	ok, valid := v.Verify() // all valid, and one verdict per Add, in order
	return ok, valid, nil
}

func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```go\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("the README has no Go example")
	}
	source, err := os.ReadFile("readme_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	// The README's `return err` is this function's `return false, nil, err`.
	for _, line := range strings.Split(strings.TrimSpace(string(block[1])), "\n") {
		want := strings.Replace(line, "return err", "return false, nil, err", 1)
		if !strings.Contains(string(source), "\t"+want+"\n") {
			t.Errorf("README line not in readmeExample: %q", line)
		}
	}
	seed := make([]byte, ed25519.SeedSize)
	key := ed25519.NewKeyFromSeed(seed)
	pk, msg := key.Public().(ed25519.PublicKey), []byte("readme")
	sig := ed25519.Sign(key, msg)
	ok, valid, err := readmeExample(pk, msg, sig)
	if err != nil || !ok || len(valid) != 1 || !valid[0] {
		t.Fatalf("ok %v, valid %v, err %v", ok, valid, err)
	}
	bad := append([]byte{}, sig...)
	bad[0] ^= 1
	ok, valid, err = readmeExample(pk, msg, bad)
	if err != nil || ok || len(valid) != 1 || valid[0] {
		t.Fatalf("ok %v, valid %v, err %v", ok, valid, err)
	}
	if _, _, err := readmeExample(pk[:31], msg, sig); err == nil {
		t.Fatal("a 31-byte key accepted")
	}
}
