"""linesig.Engine from Python: every Ed25519 vector set's expected acceptance counts per
policy, verdicts equal to the CLI's on the same items, the same verdicts from lists,
numpy and Arrow columns (sliced, chunked, with nulls), and clear errors."""

import gzip
import json
import os
import pathlib
import subprocess

import numpy as np
import pyarrow as pa
import pytest

import linesig

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = pathlib.Path(os.environ.get("LINESIG_VECTORS_DIR", ROOT.parent / "shared" / "vectors"))
BINARY = pathlib.Path(os.environ.get("LINESIG_BIN", ROOT / "target" / "release" / "linesig"))


def cctv():
    cases = json.loads((VECTORS / "ed25519/cctv/ed25519vectors.json").read_text())
    return [(bytes.fromhex(c["key"]), c["msg"].encode(), bytes.fromhex(c["sig"])) for c in cases]


def wycheproof():
    doc = json.loads((VECTORS / "ed25519/wycheproof/ed25519_test.json").read_text())
    items = []
    for group in doc["testGroups"]:
        pk = bytes.fromhex(group["publicKey"]["pk"])
        for t in group["tests"]:
            items.append((pk, bytes.fromhex(t["msg"]), bytes.fromhex(t["sig"])))
    return items


def djb():
    items = []
    with gzip.open(VECTORS / "ed25519/djb/sign.input.gz", "rt") as f:
        for line in f:
            _, pk, msg, sig_msg, _ = line.split(":")
            items.append((bytes.fromhex(pk), bytes.fromhex(msg), bytes.fromhex(sig_msg)[:64]))
    return items


def columns(items):
    return [list(c) for c in zip(*items)]


# Expected acceptance counts from ../shared/vectors/ed25519/README.md.
EXPECTED = {
    "cctv": {"strict": 43, "zip215": 826, "zip215-strict": 106},
    "wycheproof": {"strict": 88, "zip215": 89, "zip215-strict": 88},
    "djb": {"strict": 128, "zip215": 128, "zip215-strict": 128},
}


@pytest.mark.parametrize("policy", ["strict", "zip215", "zip215-strict"])
@pytest.mark.parametrize("name,load", [("cctv", cctv), ("wycheproof", wycheproof), ("djb", djb)])
def test_vector_sets_accept_exactly_the_expected_counts(name, load, policy):
    engine = linesig.Engine(policy=policy, workers=2, batch_size=64)
    valid = engine.verify(*columns(load()))
    assert valid.dtype == np.bool_
    assert int(valid.sum()) == EXPECTED[name][policy]


def corrupted(items, seed=5):
    """Each item, plus one copy with a seeded bit flipped in key, message or signature."""
    rng = np.random.default_rng(seed)
    out = list(items)
    for pk, msg, sig in items:
        field = int(rng.integers(3))
        parts = [bytearray(pk), bytearray(msg), bytearray(sig)]
        if not parts[field]:
            field = 2
        bit = int(rng.integers(len(parts[field]) * 8))
        parts[field][bit // 8] ^= 1 << (bit % 8)
        out.append(tuple(bytes(p) for p in parts))
    return out


@pytest.mark.parametrize("policy", ["strict", "zip215", "zip215-strict"])
def test_verdicts_equal_the_cli(policy):
    assert BINARY.exists(), "build the CLI first (cargo build --release -p linesig-cli)"
    items = corrupted(cctv() + wycheproof() + djb())
    lines = "".join(
        json.dumps({"public_key": pk.hex(), "message": m.hex(), "signature": s.hex()}) + "\n"
        for pk, m, s in items
    )
    out = subprocess.run(
        [str(BINARY), "verify", "--policy", policy],
        input=lines, capture_output=True, text=True, check=True,
    )
    cli = [json.loads(line) for line in out.stdout.splitlines()]
    valid, codes = linesig.Engine(policy=policy).verify(*columns(items), reasons=True)
    assert len(cli) == len(items)
    assert [c["valid"] for c in cli] == valid.tolist()
    assert [c.get("reason", "valid") for c in cli] == [linesig.REASONS[int(c)] for c in codes]


def test_lists_numpy_and_arrow_give_the_same_codes():
    items = corrupted(wycheproof() + djb())
    # Fixed-width columns need fixed widths: keep 32-byte keys and 64-byte signatures.
    items = [it for it in items if len(it[0]) == 32 and len(it[2]) == 64]
    pks, msgs, sigs = columns(items)
    engine = linesig.Engine(workers=2)
    want = engine.verify_reasons(pks, msgs, sigs)
    assert (want == 0).sum() > 0 and (want != 0).sum() > 0
    as_u8 = lambda xs, w: np.frombuffer(b"".join(xs), dtype=np.uint8).reshape(-1, w)
    variants = [
        (tuple(pks), tuple(msgs), tuple(sigs)),
        (as_u8(pks, 32), msgs, as_u8(sigs, 64)),
        (np.array(pks, dtype="S32"), np.array(msgs, dtype=object), np.array(sigs, dtype="V64")),
        (pa.array(pks, pa.binary(32)), pa.array(msgs, pa.binary()), pa.array(sigs, pa.binary(64))),
        (pa.array(pks, pa.large_binary()), pa.array(msgs, pa.large_binary()), pa.array(sigs)),
        (
            pa.chunked_array([pks[:50], pks[50:]], pa.binary(32)),
            pa.chunked_array([msgs[:7], msgs[7:]]),
            pa.chunked_array([sigs[:100], sigs[100:]], pa.binary(64)),
        ),
        ([bytearray(p) for p in pks], [memoryview(m) for m in msgs], sigs),
    ]
    for i, (k, m, s) in enumerate(variants):
        assert (engine.verify_reasons(k, m, s) == want).all(), "variant %d" % i
    # Slices of Arrow arrays keep their own offsets.
    k, m, s = (pa.array(pks, pa.binary(32)), pa.array(msgs), pa.array(sigs, pa.binary(64)))
    assert (engine.verify_reasons(k[10:60], m[10:60], s[10:60]) == want[10:60]).all()


def test_nulls_and_bad_shapes_are_verdicts_or_clear_errors():
    pk, msg, sig = djb()[0]
    engine = linesig.Engine()
    codes = engine.verify_reasons(
        pa.array([pk, None]), pa.array([msg, msg]), pa.array([sig, sig])
    )
    assert [linesig.REASONS[int(c)] for c in codes] == ["valid", "bad_length"]
    assert engine.verify_reasons([pk[:31]], [msg], [sig]).tolist() == [1]
    assert engine.verify_reasons([], [], []).tolist() == []
    with pytest.raises(ValueError, match="messages has 2 values"):
        engine.verify([pk], [msg, msg], [sig])
    with pytest.raises(TypeError):
        engine.verify(["not bytes"], [msg], [sig])
    with pytest.raises(TypeError):
        engine.verify(np.zeros((2, 3, 4), np.uint8), [msg, msg], [sig, sig])
    with pytest.raises(ValueError, match="too large"):
        linesig.Engine(key_cache_mb=2**62)
    with pytest.raises(ValueError):
        linesig.Engine(policy="lax")
    with pytest.raises(ValueError):
        linesig.Engine(scheme="mldsa44", policy="strict")
    # workers=0 is all cores, as in C, Go, C++, Nim and the command line.
    assert linesig.Engine(workers=0).workers == linesig.Engine().workers
    with pytest.raises(ValueError, match="workers must be 0"):
        linesig.Engine(workers=-1)
    with pytest.raises(ValueError, match="at most 1024"):
        linesig.Engine(workers=10**6)
    with pytest.raises(ValueError, match="batch_size"):
        linesig.Engine(batch_size=0)
    with pytest.raises(ValueError, match="key_cache_mb"):
        linesig.Engine(key_cache_mb=-1)
    # ML-DSA through the same face: wrong sizes are verdicts, and contexts are accepted.
    mldsa = linesig.Engine(scheme="mldsa44")
    assert mldsa.policy is None
    codes = mldsa.verify_reasons([b"\x00" * 10], [b"m"], [b"\x00" * 5], contexts=[b"ctx"])
    assert linesig.REASONS[int(codes[0])] == "bad_length"


@pytest.mark.parametrize("policy", ["strict", "zip215", "zip215-strict"])
def test_key_cache_keeps_verdicts_and_reports_hits(policy):
    # Wycheproof and CCTV sign with a few keys: with the cache on they earn tables in
    # units that run one signature at a time, which for the cofactored policies means
    # the batch equation off (with it on, it goes first and builds no tables).
    pks, msgs, sigs = columns(wycheproof() + cctv())
    plain = linesig.Engine(policy=policy, workers=2, batch_size=64)
    assert plain.key_cache_stats() is None
    want = list(plain.verify_reasons(pks, msgs, sigs))
    per_signature = {} if policy == "strict" else {"batch_equation": False}
    cached = linesig.Engine(
        policy=policy, key_cache_mb=16, workers=2, batch_size=64, **per_signature
    )
    engines = [cached]
    if policy != "strict":
        engines.append(linesig.Engine(policy=policy, key_cache_mb=16, workers=2, batch_size=64))
    for engine in engines:
        for _ in range(3):
            assert list(engine.verify_reasons(pks, msgs, sigs)) == want
    stats = cached.key_cache_stats()
    assert stats["entries"] >= 1 and stats["hit_rate"] > 0.2, stats
    for engine in engines:
        stats = engine.key_cache_stats()
        assert stats["used_bytes"] <= stats["capacity_bytes"], stats


@pytest.mark.parametrize("policy", ["zip215", "zip215-strict"])
def test_batch_equation_keeps_every_verdict(policy):
    # Wycheproof and CCTV mix valid and invalid signatures: the batch equation finds the
    # invalid ones and gives each the per-signature path's reason. Units of 128: no
    # measured floor keeps them off the batch equation (one of 64 may run per signature).
    pks, msgs, sigs = columns(wycheproof() + cctv())
    off = linesig.Engine(policy=policy, workers=2, batch_size=128, batch_equation=False)
    on = linesig.Engine(policy=policy, workers=2, batch_size=128)
    assert on.batch_equation and not off.batch_equation
    assert off.batch_equation_stats() is None
    assert list(on.verify_reasons(pks, msgs, sigs)) == list(off.verify_reasons(pks, msgs, sigs))
    stats = on.batch_equation_stats()
    assert sum(stats.values()) >= 1, stats


@pytest.mark.parametrize(
    "scheme,file",
    [
        ("leansig-devnet4", "leansig_devnet4_c08a3ba_L32_dim46.json"),
        ("leansig-l18", "leansig_legacy_73bedc2_L18_dim64.json"),
        ("leansig-l32", "leansig_legacy_73bedc2_L32_dim64.json"),
    ],
)
def test_leansig_vectors_follow_the_spec_with_the_epoch_as_context(scheme, file):
    doc = json.loads((VECTORS / "leansig" / file).read_text())
    cases = doc["cases"]
    engine = linesig.Engine(scheme=scheme, workers=2)
    verdicts = engine.verify(
        [bytes.fromhex(c["public_key"]) for c in cases],
        [bytes.fromhex(c["message"]) for c in cases],
        [bytes.fromhex(c["signature"]) for c in cases],
        contexts=[c["epoch"].to_bytes(4, "little") for c in cases],
    )
    assert [bool(v) for v in verdicts] == [c["expected_spec"] for c in cases]
    # Epochs as ints, or a numpy integer array: the same verdicts.
    columns = (
        [bytes.fromhex(c["public_key"]) for c in cases],
        [bytes.fromhex(c["message"]) for c in cases],
        [bytes.fromhex(c["signature"]) for c in cases],
    )
    as_ints = engine.verify(*columns, contexts=[c["epoch"] for c in cases])
    assert list(as_ints) == list(verdicts)
    as_array = engine.verify(*columns, contexts=np.array([c["epoch"] for c in cases]))
    assert list(as_array) == list(verdicts)
    with pytest.raises(ValueError):
        engine.verify(*columns, contexts=[-1] + [c["epoch"] for c in cases[1:]])


def test_ed25519_helpers_sign_what_the_engine_verifies():
    seed = bytes(range(32))
    pk = linesig.ed25519.public_key(seed)
    sig = linesig.ed25519.sign(seed, b"payload")
    assert (len(pk), len(sig)) == (32, 64)
    engine = linesig.Engine(policy="strict", workers=1)
    valid = engine.verify([pk, pk], [b"payload", b"other"], [sig, sig])
    assert list(valid) == [True, False]
    # RFC 8032 7.1, TEST 1: the seed's public key and the empty message's signature.
    rfc_seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    assert linesig.ed25519.public_key(rfc_seed).hex() == (
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    )
    assert linesig.ed25519.sign(rfc_seed, b"").hex().startswith("e5564300c360ac72")
    with pytest.raises(ValueError, match="seed is 3 bytes"):
        linesig.ed25519.sign(b"abc", b"m")
