## The founding benchmark, rebuilt on linesig's C ABI: the operations the nim-leansig
## program timed over its `libleansig_ffi`, with its report (average, min, max, cycles
## per operation, iterations, a throughput table), and what it could not do: a batch
## verified on all cores and aggregated.
##
##   leanSig L18: key generation for 100 epochs, signing, verification;
##   leanSig devnet-4 (the lean consensus instance, standing in for the original's
##   XMSS multisig rows): key generation, signing, verification, aggregating 2
##   signatures, verifying the aggregate; a batch of N (default 1,024) verified on all
##   cores and aggregated.
##
## Cycles come from the time-stamp counter, whose rate is measured against the
## monotonic clock at start (the original multiplied time by a fixed 1,700 MHz).
## `--short` runs each operation once (the tests' smoke run); `--batch N` sets the
## batch; `--machine` also prints one `op` line per operation for scripts.
##
## Build and run: nim c -d:release -r bindings/nim/founding_bench.nim [--short]

import std/[algorithm, cpuinfo, monotimes, os, parseopt, strformat, strutils, times]
import linesig

when defined(amd64) or defined(i386):
  proc rdtsc(): uint64 {.importc: "__rdtsc", header: "<x86intrin.h>".}
else:
  proc rdtsc(): uint64 = uint64(getMonoTime().ticks)

type
  Result = object
    name: string
    iterations: int
    seconds: seq[float]
    cycles: seq[float]

var results: seq[Result]
var tscHz = 1.0

proc measureTsc() =
  let t0 = getMonoTime()
  let c0 = rdtsc()
  sleep(200)
  let c1 = rdtsc()
  let t1 = getMonoTime()
  tscHz = float(c1 - c0) / ((t1 - t0).inNanoseconds.float / 1e9)

template bench(label: string, iters, warmup: int, body: untyped) =
  for _ in 0 ..< warmup:
    body
  var r = Result(name: label, iterations: iters)
  for _ in 0 ..< iters:
    let t0 = getMonoTime()
    let c0 = rdtsc()
    body
    let c1 = rdtsc()
    let t1 = getMonoTime()
    r.seconds.add (t1 - t0).inNanoseconds.float / 1e9
    r.cycles.add float(c1 - c0)
  results.add r

proc mean(xs: seq[float]): float =
  for x in xs: result += x
  result /= xs.len.float

proc ms(s: float): string = formatFloat(s * 1e3, ffDecimal, 2) & " ms"

proc grouped(x: float): string =
  ## 347021000.0 -> "347,021,000"
  let digits = $int64(x)
  for i, c in digits:
    if i > 0 and (digits.len - i) mod 3 == 0: result.add ','
    result.add c

proc cpuModel(): string =
  ## "AMD EPYC (family 25, model 17)": the model name alone is often generic on clouds.
  var name, family, model = ""
  try:
    for line in lines("/proc/cpuinfo"):
      let value = if ':' in line: line.split(":", 1)[1].strip else: ""
      if line.startsWith("model name") and name == "": name = value
      elif line.startsWith("cpu family") and family == "": family = value
      elif line.startsWith("model\t") and model == "": model = value
      if line.len == 0 and name != "": break
  except IOError:
    discard
  if name == "": "unknown CPU" else: &"{name} (family {family}, model {model})"

proc main() =
  var short = false
  var machine = false
  var batch = 1024
  for kind, key, val in getopt():
    case key
    of "short": short = true
    of "machine": machine = true
    of "batch": batch = parseInt(val)
    else:
      quit(&"unknown option {key} (use --short, --batch N, --machine)", 2)
  if short and batch == 1024: batch = 16
  let it = proc (full, quick: int): int = (if short: quick else: full)
  let warm = proc (n: int): int = (if short: 0 else: n)
  measureTsc()

  # leanSig L18 (what nim-leansig wraps): one thread, one call at a time.
  var message = newSeq[byte](32)
  for i in 0 ..< 32: message[i] = byte(i * 7)
  var seed = newSeq[byte](32)
  var l18Keys: seq[LeansigKey]
  bench("LeanSig Keypair Gen (L18, 100 epochs)", it(10, 1), warm(3)):
    seed[0] = byte(l18Keys.len)
    l18Keys.add leansigKeygen(leansigL18, 0, 100, seed)
  var l18 = leansigKeygen(leansigL18, 0, 100)
  let l18Pk = l18.publicKey
  var epoch = 0'u32
  var l18Sig: seq[byte]
  bench("LeanSig Signing (L18)", it(30, 3), warm(3)):
    l18Sig = l18.sign(epoch, message)
    inc epoch
  let one = newEngine(leansigL18, workers = 1)
  let l18Ctx = epochContext(epoch - 1)
  bench("LeanSig Verification (L18)", it(30, 3), warm(3)):
    doAssert one.verify([l18Pk], [message], [l18Sig], [l18Ctx])[0] == 0

  # devnet-4: keys, signing, verification, aggregation of 2.
  var d4Keys: seq[LeansigKey]
  bench("devnet-4 Keypair Gen (131,072 epochs prepared)", it(2, 1), 0):
    seed[0] = byte(100 + d4Keys.len)
    d4Keys.add leansigKeygen(leansigDevnet4, 0, 1, seed)
  var d4 = move d4Keys[0]
  let d4Pk = d4.publicKey
  var sigs: seq[seq[byte]]
  var epochs: seq[uint32]
  var d4Epoch = 0'u32
  bench("devnet-4 Signing", it(20, 2), warm(3)):
    sigs.add d4.sign(d4Epoch, message)
    epochs.add d4Epoch
    inc d4Epoch
  let d4One = newEngine(leansigDevnet4, workers = 1)
  let d4Ctx = epochContext(epochs[^1])
  bench("devnet-4 Verification", it(20, 2), warm(3)):
    doAssert d4One.verify([d4Pk], [message], [sigs[^1]], [d4Ctx])[0] == 0
  let pair = @[d4Pk, d4Pk]
  let pairMsgs = @[message, message]
  let pairEpochs = epochs[^2 .. ^1]
  let pairSigs = sigs[^2 .. ^1]
  var proof: seq[byte]
  bench("Aggregate 2 Sigs (devnet-4)", it(5, 1), warm(1)):
    proof = aggregate(leansigDevnet4, pair, pairMsgs, pairEpochs, pairSigs)
  bench("Verify Aggregated (2 signers)", it(5, 1), warm(1)):
    doAssert verifyAggregate(leansigDevnet4, pair, pairMsgs, pairEpochs, proof)
  let proof2 = proof.len

  # A batch: one key signs `batch` epochs; all cores verify and aggregate them.
  var bKeys, bMsgs, bSigs, bCtx: seq[seq[byte]]
  var bEpochs: seq[uint32]
  for i in 0 ..< batch:
    var m = message
    m[0] = byte(i and 0xff)
    m[1] = byte(i shr 8)
    bSigs.add d4.sign(d4Epoch, m)
    bKeys.add d4Pk
    bMsgs.add m
    bEpochs.add d4Epoch
    bCtx.add epochContext(d4Epoch)
    inc d4Epoch
  let all = newEngine(leansigDevnet4)
  bench(&"Batch Verify {batch} (devnet-4, all cores)", it(5, 1), warm(1)):
    for v in all.verify(bKeys, bMsgs, bSigs, bCtx): doAssert v == 0
  bench(&"Aggregate {batch} Sigs (devnet-4)", 1, 0):
    proof = aggregate(leansigDevnet4, bKeys, bMsgs, bEpochs, bSigs)
  bench(&"Verify Aggregated ({batch} signers)", it(3, 1), 0):
    doAssert verifyAggregate(leansigDevnet4, bKeys, bMsgs, bEpochs, proof)

  # The report.
  echo "# linesig founding benchmark (Nim over the C ABI)"
  echo ""
  echo &"- CPU: {cpuModel()} ({countProcessors()} logical CPUs)"
  echo &"- linesig {version()}, Nim {NimVersion}, engine backend {all.backend}"
  echo &"- Clock: time-stamp counter, measured at {tscHz / 1e9:.3f} GHz against the monotonic clock"
  echo &"- Proofs: {proof2} bytes for 2 signers, {proof.len} bytes for {batch}"
  echo &"- Command: {getAppFilename().extractFilename} {commandLineParams().join(\" \")}"
  for r in results:
    echo ""
    echo "### ", r.name
    echo "- Average: ", ms(mean(r.seconds))
    echo "- Min: ", ms(min(r.seconds))
    echo "- Max: ", ms(max(r.seconds))
    echo "- CPU Cycles/Op: ~", grouped(mean(r.cycles)), " cycles"
    echo "- Iterations: ", r.iterations
  echo ""
  echo "## Throughput"
  echo ""
  echo "| Operation | Throughput |"
  echo "|-----------|------------|"
  for r in results:
    let rate = 1.0 / mean(r.seconds)
    let shown = if rate >= 100: grouped(rate) else: formatFloat(rate, ffDecimal, 2)
    var extra = ""
    if r.name.startsWith("Batch Verify") or r.name.startsWith(&"Aggregate {batch}"):
      extra = &" ({grouped(rate * batch.float)} signatures/s)"
    echo &"| {r.name} | {shown} ops/s{extra} |"
  if machine:
    echo ""
    for r in results:
      var sorted = r.seconds
      sorted.sort()
      echo &"op\t{r.name}\t{mean(r.seconds)*1e3:.4f}\t{sorted[sorted.len div 2]*1e3:.4f}\t{min(r.seconds)*1e3:.4f}\t{r.iterations}"

main()
