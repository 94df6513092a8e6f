"""linesig.paillier against phe: phe's own usage patterns run on linesig, values and
ciphertexts carried both ways, raw operations compared integer for integer, encodings
compared field for field, and the array calls against the single calls."""

import math
import pickle
import random
import threading
import time

import numpy as np
import pytest
from phe import paillier as phe

from linesig import paillier

KEY_BITS = 1024


@pytest.fixture(scope="module")
def keypair():
    return paillier.generate_paillier_keypair(n_length=KEY_BITS)


@pytest.fixture(scope="module")
def djn_keypair():
    return paillier.generate_paillier_keypair(n_length=KEY_BITS, djn=True)


@pytest.fixture(scope="module")
def phe_keypair():
    return phe.generate_paillier_keypair(n_length=KEY_BITS)


def to_phe_keys(public_key, private_key):
    phe_public = phe.PaillierPublicKey(public_key.n)
    return phe_public, phe.PaillierPrivateKey(phe_public, private_key.p, private_key.q)


def from_phe_keys(phe_public, phe_private):
    public_key = paillier.PaillierPublicKey(phe_public.n)
    return public_key, paillier.PaillierPrivateKey(public_key, phe_private.p, phe_private.q)


VALUES = [
    0, 1, -1, 15, 16, 17, -4096, 2**40 + 3, -(2**62), 10**30,
    0.0, 0.5, -0.5, 3.141592653589793, -2.718281828459045, 1e-10, 1.5e20, -123456.789,
    5e-324, 2.0**-30,
]


# --- phe's usage patterns -----------------------------------------------------------

def test_keygen_sizes_and_keyring():
    keyring = paillier.PaillierPrivateKeyring()
    public_key, private_key = paillier.generate_paillier_keypair(keyring, n_length=512)
    assert public_key.n.bit_length() == 512
    assert public_key.g == public_key.n + 1
    assert public_key.max_int == public_key.n // 3 - 1
    assert private_key.p < private_key.q and private_key.p * private_key.q == public_key.n
    assert keyring[public_key] is private_key and len(keyring) == 1
    assert list(keyring) == [public_key]
    assert keyring.decrypt(public_key.encrypt(42)) == 42
    del keyring[public_key]
    assert len(keyring) == 0
    with pytest.raises(TypeError):
        keyring.add("not a key")
    with pytest.raises(ValueError):
        paillier.generate_paillier_keypair(n_length=63)


@pytest.mark.parametrize("value", VALUES)
def test_round_trip(keypair, value):
    public_key, private_key = keypair
    assert private_key.decrypt(public_key.encrypt(value)) == value


def test_arithmetic_matches_plain_arithmetic(keypair):
    public_key, private_key = keypair
    dec = private_key.decrypt
    a, b = 3.75, -12
    ea, eb = public_key.encrypt(a), public_key.encrypt(b)
    assert dec(ea + eb) == a + b
    assert dec(ea + 5) == a + 5 and dec(5 + ea) == 5 + a
    assert dec(ea - eb) == a - b and dec(100 - ea) == 100 - a
    assert dec(ea * 4) == a * 4 and dec(-3 * eb) == -3 * b
    assert dec(eb * 0.5) == b * 0.5
    assert dec(ea / 2) == a / 2
    assert dec(ea + public_key.encrypt(1e-3)) == pytest.approx(a + 1e-3)
    assert dec(ea + paillier.EncodedNumber.encode(public_key, 2)) == a + 2
    with pytest.raises(NotImplementedError):
        ea * eb


def test_precision_and_exponents(keypair):
    public_key, private_key = keypair
    x = public_key.encrypt(0.123456, precision=1e-3)
    assert x.exponent == math.floor(math.log(1e-3, 16))
    assert private_key.decrypt(x) == pytest.approx(0.123456, abs=1e-3)
    y = x.decrease_exponent_to(x.exponent - 2)
    assert y.exponent == x.exponent - 2 and private_key.decrypt(y) == private_key.decrypt(x)
    with pytest.raises(ValueError):
        x.decrease_exponent_to(x.exponent + 1)


def test_encoding_bands_and_overflow(keypair):
    public_key, private_key = keypair
    Enc = paillier.EncodedNumber
    assert Enc.BASE == 16
    Enc.encode(public_key, public_key.max_int)
    with pytest.raises(ValueError):
        Enc.encode(public_key, public_key.max_int + 1)
    with pytest.raises(ValueError):
        Enc.encode(public_key, -public_key.max_int - 1)
    with pytest.raises(TypeError):
        Enc.encode(public_key, "12")
    with pytest.raises(TypeError):
        public_key.encrypt(np.int64(3))  # as phe: numpy ints have no known precision
    # A mantissa in the gap between the bands overflows on decode.
    gap = Enc(public_key, public_key.max_int + 1, 0)
    with pytest.raises(OverflowError):
        gap.decode()
    with pytest.raises(ValueError):
        Enc(public_key, public_key.n, 0).decode()
    # Sums that leave the positive band are detected, not wrapped.
    big = public_key.encrypt(public_key.max_int)
    with pytest.raises(OverflowError):
        private_key.decrypt(big + big)


def test_lazy_obfuscation(keypair):
    public_key, private_key = keypair
    x = public_key.encrypt(7, r_value=5)
    raw = x.ciphertext(be_secure=False)
    assert raw == public_key.raw_encrypt(7, r_value=5)
    secure = x.ciphertext()
    assert secure != raw and x.ciphertext() == secure
    assert private_key.decrypt(x) == 7
    y = public_key.encrypt(7)
    assert y.ciphertext(be_secure=False) == y.ciphertext()  # obfuscated at birth


def test_errors_match_phe(keypair):
    public_key, private_key = keypair
    other_public, other_private = paillier.generate_paillier_keypair(n_length=512)
    with pytest.raises(ValueError):
        private_key.decrypt(other_public.encrypt(1))
    with pytest.raises(TypeError):
        private_key.decrypt(5)
    with pytest.raises(ValueError):
        public_key.encrypt(1) + other_public.encrypt(1)
    with pytest.raises(TypeError):
        public_key.raw_encrypt(1.5)
    with pytest.raises(TypeError):
        private_key.raw_decrypt(1.5)
    with pytest.raises(ValueError):
        public_key.encrypt(1)._raw_mul(public_key.n)
    with pytest.raises(ValueError):
        paillier.PaillierPrivateKey(public_key, private_key.p, private_key.q + 2)
    with pytest.raises(ValueError):
        paillier.PaillierPrivateKey(paillier.PaillierPublicKey(private_key.p ** 2), private_key.p, private_key.p)
    with pytest.raises(TypeError):
        paillier.EncryptedNumber("not a key", 5)


def test_from_totient_repr_eq_hash_pickle(keypair):
    public_key, private_key = keypair
    totient = (private_key.p - 1) * (private_key.q - 1)
    assert paillier.PaillierPrivateKey.from_totient(public_key, totient) == private_key
    with pytest.raises(ValueError):
        paillier.PaillierPrivateKey.from_totient(public_key, totient + 2)
    assert repr(public_key).startswith("<PaillierPublicKey ")
    assert repr(private_key).startswith("<PaillierPrivateKey for <PaillierPublicKey ")
    assert public_key == paillier.PaillierPublicKey(public_key.n)
    assert hash(public_key) == hash(paillier.PaillierPublicKey(public_key.n))
    x = public_key.encrypt(-2.5) * 3 + 1
    for obj in (public_key, private_key, x):
        clone = pickle.loads(pickle.dumps(obj))
        assert type(clone) is type(obj)
    assert pickle.loads(pickle.dumps(private_key)).decrypt(pickle.loads(pickle.dumps(x))) == -6.5


# --- interoperability with phe -----------------------------------------------------

def test_linesig_ciphertexts_decrypt_under_phe(keypair, djn_keypair):
    for public_key, private_key in (keypair, djn_keypair):
        _, phe_private = to_phe_keys(public_key, private_key)
        phe_public = phe_private.public_key
        for v in VALUES:
            x = public_key.encrypt(v)
            carried = phe.EncryptedNumber(phe_public, x.ciphertext(), x.exponent)
            assert phe_private.decrypt(carried) == v


def test_phe_ciphertexts_decrypt_under_linesig(phe_keypair):
    phe_public, phe_private = phe_keypair
    public_key, private_key = from_phe_keys(phe_public, phe_private)
    for v in VALUES:
        x = phe_public.encrypt(v)
        carried = paillier.EncryptedNumber(public_key, x.ciphertext(), x.exponent)
        assert private_key.decrypt(carried) == v
    # Mixed arithmetic: a phe number plus a linesig number, decrypted by both.
    a = phe_public.encrypt(1.25)
    b = public_key.encrypt(-7)
    total = paillier.EncryptedNumber(public_key, a.ciphertext(), a.exponent) + b
    assert private_key.decrypt(total) == -5.75
    assert phe_private.decrypt(phe.EncryptedNumber(phe_public, total.ciphertext(), total.exponent)) == -5.75


def test_raw_operations_equal_phe_integer_for_integer(keypair):
    public_key, private_key = keypair
    phe_public, phe_private = to_phe_keys(public_key, private_key)
    rng = random.Random(7)
    n = public_key.n
    assert private_key.hp == phe_private.hp and private_key.hq == phe_private.hq
    assert private_key.p_inverse == phe_private.p_inverse
    for _ in range(20):
        m = rng.randrange(n)
        r = rng.randrange(1, n)
        c = public_key.raw_encrypt(m, r_value=r)
        assert c == phe_public.raw_encrypt(m, r_value=r)
        assert private_key.raw_decrypt(c) == phe_private.raw_decrypt(c) == m
        k = rng.choice([rng.randrange(n), n - rng.randrange(1, 1000), rng.randrange(100)])
        ours = paillier.EncryptedNumber(public_key, c)._raw_mul(k)
        theirs = phe.EncryptedNumber(phe_public, c)._raw_mul(k)
        assert ours == theirs
    # Sums and products of numbers built from the same ciphertexts are the same ints.
    xa = paillier.EncryptedNumber(public_key, public_key.raw_encrypt(5, 3), -2)
    pa = phe.EncryptedNumber(phe_public, phe_public.raw_encrypt(5, 3), -2)
    for ours, theirs in [(xa + 1.5, pa + 1.5), (xa * -3, pa * -3), (xa - 0.25, pa - 0.25)]:
        assert ours.ciphertext(False) == theirs.ciphertext(False)
        assert ours.exponent == theirs.exponent


def _random_scalar(rng, public_key):
    kind = rng.randrange(7)
    if kind == 0:
        return rng.randrange(-(10**6), 10**6)
    if kind == 1:
        return rng.uniform(-1e6, 1e6)
    if kind == 2:
        return rng.choice([0, 1, -1, 0.0, -0.0, 0.5, 1e-300, 5e-324, 2.0**60, -(2.0**-40), True])
    if kind == 3:
        return rng.randrange(-public_key.max_int, public_key.max_int)
    if kind == 4:
        return rng.random() * 10 ** rng.randrange(-30, 30)
    if kind == 5:
        return rng.randrange(2**70)  # past max_int for a 256-bit key: phe's ValueError
    return rng.randrange(-1000, 1000) / 8


def _same_outcome(ours, theirs):
    """Both raised the same exception with the same message, or neither raised."""
    if isinstance(ours, Exception) or isinstance(theirs, Exception):
        return type(ours) is type(theirs) and str(ours) == str(theirs)
    return True


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_programs_equal_phe_ciphertext_for_ciphertext(seed):
    # A seeded random program of encryptions (fixed r) and phe's operators, run on both
    # libraries: every ciphertext, exponent, exception and decryption must be the same.
    rng = random.Random(seed)
    phe_public, phe_private = phe.generate_paillier_keypair(n_length=256)
    public_key, private_key = from_phe_keys(phe_public, phe_private)
    pairs = []  # (linesig number, phe number)

    def run(op, *numbers):
        out = []
        for side in (0, 1):
            try:
                out.append(op(*(pair[side] for pair in numbers)))
            except Exception as error:  # compared below, type and message
                out.append(error)
        return out

    for _ in range(300):
        if not pairs or rng.randrange(5) == 0:
            value, r = _random_scalar(rng, phe_public), rng.randrange(1, phe_public.n)
            precision = rng.choice([None, None, 1e-3, 0.5, 2**-20])
            ours, theirs = run(
                lambda key: key.encrypt(value, precision=precision, r_value=r),
                (public_key, phe_public),
            )
        else:
            a, b, s = rng.choice(pairs), rng.choice(pairs), _random_scalar(rng, phe_public)
            e = rng.randrange(-60, 0)
            op = rng.choice([
                lambda x, y: x + y,
                lambda x, y: x + s,
                lambda x, y: s - x,
                lambda x, y: x * s,
                lambda x, y: x / (s or 3),
                lambda x, y: x.decrease_exponent_to(min(e, x.exponent)),
            ])
            ours, theirs = run(op, a, b)
        assert _same_outcome(ours, theirs), (ours, theirs)
        if isinstance(ours, Exception):
            continue
        assert ours.ciphertext(False) == theirs.ciphertext(False)
        assert ours.exponent == theirs.exponent
        pairs.append((ours, theirs))
    mine, phes = [], []
    for ours, theirs in pairs:
        got = run(lambda key, x: key.decrypt(x), (private_key, phe_private), (ours, theirs))
        assert _same_outcome(*got), got
        mine.append(ours)
        phes.append(got[1])
    decodable = [i for i, x in enumerate(phes) if not isinstance(x, Exception)]
    # The array call (full groups, a padded or GMP tail) agrees with phe one by one.
    assert private_key.decrypt_many([mine[i] for i in decodable]) == [phes[i] for i in decodable]


def test_non_ciphertexts_decrypt_as_under_phe(keypair):
    # Ints that share a factor with n (or lie outside [0, n²)) are no ciphertexts, but
    # phe returns a value for them and so must a drop-in: the same value.
    public_key, private_key = keypair
    phe_public, phe_private = to_phe_keys(public_key, private_key)
    p, q, n = private_key.p, private_key.q, public_key.n
    for c in [0, p, q, 3 * p, 7 * q, p * p, p * p + q, n, n * n - p, -n, -1, n * n + p, 5 * n * n]:
        assert private_key.raw_decrypt(c) == phe_private.raw_decrypt(c), c
        ours, theirs = [], []
        for key, number, out in [
            (private_key, paillier.EncryptedNumber(public_key, c, -3), ours),
            (phe_private, phe.EncryptedNumber(phe_public, c, -3), theirs),
        ]:
            try:
                out.append(key.decrypt(number))
            except OverflowError as error:
                out.append(str(error))
        assert ours == theirs, c


def test_encodings_equal_phe_field_for_field(keypair):
    public_key, _ = keypair
    phe_public = phe.PaillierPublicKey(public_key.n)
    rng = random.Random(11)
    cases = list(VALUES)
    cases += [rng.uniform(-1e6, 1e6) for _ in range(200)]
    cases += [rng.randrange(-(2**100), 2**100) for _ in range(100)]
    cases += [rng.uniform(-1, 1) * 10.0 ** rng.randrange(-300, 300) for _ in range(200)]
    for v in cases:
        for precision in (None, 1e-3, 1e-8):
            for max_exponent in (None, -20, 0):
                try:
                    ours = paillier.EncodedNumber.encode(public_key, v, precision, max_exponent)
                except ValueError:
                    with pytest.raises(ValueError):
                        phe.EncodedNumber.encode(phe_public, v, precision, max_exponent)
                    continue
                theirs = phe.EncodedNumber.encode(phe_public, v, precision, max_exponent)
                assert (ours.encoding, ours.exponent) == (theirs.encoding, theirs.exponent)
                assert ours.decode() == theirs.decode()


# --- array calls ---------------------------------------------------------------------

def test_encrypt_many_and_decrypt_many(keypair, djn_keypair):
    for public_key, private_key in (keypair, djn_keypair):
        values = VALUES * 3
        numbers = public_key.encrypt_many(values)
        assert isinstance(numbers, list) and len(numbers) == len(values)
        assert [n.exponent for n in numbers] == [public_key.encrypt(v).exponent for v in values]
        assert private_key.decrypt_many(numbers) == values
        assert [private_key.decrypt(x) for x in numbers] == values
        # numpy in, numpy out, shape kept; numpy ints encode as ints.
        grid = np.arange(-6, 6, dtype=np.int64).reshape(3, 4)
        enc = public_key.encrypt_many(grid)
        assert enc.shape == (3, 4) and enc.dtype == object
        assert (private_key.decrypt_many(enc) == grid).all()
        floats = np.linspace(-2.5, 2.5, 11)
        assert np.allclose(private_key.decrypt_many(public_key.encrypt_many(floats)).astype(float), floats)
        assert public_key.encrypt_many([]) == []


def test_djn_key_pickles_and_interoperates(djn_keypair):
    public_key, private_key = djn_keypair
    assert public_key.hs is not None
    clone = pickle.loads(pickle.dumps(public_key))
    assert clone.hs == public_key.hs
    assert private_key.decrypt(clone.encrypt(12.5)) == 12.5
    with pytest.raises(ValueError):
        paillier.PaillierPublicKey(public_key.n, hs=0).encrypt(1)


def test_sum_and_dot(keypair):
    public_key, private_key = keypair
    rng = random.Random(3)
    xs = [rng.uniform(-100, 100) for _ in range(25)] + [rng.randrange(-1000, 1000) for _ in range(25)]
    ws = [rng.randrange(-10, 10) for _ in range(25)] + [rng.uniform(-2, 2) for _ in range(25)]
    enc = public_key.encrypt_many(xs)
    assert private_key.decrypt(paillier.encrypted_sum(enc)) == pytest.approx(sum(xs))
    assert private_key.decrypt(paillier.encrypted_dot(enc, ws)) == pytest.approx(
        sum(x * w for x, w in zip(xs, ws))
    )
    # Same value as phe-style pairwise arithmetic.
    pairwise = enc[0] * ws[0]
    for x, w in zip(enc[1:], ws[1:]):
        pairwise = pairwise + x * w
    assert private_key.decrypt(paillier.encrypted_dot(enc, np.array(ws))) == private_key.decrypt(pairwise)
    with pytest.raises(ValueError):
        paillier.encrypted_sum([])
    with pytest.raises(ValueError):
        paillier.encrypted_dot(enc, ws[:-1])


def test_array_calls_release_the_gil(keypair):
    public_key, _ = keypair
    ticks = []
    done = threading.Event()

    def tick():
        while not done.is_set():
            ticks.append(1)
            time.sleep(0.001)

    thread = threading.Thread(target=tick)
    thread.start()
    try:
        paillier.set_workers(1)
        start = len(ticks)
        public_key.encrypt_many(list(range(320)))
        progressed = len(ticks) - start
    finally:
        done.set()
        thread.join()
        paillier.set_workers(__import__("os").cpu_count() or 1)
    # 320 encryptions under a 1024-bit key take about 70 ms on the IFMA kernel (Zen 5)
    # and 300 ms on GMP; the other thread ran meanwhile.
    assert progressed >= 5


def test_every_kernel_gives_phe_compatible_results():
    public_key, private_key = paillier.generate_paillier_keypair(n_length=512)
    values = [0, 1, -1, 2.5, 10**20, -(10**20)] + list(range(13))
    assert paillier.kernel() in ("ifma", "gmp")
    try:
        for name in ("gmp", "portable", "ifma"):
            try:
                paillier.set_workers(2, kernel=name)
            except ValueError:
                assert name == "ifma"  # a CPU without AVX-512 IFMA
                continue
            assert paillier.kernel() == name
            numbers = public_key.encrypt_many(values)
            assert private_key.decrypt_many(numbers) == values
            phe_public, phe_private = to_phe_keys(public_key, private_key)
            for number, value in zip(numbers, values):
                theirs = phe.EncryptedNumber(phe_public, number.ciphertext(), number.exponent)
                assert phe_private.decrypt(theirs) == value
        with pytest.raises(ValueError):
            paillier.set_workers(1, kernel="avx2")
        for workers in (0, -1, 1025, 10**6):  # refused before any thread starts
            with pytest.raises(ValueError, match="workers must be at"):
                paillier.set_workers(workers)
    finally:
        paillier.set_workers(__import__("os").cpu_count() or 1)


# --- the CLI benchmark with phe in the same run --------------------------------------

def test_cli_bench_measures_phe_and_phe_decrypts_linesig(tmp_path):
    import json
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[3]
    binary = pathlib.Path(os.environ.get("LINESIG_BIN", root / "target" / "release" / "linesig"))
    assert binary.exists(), "build the CLI first (cargo build --release -p linesig-cli)"
    out = subprocess.run(
        [str(binary), "bench", "--scheme", "paillier512", "--count", "8", "--repeat", "1",
         "--op-iterations", "1", "--workers", "2", "--json"],
        env={**os.environ, "LINESIG_PYTHON": sys.executable},
        capture_output=True, text=True, check=True, cwd=tmp_path,
    )
    report = json.loads(out.stdout)
    assert report["status"] == "SUCCESS", out.stderr
    assert report["phe"]["gmpy2"] is True
    ok, total = report["phe_cross_decrypt"]
    assert ok == total == 16
    for table in report["tables"]:
        names = [w["name"] for w in table["ways"]]
        assert names[:3] == ["phe, one call at a time", "phe, threads (2)", "phe, processes (2)"]
        assert all(w["vs_phe"] > 0 for w in table["ways"])
