// Command linesig-bench is the founding Go benchmark rebuilt: seeded Ed25519 keys and
// signatures (4 messages per key), then a sweep of workers × batch size in which Go
// goroutines each fill a batch verifier and verify it, through linesig's BatchVerifier and
// through curve25519-voi's (items sorted by key in each batch, as the founding program
// did; once with the keys expanded per batch, once with them expanded up front and
// cached), on the same items in the same run. It prints STATUS: SUCCESS only if every
// verdict of every run is what was signed.
//
//	go run ./cmd/linesig-bench                       # 50,000 signatures, workers 1, 2, all
//	go run ./cmd/linesig-bench -short                # a quick check (CI)
package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	linesig "github.com/linesig/linesig/bindings/go"
	voi "github.com/oasisprotocol/curve25519-voi/primitives/ed25519"
)

type item struct {
	key, msg, sig []byte
	valid         bool // what was signed: false for a corrupted signature
}

// verifier is one implementation under test: it verifies items[lo:hi] on one goroutine
// and writes each verdict into out.
type verifier interface {
	name() string
	verifyChunk(items []item, out []bool)
}

func main() {
	count := flag.Int("count", 50000, "signatures")
	perKey := flag.Int("per-key", 4, "messages per key")
	msgSize := flag.Int("msg-size", 32, "bytes per message")
	workersFlag := flag.String("workers", "", "worker counts (default 1, 2 and all cores)")
	batchesFlag := flag.String("batches", "64,128,256,512,1024,2048", "batch sizes")
	rounds := flag.Int("rounds", 3, "runs of each cell (the median is reported)")
	invalid := flag.Float64("invalid", 0, "fraction of signatures to corrupt (each must be reported invalid)")
	seed := flag.Int64("seed", 1, "seed for keys and messages")
	policyName := flag.String("policy", "strict", "linesig's policy: strict, zip215 or zip215-strict")
	short := flag.Bool("short", false, "a quick check: 4,000 signatures, batches 64 and 512, one round")
	jsonOut := flag.Bool("json", false, "one JSON object per cell on stdout instead of the table")
	withVoi := flag.Bool("voi", true, "measure curve25519-voi beside linesig")
	engineWorkers := flag.Int("engine-workers", 1, "linesig engine's worker threads (0: all cores); 1 leaves the parallelism to the goroutines")
	flag.Parse()
	if *short {
		*count, *batchesFlag, *rounds = 4000, "64,512", 1
	}
	policy, ok := map[string]linesig.Policy{"strict": linesig.Strict, "zip215": linesig.Zip215, "zip215-strict": linesig.Zip215Strict}[*policyName]
	if !ok || *count < 1 || *perKey < 1 || *rounds < 1 || *invalid < 0 || *invalid > 1 || *engineWorkers < 0 {
		fail("bad flags: -policy is strict, zip215 or zip215-strict; -count, -per-key, -rounds ≥ 1; 0 ≤ -invalid ≤ 1; -engine-workers ≥ 0")
	}
	workers := parseList(*workersFlag)
	if len(workers) == 0 {
		workers = uniqueSorted([]int{1, 2, runtime.NumCPU()})
	}
	batches := parseList(*batchesFlag)

	items, signRate := makeItems(*count, *perKey, *msgSize, *invalid, *seed)
	report := func(format string, args ...any) {
		if !*jsonOut {
			fmt.Printf(format, args...)
		}
	}
	report("linesig-bench (Go %s, %d CPUs, linesig %s): %d Ed25519 signatures, %d messages per key, %d-byte messages, %.0f%% corrupted\n",
		runtime.Version(), runtime.NumCPU(), linesig.Version(), *count, *perKey, *msgSize, 100**invalid)
	report("signing (crypto/ed25519, one goroutine): %.0f sigs/s\n", signRate)

	var cached *voiCached
	if *withVoi {
		cached = newVoiCached(items)
	}
	success := true
	best := map[string]cell{}
	if *withVoi {
		report("%7s %6s  %14s  %14s  %14s  %9s\n", "workers", "batch", "linesig", "voi", "voi cached", "linesig/voi")
	} else {
		report("%7s %6s  %14s\n", "workers", "batch", "linesig")
	}
	for _, w := range workers {
		for _, b := range batches {
			cells := runCell(items, policy, *engineWorkers, w, b, *rounds, cached)
			for _, c := range cells {
				success = success && c.VerdictsOK
				if *jsonOut {
					line, _ := json.Marshal(c)
					fmt.Println(string(line))
				}
				if key := fmt.Sprintf("%s/%d", c.Impl, w); c.SigsPerSec > best[key].SigsPerSec {
					best[key] = c
				}
			}
			if len(cells) == 3 {
				report("%7d %6d  %10.0f/s  %10.0f/s  %10.0f/s  %8.2fx\n", w, b, cells[0].SigsPerSec, cells[1].SigsPerSec,
					cells[2].SigsPerSec, cells[0].SigsPerSec/max(cells[1].SigsPerSec, cells[2].SigsPerSec))
			} else {
				report("%7d %6d  %10.0f/s\n", w, b, cells[0].SigsPerSec)
			}
		}
	}
	for _, w := range workers {
		l, v, c := best[fmt.Sprintf("linesig/%d", w)], best[fmt.Sprintf("voi/%d", w)], best[fmt.Sprintf("voi-cached/%d", w)]
		if !*withVoi {
			report("best on %d worker(s): linesig %.0f/s (batch %d)\n", w, l.SigsPerSec, l.Batch)
			continue
		}
		if c.SigsPerSec > v.SigsPerSec {
			v = c
		}
		report("best on %d worker(s): linesig %.0f/s (batch %d), %s %.0f/s (batch %d): %.2fx\n",
			w, l.SigsPerSec, l.Batch, v.Impl, v.SigsPerSec, v.Batch, l.SigsPerSec/v.SigsPerSec)
	}
	if success {
		report("STATUS: SUCCESS\n")
	} else {
		report("STATUS: FAILURE (a verdict differs from what was signed)\n")
		os.Exit(1)
	}
}

// runCell measures linesig (and voi, when cached is not nil) with w goroutines pulling
// batches of b items.
func runCell(items []item, policy linesig.Policy, engineWorkers, w, b, rounds int, cached *voiCached) []cell {
	// By default the goroutines are the parallelism, as they are for voi: an engine of
	// one worker whose unit holds the whole batch runs each Verify on the calling
	// goroutine's thread, with no hand-off to a pool.
	engine, err := linesig.NewEngine(linesig.Config{Policy: policy, Workers: engineWorkers, BatchSize: unitSize(engineWorkers, b)})
	if err != nil {
		fail(err.Error())
	}
	defer engine.Close()
	impls := []verifier{&linesigVerifier{engine: engine, batch: b}}
	if cached != nil {
		impls = append(impls, &voiVerifier{}, cached)
	}
	cells := make([]cell, len(impls))
	for i, impl := range impls {
		rate, ok := measure(impl, items, w, b, rounds)
		cells[i] = cell{Impl: impl.name(), Workers: w, Batch: b, SigsPerSec: rate, VerdictsOK: ok}
	}
	return cells
}

// unitSize is the engine's work unit: the whole batch on a one-worker engine (so each
// Verify runs inline on its goroutine's thread), else the engine's default.
func unitSize(engineWorkers, batch int) int {
	if engineWorkers == 1 {
		return batch
	}
	return 512
}

// cell is one (implementation, workers, batch) measurement: the median of the rounds.
type cell struct {
	Impl       string  `json:"impl"`
	Workers    int     `json:"workers"`
	Batch      int     `json:"batch"`
	SigsPerSec float64 `json:"sigs_per_sec"`
	VerdictsOK bool    `json:"verdicts_ok"`
}

// measure runs impl over all items with `workers` goroutines pulling batches of `batch`
// items, `rounds` times; the median rate, and whether every verdict was what was signed.
func measure(impl verifier, items []item, workers, batch, rounds int) (float64, bool) {
	verdicts := make([]bool, len(items))
	rates := make([]float64, rounds)
	ok := true
	for r := range rates {
		clear(verdicts)
		var next atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for g := 0; g < workers; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					lo := int(next.Add(int64(batch))) - batch
					if lo >= len(items) {
						return
					}
					hi := min(lo+batch, len(items))
					impl.verifyChunk(items[lo:hi], verdicts[lo:hi])
				}
			}()
		}
		wg.Wait()
		rates[r] = float64(len(items)) / time.Since(start).Seconds()
		for i, it := range items {
			ok = ok && verdicts[i] == it.valid
		}
	}
	slices.Sort(rates)
	return rates[len(rates)/2], ok
}

// linesigVerifier: a BatchVerifier per goroutine (reused through Reset), one shared
// engine.
type linesigVerifier struct {
	engine *linesig.Engine
	batch  int
	pool   sync.Pool
}

func (l *linesigVerifier) name() string { return "linesig" }

func (l *linesigVerifier) verifyChunk(items []item, out []bool) {
	v, _ := l.pool.Get().(*linesig.BatchVerifier)
	if v == nil {
		v = l.engine.NewBatchVerifierWithCapacity(l.batch)
	}
	v.Reset()
	for _, it := range items {
		if err := v.Add(it.key, it.msg, it.sig); err != nil {
			fail(err.Error())
		}
	}
	_, verdicts := v.Verify()
	copy(out, verdicts)
	l.pool.Put(v)
}

// voiVerifier: voi's BatchVerifier, items sorted by key in the batch (the founding
// program's order), keys expanded per batch as voi's Add does.
type voiVerifier struct{}

func (*voiVerifier) name() string { return "voi" }

func (v *voiVerifier) verifyChunk(items []item, out []bool) {
	order := byKey(items)
	b := voi.NewBatchVerifierWithCapacity(len(items))
	for _, i := range order {
		b.Add(items[i].key, items[i].msg, items[i].sig)
	}
	_, verdicts := b.Verify(nil)
	for j, i := range order {
		out[i] = verdicts[j]
	}
}

// voiCached: the same with every key expanded once, up front, outside the timing (what a
// validator with a key cache gives voi).
type voiCached struct {
	expanded map[string]*voi.ExpandedPublicKey
}

func newVoiCached(items []item) *voiCached {
	c := &voiCached{expanded: map[string]*voi.ExpandedPublicKey{}}
	for _, it := range items {
		if _, ok := c.expanded[string(it.key)]; !ok {
			x, err := voi.NewExpandedPublicKey(it.key)
			if err != nil {
				fail(err.Error())
			}
			c.expanded[string(it.key)] = x
		}
	}
	return c
}

func (*voiCached) name() string { return "voi-cached" }

func (c *voiCached) verifyChunk(items []item, out []bool) {
	order := byKey(items)
	b := voi.NewBatchVerifierWithCapacity(len(items))
	for _, i := range order {
		b.AddExpanded(c.expanded[string(items[i].key)], items[i].msg, items[i].sig)
	}
	_, verdicts := b.Verify(nil)
	for j, i := range order {
		out[i] = verdicts[j]
	}
}

// byKey is the items' indices sorted by public key.
func byKey(items []item) []int {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bytes.Compare(items[order[a]].key, items[order[b]].key) < 0 })
	return order
}

// makeItems signs count seeded messages, perKey per key, and corrupts a seeded fraction;
// it returns them and the signing rate.
func makeItems(count, perKey, msgSize int, invalid float64, seed int64) ([]item, float64) {
	rng := rand.New(rand.NewSource(seed))
	items := make([]item, count)
	var key ed25519.PrivateKey
	start := time.Now()
	for i := range items {
		if i%perKey == 0 {
			s := make([]byte, ed25519.SeedSize)
			rng.Read(s)
			key = ed25519.NewKeyFromSeed(s)
		}
		msg := make([]byte, msgSize)
		rng.Read(msg)
		items[i] = item{key: key.Public().(ed25519.PublicKey), msg: msg, sig: ed25519.Sign(key, msg), valid: true}
	}
	rate := float64(count) / time.Since(start).Seconds()
	for i := range items {
		if rng.Float64() < invalid {
			items[i].sig[rng.Intn(64)] ^= 1 << rng.Intn(8)
			items[i].valid = false
		}
	}
	return items, rate
}

func parseList(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fail(fmt.Sprintf("not a positive number: %q", f))
		}
		out = append(out, n)
	}
	return out
}

func uniqueSorted(xs []int) []int {
	slices.Sort(xs)
	return slices.Compact(xs)
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "linesig-bench:", msg)
	os.Exit(2)
}
