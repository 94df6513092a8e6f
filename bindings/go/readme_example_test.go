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
func readmeExample(pk, msg, sig []byte) ([]bool, []uint8, error) {
	e, err := linesig.NewEngine(linesig.Config{Policy: linesig.Strict})
	if err != nil {
		return nil, nil, err
	}
	defer e.Close()
	items := []linesig.Item{{PublicKey: pk, Message: msg, Signature: sig}}
	valid, err := e.Verify(items)        // one bool per item, in input order
	reasons, _ := e.VerifyReasons(items) // 0 = valid, linesig.Reason(code) names the rest
	return valid, reasons, err
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
	// The README's `return err` is this function's `return nil, nil, err`.
	for _, line := range strings.Split(strings.TrimSpace(string(block[1])), "\n") {
		want := strings.Replace(line, "return err", "return nil, nil, err", 1)
		if !strings.Contains(string(source), "\t"+want+"\n") {
			t.Errorf("README line not in readmeExample: %q", line)
		}
	}
	seed := make([]byte, ed25519.SeedSize)
	key := ed25519.NewKeyFromSeed(seed)
	pk, msg := key.Public().(ed25519.PublicKey), []byte("readme")
	sig := ed25519.Sign(key, msg)
	valid, reasons, err := readmeExample(pk, msg, sig)
	if err != nil || len(valid) != 1 || !valid[0] || len(reasons) != 1 || reasons[0] != 0 {
		t.Fatalf("valid %v, reasons %v, err %v", valid, reasons, err)
	}
	bad := append([]byte{}, sig...)
	bad[0] ^= 1
	valid, reasons, err = readmeExample(pk, msg, bad)
	if err != nil || len(valid) != 1 || valid[0] || linesig.Reason(reasons[0]) != "equation_failed" {
		t.Fatalf("valid %v, reasons %v, err %v", valid, reasons, err)
	}
}
