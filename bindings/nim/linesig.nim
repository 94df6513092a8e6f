## linesig for Nim: batch verification (Ed25519, ML-DSA, leanSig, leanXMSS), leanSig keys,
## signing and aggregation, ML-DSA keys and signing, over linesig's C ABI
## (crates/linesig-ffi, `include/linesig.h`).
##
## Every failure raises `LinesigError` with the C ABI's status and linesig's reason
## (`linesig_last_error_message`); a verdict is never an exception: `verify` returns
## one code per item (0 valid, else `reasonName(code)`).
##
## Build the static library first (`cargo build --release -p linesig-ffi`); this
## module links `target/release/liblinesig_ffi.a` from the checkout, or the file named
## by `-d:linesigLib=/path/liblinesig_ffi.a`. Nim 1.6 or newer, `--gc:orc` (see
## config.nims): engines and keys free themselves when they go out of scope.

import std/os

const linesigLib* {.strdefine.} =
  currentSourcePath().parentDir() / ".." / ".." / "target" / "release" / "liblinesig_ffi.a"

{.passL: linesigLib & " -lpthread -ldl -lm".}

# ---------------------------------------------------------------------------
# The C ABI as declared in linesig.h (layouts must match it field for field).

type
  LinesigBytes* {.bycopy.} = object
    data*: ptr byte
    len*: csize_t
  LinesigBuffer* {.bycopy.} = object
    data*: ptr byte
    len*: csize_t
  LinesigConfig* {.bycopy.} = object
    scheme*, policy*, workers*, batchSize*, backend*: uint32
    keyCacheBytes*: uint64
    batchEquation*: uint32
  LinesigLeansigKeyInfo* {.bycopy.} = object
    scheme*: uint32
    activationStart*, activationEnd*: uint64
    preparedStart*, preparedEnd*: uint64
    nextEpoch*: uint64

{.push importc, cdecl.}
proc linesig_engine_new*(config: ptr LinesigConfig, res: ptr pointer): cint
proc linesig_engine_free*(engine: pointer)
proc linesig_verify*(engine: pointer, count: csize_t, publicKeys, messages, signatures,
                     contexts: ptr LinesigBytes, verdicts: ptr uint8): cint
proc linesig_engine_backend*(engine: pointer): cstring
proc linesig_reason_name*(code: uint8): cstring
proc linesig_status_message*(status: cint): cstring
proc linesig_last_error_message*(): cstring
proc linesig_version*(): cstring
proc linesig_scheme_name*(scheme: uint32): cstring
proc linesig_public_key_len*(scheme: uint32): csize_t
proc linesig_signature_len*(scheme: uint32): csize_t
proc linesig_buffer_free*(buffer: ptr LinesigBuffer)
proc linesig_leansig_keygen*(scheme: uint32, seed: ptr byte, seedLen: csize_t,
                             activationStart, activationEpochs: uint64, res: ptr pointer): cint
proc linesig_leansig_key_free*(key: pointer)
proc linesig_leansig_public_key*(key: pointer, publicKey: ptr byte, len: csize_t): cint
proc linesig_leansig_key_info*(key: pointer, info: ptr LinesigLeansigKeyInfo): cint
proc linesig_leansig_sign*(key: pointer, epoch: uint32, message: ptr byte, messageLen: csize_t,
                           signature: ptr byte, signatureLen: csize_t): cint
proc linesig_leansig_advance_preparation*(key: pointer, moved: ptr bool): cint
proc linesig_leansig_key_to_bytes*(key: pointer, res: ptr LinesigBuffer): cint
proc linesig_leansig_key_from_bytes*(scheme: uint32, bytes: ptr byte, len: csize_t,
                                     res: ptr pointer): cint
proc linesig_leansig_key_file_create*(key: pointer, path: cstring): cint
proc linesig_leansig_key_file_open*(scheme: uint32, path: cstring, res: ptr pointer): cint
proc linesig_leansig_key_file_sign*(file: pointer, epoch: uint32, message: ptr byte,
                                    messageLen: csize_t, signature: ptr byte,
                                    signatureLen: csize_t): cint
proc linesig_leansig_key_file_info*(file: pointer, info: ptr LinesigLeansigKeyInfo): cint
proc linesig_leansig_key_file_close*(file: pointer)
proc linesig_leansig_aggregate*(scheme: uint32, count: csize_t, publicKeys, messages: ptr LinesigBytes,
                                epochs: ptr uint32, signatures: ptr LinesigBytes,
                                proof: ptr LinesigBuffer, failedIndex: ptr csize_t): cint
proc linesig_leansig_verify_aggregate*(scheme: uint32, count: csize_t, publicKeys,
                                       messages: ptr LinesigBytes, epochs: ptr uint32,
                                       proof: ptr byte, proofLen: csize_t,
                                       failedIndex: ptr csize_t): cint
proc linesig_mldsa_signing_key_len*(scheme: uint32): csize_t
proc linesig_mldsa_keygen*(scheme: uint32, seed: ptr byte, seedLen: csize_t, publicKey: ptr byte,
                           publicKeyLen: csize_t, signingKey: ptr byte,
                           signingKeyLen: csize_t): cint
proc linesig_mldsa_sign*(scheme: uint32, signingKey: ptr byte, signingKeyLen: csize_t,
                         message: ptr byte, messageLen: csize_t, context: ptr byte,
                         contextLen: csize_t, randomness: ptr byte, randomnessLen: csize_t,
                         signature: ptr byte, signatureLen: csize_t): cint
{.pop.}

# ---------------------------------------------------------------------------
# Nim's face.

type
  Scheme* = enum
    ## The C ABI's scheme numbers.
    ed25519 = 1, mldsa44 = 2, mldsa65 = 3, mldsa87 = 4,
    leansigDevnet4 = 5, leansigL18 = 6, leansigL32 = 7,
    leanxmss = 8 ## the lean devnets' BLAKE2s XMSS; context: the epoch, as leanSig's

  Status* = enum
    ## The C ABI's status codes (`LINESIG_STATUS_*`).
    ok = 0, nullPointer, invalidConfig, unsupportedBackend, threadPool, internalError,
    notBuilt, unknownScheme, badLength, badKey, epochOutOfRange, epochUsed, invalidItem,
    proofRejected, malformedProof, signingFailed, aggregationNotBuilt, ioError

  LinesigError* = object of CatchableError
    ## A call that failed: `status` says what kind, `msg` linesig's reason.
    status*: Status
    failedIndex*: int ## the item at fault (aggregation), or -1

  Engine* = object
    ## A verifying engine: worker pool and configuration.
    handle: pointer
    scheme*: Scheme

  LeansigKey* = object
    ## A leanSig secret key with its signing state (see `sign`, `toBytes`).
    handle: pointer

  LeansigKeyFile* = object
    ## A leanSig key file open for signing: locked until closed or destroyed, saved
    ## before each signature is returned (see `openLeansigKeyFile`). A signer that keeps
    ## keys in its own store must do the same: a lock over load, sign and save, and the
    ## save before a signature leaves.
    handle: pointer

proc `=destroy`(e: var Engine) =
  if e.handle != nil:
    linesig_engine_free(e.handle)
    e.handle = nil

proc `=copy`(dst: var Engine, src: Engine) {.error: "an Engine owns its workers; pass it by var or move it".}

proc `=destroy`(k: var LeansigKey) =
  if k.handle != nil:
    linesig_leansig_key_free(k.handle)
    k.handle = nil

proc `=copy`(dst: var LeansigKey, src: LeansigKey) {.error: "a leanSig key must never be copied: two copies could sign one epoch twice".}

proc `=destroy`(f: var LeansigKeyFile) =
  if f.handle != nil:
    linesig_leansig_key_file_close(f.handle)
    f.handle = nil

proc `=copy`(dst: var LeansigKeyFile, src: LeansigKeyFile) {.error: "a key file handle holds its lock; move it".}

proc raiseStatus(status: cint, failedIndex = -1) {.noinline.} =
  let known = status >= 0 and status <= ord(high(Status))
  var e = newException(LinesigError, (if known: $Status(status) else: "status " & $status) &
    ": " & $linesig_last_error_message())
  e.status = if known: Status(status) else: internalError
  e.failedIndex = failedIndex
  raise e

template check(call: untyped) =
  let status = call
  if status != 0: raiseStatus(status)

proc first[T](s: openArray[T]): ptr T {.inline.} =
  ## The address of `s`'s first element, or nil when it is empty (the C ABI reads no
  ## entries then).
  if s.len == 0: nil else: unsafeAddr s[0]

proc view*(s: openArray[byte]): LinesigBytes {.inline.} =
  ## A borrowed view of `s` for the C ABI: valid while `s` is alive and unchanged.
  LinesigBytes(data: first(s), len: csize_t(s.len))

proc views(fields: openArray[seq[byte]]): seq[LinesigBytes] =
  # Index, not `for f in fields`: a loop variable may be a copy, and a view of a copy
  # dangles.
  result = newSeq[LinesigBytes](fields.len)
  for i in 0 ..< fields.len: result[i] = view(fields[i])

proc takeBuffer(b: var LinesigBuffer): seq[byte] =
  result = newSeq[byte](b.len.int)
  if b.len > 0: copyMem(addr result[0], b.data, b.len.int)
  linesig_buffer_free(addr b)

proc version*(): string = $linesig_version()
proc reasonName*(code: uint8): string = $linesig_reason_name(code)
  ## "valid", "bad_length", "equation_failed", …
proc name*(scheme: Scheme): string = $linesig_scheme_name(uint32(scheme))
proc publicKeyLen*(scheme: Scheme): int = linesig_public_key_len(uint32(scheme)).int
proc signatureLen*(scheme: Scheme): int = linesig_signature_len(uint32(scheme)).int

proc epochContext*(epoch: uint32): seq[byte] =
  ## A leanSig item's context: its epoch, four bytes little-endian.
  @[byte(epoch and 0xff), byte((epoch shr 8) and 0xff), byte((epoch shr 16) and 0xff),
    byte(epoch shr 24)]

# Engine --------------------------------------------------------------------

proc newEngine*(scheme = ed25519, workers = 0, batchSize = 0, policy = 0, backend = 0,
                keyCacheBytes = 0'u64, batchEquation = true): Engine =
  ## An engine for `scheme`. `workers` 0 = all cores; `policy` (Ed25519) 0 strict,
  ## 1 zip215, 2 zip215-strict; `backend` 0 automatic, 1 portable, 2 avx2, 3 avx512;
  ## `batchEquation` (zip215, zip215-strict): check each work unit with one randomized
  ## batch equation first, or (false) each signature alone. Same verdicts either way.
  var config = LinesigConfig(scheme: uint32(scheme), policy: uint32(policy),
    workers: uint32(workers), batchSize: uint32(batchSize), backend: uint32(backend),
    keyCacheBytes: keyCacheBytes, batchEquation: (if batchEquation: 1'u32 else: 2'u32))
  result.scheme = scheme
  check linesig_engine_new(addr config, addr result.handle)

proc backend*(e: Engine): string = $linesig_engine_backend(e.handle)

proc verify*(e: Engine, publicKeys, messages, signatures: openArray[seq[byte]],
             contexts: openArray[seq[byte]] = []): seq[uint8] =
  ## One verdict code per item, in input order (0 valid). leanSig items carry their
  ## epoch as a context (`epochContext`); ML-DSA ones their FIPS 204 context.
  let n = publicKeys.len
  if messages.len != n or signatures.len != n or (contexts.len != 0 and contexts.len != n):
    raise newException(ValueError, "verify: the field lists differ in length")
  result = newSeq[uint8](n)
  if n == 0: return
  var k = views(publicKeys)
  var m = views(messages)
  var s = views(signatures)
  var c = views(contexts)
  check linesig_verify(e.handle, csize_t(n), first(k), first(m), first(s), first(c),
    first(result))

# leanSig -------------------------------------------------------------------

proc leansigKeygen*(scheme: Scheme, activationStart, activationEpochs: uint64,
                    seed: openArray[byte] = []): LeansigKey =
  ## A key active over at least `activationEpochs` epochs from `activationStart` (whole
  ## bottom trees, at least two). `seed`: 32 bytes that fix the key, or empty for the
  ## operating system's randomness.
  check linesig_leansig_keygen(uint32(scheme), first(seed), csize_t(seed.len),
    activationStart, activationEpochs, addr result.handle)

proc leansigKeyFromBytes*(scheme: Scheme, bytes: openArray[byte]): LeansigKey =
  ## Load a key saved by `toBytes`; damaged or foreign bytes raise with status `badKey`.
  check linesig_leansig_key_from_bytes(uint32(scheme), first(bytes), csize_t(bytes.len),
    addr result.handle)

proc info*(k: LeansigKey): LinesigLeansigKeyInfo =
  check linesig_leansig_key_info(k.handle, addr result)

proc scheme*(k: LeansigKey): Scheme = Scheme(k.info.scheme)

proc publicKey*(k: LeansigKey): seq[byte] =
  result = newSeq[byte](k.scheme.publicKeyLen)
  check linesig_leansig_public_key(k.handle, addr result[0], csize_t(result.len))

proc sign*(k: var LeansigKey, epoch: uint32, message: openArray[byte]): seq[byte] =
  ## Sign the 32-byte `message` at `epoch`. Save the key (`toBytes`) before the
  ## signature leaves: a key reloaded from older bytes would sign an epoch again.
  result = newSeq[byte](k.scheme.signatureLen)
  check linesig_leansig_sign(k.handle, epoch, first(message), csize_t(message.len),
    addr result[0], csize_t(result.len))

proc advancePreparation*(k: var LeansigKey): bool =
  ## Slide the prepared interval by one bottom tree; false at the end of the key's life.
  check linesig_leansig_advance_preparation(k.handle, addr result)

proc toBytes*(k: LeansigKey): seq[byte] =
  ## The key and its state, in linesig's versioned, checksummed format.
  var b: LinesigBuffer
  check linesig_leansig_key_to_bytes(k.handle, addr b)
  b.takeBuffer()

proc createKeyFile*(k: LeansigKey, path: string) =
  ## Write `k` to a new key file at `path`, durably; an existing file raises with
  ## status `ioError` (a key file is never overwritten).
  check linesig_leansig_key_file_create(k.handle, cstring(path))

proc openLeansigKeyFile*(scheme: Scheme, path: string): LeansigKeyFile =
  ## Open and lock the key file at `path` (waiting while another signer, in any
  ## process, holds it) and load the key: `ioError` for a file that cannot be read,
  ## `badKey` for a damaged, foreign or other-scheme one. The lock is held until the
  ## handle is destroyed or `close`d.
  check linesig_leansig_key_file_open(uint32(scheme), cstring(path), addr result.handle)

proc info*(f: LeansigKeyFile): LinesigLeansigKeyInfo =
  check linesig_leansig_key_file_info(f.handle, addr result)

proc sign*(f: var LeansigKeyFile, epoch: uint32, message: openArray[byte]): seq[byte] =
  ## Sign the 32-byte `message` at `epoch`, saving the key file before the signature is
  ## returned (the protocol of `linesig sign`): the epoch rules of a key's `sign`;
  ## `ioError` if the save failed (no signature, the epoch used up all the same).
  result = newSeq[byte](Scheme(f.info.scheme).signatureLen)
  check linesig_leansig_key_file_sign(f.handle, epoch, first(message), csize_t(message.len),
    addr result[0], csize_t(result.len))

proc close*(f: var LeansigKeyFile) =
  ## Release the lock now (destroying the handle does too).
  if f.handle != nil:
    linesig_leansig_key_file_close(f.handle)
    f.handle = nil

proc aggregate*(scheme: Scheme, publicKeys, messages: openArray[seq[byte]],
                epochs: openArray[uint32], signatures: openArray[seq[byte]]): seq[byte] =
  ## One proof that every signature verifies (devnet-4). A signature that does not
  ## raises with status `invalidItem` and its index in `failedIndex`.
  let n = publicKeys.len
  if messages.len != n or epochs.len != n or signatures.len != n:
    raise newException(ValueError, "aggregate: the lists differ in length")
  var k = views(publicKeys)
  var m = views(messages)
  var s = views(signatures)
  var e = @epochs
  var proof: LinesigBuffer
  var failed: csize_t
  let status = linesig_leansig_aggregate(uint32(scheme), csize_t(n),
    first(k), first(m), first(e), first(s), addr proof, addr failed)
  if status != 0:
    raiseStatus(status, if failed == high(csize_t): -1 else: failed.int)
  proof.takeBuffer()

proc verifyAggregate*(scheme: Scheme, publicKeys, messages: openArray[seq[byte]],
                      epochs: openArray[uint32], proof: openArray[byte]): bool =
  ## Whether `proof` shows that each listed key signed its message at its epoch, in
  ## this order: false when it does not (`proofRejected`); other failures (a malformed
  ## proof, a signer that does not decode) raise.
  let n = publicKeys.len
  if messages.len != n or epochs.len != n:
    raise newException(ValueError, "verifyAggregate: the lists differ in length")
  var k = views(publicKeys)
  var m = views(messages)
  var e = @epochs
  var failed: csize_t
  let status = linesig_leansig_verify_aggregate(uint32(scheme), csize_t(n),
    first(k), first(m), first(e), first(proof), csize_t(proof.len), addr failed)
  if status == ord(proofRejected): return false
  if status != 0:
    raiseStatus(status, if failed == high(csize_t): -1 else: failed.int)
  true

# ML-DSA --------------------------------------------------------------------

proc mldsaKeygen*(scheme: Scheme, seed: openArray[byte]): tuple[publicKey, signingKey: seq[byte]] =
  ## FIPS 204 ML-DSA.KeyGen_internal from the 32-byte seed ξ.
  result.publicKey = newSeq[byte](scheme.publicKeyLen)
  result.signingKey = newSeq[byte](max(1, linesig_mldsa_signing_key_len(uint32(scheme)).int))
  check linesig_mldsa_keygen(uint32(scheme), first(seed), csize_t(seed.len),
    first(result.publicKey), csize_t(result.publicKey.len), first(result.signingKey),
    csize_t(result.signingKey.len))

proc mldsaSign*(scheme: Scheme, signingKey, message: openArray[byte],
                context: openArray[byte] = [], randomness: openArray[byte] = []): seq[byte] =
  ## FIPS 204 ML-DSA.Sign: hedged with 32 fresh `randomness` bytes, deterministic when
  ## `randomness` is empty.
  result = newSeq[byte](max(1, scheme.signatureLen))
  check linesig_mldsa_sign(uint32(scheme), first(signingKey), csize_t(signingKey.len),
    first(message), csize_t(message.len), first(context), csize_t(context.len),
    first(randomness), csize_t(randomness.len), addr result[0], csize_t(result.len))
