## linesig from Nim: verdicts on the shared leanSig vectors (devnet-4 and L18, every
## case, the reference's expectation), a corrupted signature, a key saved and reloaded
## that still refuses its used epoch, aggregation both ways, ML-DSA keys and signing,
## Ed25519 (RFC 8032 TEST 1), and bad input through the raw C calls: each a typed
## status with a reason, never a crash.

import std/[json, os, strutils, unittest]
import linesig

proc unhex(s: string): seq[byte] =
  result = newSeq[byte](s.len div 2)
  for i in 0 ..< result.len: result[i] = byte(parseHexInt(s[2*i .. 2*i+1]))

proc vectorsDir(): string =
  let env = getEnv("LINESIG_VECTORS_DIR")
  if env.len > 0: env
  else: currentSourcePath().parentDir() / ".." / ".." / ".." / ".." / "shared" / "vectors"

template expectStatus(expected: Status, body: untyped) =
  ## `body` raises LinesigError with status `expected` and a reason.
  try:
    body
    checkpoint("no error raised")
    fail()
  except LinesigError as e:
    check e.status == expected
    check e.msg.len > 0

suite "leanSig vectors":
  for (file, scheme) in [("leansig_devnet4_c08a3ba_L32_dim46.json", leansigDevnet4),
                         ("leansig_legacy_73bedc2_L18_dim64.json", leansigL18)]:
    test file:
      let doc = parseJson(readFile(vectorsDir() / "leansig" / file))
      var keys, msgs, sigs, ctxs: seq[seq[byte]]
      var expected: seq[bool]
      for c in doc["cases"]:
        keys.add unhex(c["public_key"].getStr)
        msgs.add unhex(c["message"].getStr)
        sigs.add unhex(c["signature"].getStr)
        ctxs.add epochContext(uint32(c["epoch"].getInt))
        # The spec's verdict where it and the reference part (non-canonical elements).
        let want = if c.hasKey("expected_spec"): c["expected_spec"] else: c["expected_reference"]
        expected.add want.getBool
      check keys.len >= 10
      let engine = newEngine(scheme)
      let verdicts = engine.verify(keys, msgs, sigs, ctxs)
      for i, v in verdicts:
        check (v == 0) == expected[i]
      # A corrupted copy of the first valid signature: rejected with a reason.
      let valid = expected.find(true)
      var bad = sigs[valid]
      bad[bad.len div 2] = bad[bad.len div 2] xor 0x40
      let one = engine.verify([keys[valid]], [msgs[valid]], [bad], [ctxs[valid]])
      check one[0] != 0
      check reasonName(one[0]) in ["equation_failed", "non_canonical_encoding", "bad_length"]

proc yamlFields(path: string): seq[(string, string)] =
  ## A leanXMSS data.yaml's `key: value` lines, quotes and 0x dropped.
  for line in readFile(path).splitLines:
    let parts = line.strip.split(": ", maxsplit = 1)
    if parts.len == 2:
      result.add (parts[0], parts[1].strip(chars = {'\''}).replace("0x", ""))

proc field(fields: seq[(string, string)], key: string): string =
  for (k, v) in fields:
    if k == key: return v
  raise newException(KeyError, key)

suite "leanXMSS vectors":
  test "verify_valid, tampered and at another epoch":
    let c = yamlFields(vectorsDir() / "leanxmss" / "verify" / "verify_valid" / "data.yaml")
    let (key, msg, sig) = (unhex(c.field("public_key")), unhex(c.field("message")),
                           unhex(c.field("signature")))
    let epoch = uint32(parseInt(c.field("epoch")))
    check publicKeyLen(leanxmss) == 32 and signatureLen(leanxmss) == 1208
    var bad = sig
    bad[0] = bad[0] xor 1
    let engine = newEngine(leanxmss)
    let verdicts = engine.verify([key, key, key], [msg, msg, msg], [sig, bad, sig],
                                 [epochContext(epoch), epochContext(epoch), epochContext(epoch + 1)])
    check verdicts[0] == 0
    check reasonName(verdicts[1]) == "equation_failed"
    check reasonName(verdicts[2]) == "equation_failed"

suite "leanSig keys":
  test "sign, save, reload: the used epoch stays used":
    var seed = newSeq[byte](32)
    seed[0] = 9
    var key = leansigKeygen(leansigL18, 0, 100, seed)
    let info = key.info
    check info.activationStart == 0 and info.activationEnd == 1024
    let message = newSeq[byte](32)
    let sig = key.sign(5, message)
    let saved = key.toBytes()
    var loaded = leansigKeyFromBytes(leansigL18, saved)
    check loaded.publicKey == key.publicKey
    check loaded.info.nextEpoch == 6
    expectStatus(epochUsed): discard loaded.sign(5, message)
    expectStatus(epochOutOfRange): discard loaded.sign(4000, message)
    let later = loaded.sign(6, message)
    let engine = newEngine(leansigL18)
    let verdicts = engine.verify([key.publicKey, key.publicKey], [message, message],
                                 [sig, later], [epochContext(5), epochContext(6)])
    check verdicts == @[0'u8, 0'u8]
    check not loaded.advancePreparation()   # two bottom trees: nowhere to slide
    var damaged = saved
    damaged[damaged.len div 3] = damaged[damaged.len div 3] xor 1
    expectStatus(badKey): discard leansigKeyFromBytes(leansigL18, damaged)
    expectStatus(badKey): discard leansigKeyFromBytes(leansigL18, saved[0 ..< 100])
    expectStatus(badKey): discard leansigKeyFromBytes(leansigDevnet4, saved)
    expectStatus(badKey): discard leansigKeyFromBytes(leansigL18, @[byte 1, 2, 3])
    expectStatus(unknownScheme): discard leansigKeyFromBytes(mldsa44, saved)
    expectStatus(badLength): discard leansigKeygen(leansigL18, 0, 10, @[byte 1])
    expectStatus(epochOutOfRange): discard leansigKeygen(leansigL18, 0, 0)
    expectStatus(badLength): discard key.sign(7, newSeq[byte](31))

  test "a key file signs each epoch once: saved in sign, never overwritten":
    var seed = newSeq[byte](32)
    seed[0] = 11
    let key = leansigKeygen(leansigL18, 0, 100, seed)
    let dir = getTempDir() / ("linesig-nim-" & $getCurrentProcessId())
    createDir(dir)
    defer: removeDir(dir)
    let path = dir / "k.key"
    key.createKeyFile(path)
    expectStatus(ioError): key.createKeyFile(path)
    let message = newSeq[byte](32)
    var sig: seq[byte]
    block:
      var file = openLeansigKeyFile(leansigL18, path)
      sig = file.sign(9, message)
      check file.info.nextEpoch == 10
      file.close()
    var again = openLeansigKeyFile(leansigL18, path)
    check again.info.nextEpoch == 10
    expectStatus(epochUsed): discard again.sign(9, message)
    again.close()   # the next open would wait for this handle's lock
    let engine = newEngine(leansigL18)
    check engine.verify([key.publicKey], [message], [sig], [epochContext(9)]) == @[0'u8]
    expectStatus(ioError): discard openLeansigKeyFile(leansigL18, dir / "none.key")
    expectStatus(badKey): discard openLeansigKeyFile(leansigDevnet4, path)

  test "aggregation: a proof for its list only, the failing signature named":
    let doc = parseJson(readFile(vectorsDir() / "leansig" / "leansig_devnet4_c08a3ba_L32_dim46.json"))
    var keys, msgs, sigs: seq[seq[byte]]
    var epochs: seq[uint32]
    for c in doc["cases"]:
      if c["expected_spec"].getBool and keys.len < 2:
        keys.add unhex(c["public_key"].getStr)
        msgs.add unhex(c["message"].getStr)
        sigs.add unhex(c["signature"].getStr)
        epochs.add uint32(c["epoch"].getInt)
    check keys.len == 2
    let proof = aggregate(leansigDevnet4, keys, msgs, epochs, sigs)
    check verifyAggregate(leansigDevnet4, keys, msgs, epochs, proof)
    var other = epochs
    other[1] = other[1] + 1
    check not verifyAggregate(leansigDevnet4, keys, msgs, other, proof)
    check not verifyAggregate(leansigDevnet4, [keys[1], keys[0]], [msgs[1], msgs[0]],
                              [epochs[1], epochs[0]], proof)
    expectStatus(malformedProof):
      discard verifyAggregate(leansigDevnet4, keys, msgs, epochs, proof[0 ..< 40])
    var bad = sigs
    bad[1][100] = bad[1][100] xor 1
    try:
      discard aggregate(leansigDevnet4, keys, msgs, epochs, bad)
      fail()
    except LinesigError as e:
      check e.status == invalidItem
      check e.failedIndex == 1
    expectStatus(unknownScheme): discard aggregate(leansigL18, keys, msgs, epochs, sigs)
    expectStatus(badLength): discard aggregate(leansigDevnet4, @[], @[], @[], @[])

suite "ML-DSA and Ed25519":
  test "ML-DSA-44: keys from a seed, hedged and deterministic signatures verify":
    var seed = newSeq[byte](32)
    let (pk, sk) = mldsaKeygen(mldsa44, seed)
    check pk.len == 1312 and sk.len == 2560
    let msg = @[byte 1, 2, 3]
    let ctx = @[byte 7]
    let d1 = mldsaSign(mldsa44, sk, msg, ctx)
    let d2 = mldsaSign(mldsa44, sk, msg, ctx)
    check d1 == d2
    let h = mldsaSign(mldsa44, sk, msg, ctx, newSeq[byte](32))
    let engine = newEngine(mldsa44)
    check engine.verify([pk, pk, pk], [msg, msg, msg], [d1, h, d1], [ctx, ctx, @[byte 8]]) ==
      @[0'u8, 0'u8, 8'u8]
    expectStatus(badLength): discard mldsaSign(mldsa44, sk, msg, newSeq[byte](256))
    expectStatus(unknownScheme): discard mldsaKeygen(leansigL18, seed)

  test "Ed25519 RFC 8032 TEST 1 and engine errors with reasons":
    let pk = unhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    let sig = unhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    let engine = newEngine()
    check engine.backend.len > 0
    check engine.verify([pk, pk], [newSeq[byte](), @[byte 1]], [sig, sig]) == @[0'u8, 8'u8]
    try:
      discard newEngine(mldsa44, policy = 1)
      fail()
    except LinesigError as e:
      check e.status == invalidConfig
      check "Ed25519 policy" in e.msg
    expectStatus(invalidConfig): discard newEngine(keyCacheBytes = 1000)

suite "raw C calls: null pointers and wrong lengths":
  test "every new function refuses nil":
    var handle: pointer
    check linesig_leansig_keygen(6, nil, 32, 0, 10, addr handle) == ord(nullPointer)
    check linesig_leansig_keygen(6, nil, 0, 0, 10, nil) == ord(nullPointer)
    check linesig_leansig_sign(nil, 0, nil, 32, nil, 0) == ord(nullPointer)
    check linesig_leansig_public_key(nil, nil, 48) == ord(nullPointer)
    check linesig_leansig_key_info(nil, nil) == ord(nullPointer)
    check linesig_leansig_advance_preparation(nil, nil) == ord(nullPointer)
    check linesig_leansig_key_to_bytes(nil, nil) == ord(nullPointer)
    check linesig_leansig_key_from_bytes(6, nil, 5, addr handle) == ord(nullPointer)
    check linesig_leansig_aggregate(5, 2, nil, nil, nil, nil, nil, nil) == ord(nullPointer)
    var proof: LinesigBuffer
    check linesig_leansig_aggregate(5, 2, nil, nil, nil, nil, addr proof, nil) == ord(nullPointer)
    check linesig_leansig_verify_aggregate(5, 2, nil, nil, nil, nil, 0, nil) == ord(nullPointer)
    check linesig_mldsa_keygen(2, nil, 32, nil, 0, nil, 0) == ord(nullPointer)
    check linesig_mldsa_sign(2, nil, 2560, nil, 0, nil, 0, nil, 0, nil, 0) == ord(nullPointer)
    check "null pointer" in $linesig_last_error_message()
    check linesig_verify(nil, 1, nil, nil, nil, nil, nil) == ord(nullPointer)
    check linesig_engine_new(nil, addr handle) == ord(nullPointer)
    linesig_buffer_free(nil)
    linesig_leansig_key_free(nil)
    linesig_engine_free(nil)
