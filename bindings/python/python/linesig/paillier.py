"""Paillier encryption: a drop-in replacement for python-paillier's ``phe.paillier``.

``from linesig import paillier`` works wherever ``from phe import paillier`` did: the same
classes and signatures (``generate_paillier_keypair``, ``PaillierPublicKey``,
``PaillierPrivateKey``, ``PaillierPrivateKeyring``, ``EncryptedNumber``,
``EncodedNumber``), the same encoding (BASE 16, exponents, the ``max_int`` overflow
bands), the same exceptions and messages, lazy obfuscation, and pickling.

Keys and ciphertexts interoperate with phe both ways: a ciphertext is the same integer
mod n², so a number crosses as ``(public_key.n, number.ciphertext(), number.exponent)``,
and a private key as ``(n, p, q)``. For the same inputs (and the same ``r_value``) every
raw operation returns the integer phe returns.

The arithmetic runs in linesig's Rust core on GMP and releases the GIL. On top of phe:

* Array calls on all cores: ``public_key.encrypt_many(values)``,
  ``private_key.decrypt_many(numbers)``, ``encrypted_sum(numbers)`` and
  ``encrypted_dot(numbers, scalars)``. They take lists, tuples or numpy arrays and return
  a list, or a numpy object array of the input's shape for numpy input.
  ``set_workers(n)`` sets their thread count (default: all cores). Their
  exponentiations run eight at a time on an AVX-512 IFMA Montgomery kernel where the CPU
  has one (``kernel()`` names it: ``"ifma"``, else ``"gmp"``), a last group of three
  to seven padded to eight; a last one or two values, and single calls, on GMP. Every
  path returns the same integers.
* DJN encryption, opt-in: ``generate_paillier_keypair(..., djn=True)`` publishes
  ``public_key.hs``, and that key encrypts as hs^α mod n² (a ⌈bits(n)/2⌉-bit α on a
  fixed-base table) instead of r^n mod n². Much faster; it rests on the extra assumption
  that such a short-exponent hs^α is indistinguishable from a random n-th residue
  (Damgård, Jurik, Nielsen 2010, §4.2). Decryption and every other operation are
  unchanged, and phe decrypts these ciphertexts too.

GMP's exponentiation is not constant-time; neither is phe's (gmpy2). The IFMA kernel's
exponentiations for textbook encryption and decryption are (fixed window schedule,
masked table scans); its DJN table reads, and the GMP steps around the kernel, are not.
"""

import fractions
import math
import random
import sys
from collections.abc import Mapping

from . import _native

DEFAULT_KEYSIZE = 3072

__all__ = [
    "DEFAULT_KEYSIZE",
    "EncodedNumber",
    "EncryptedNumber",
    "PaillierPrivateKey",
    "PaillierPrivateKeyring",
    "PaillierPublicKey",
    "encrypted_dot",
    "encrypted_sum",
    "generate_paillier_keypair",
    "kernel",
    "set_workers",
]


def set_workers(workers, kernel=None):
    """Threads used by the array calls (default: all cores; 1 to 1024), and optionally
    their kernel: ``"ifma"``, ``"portable"`` (the IFMA kernel's exact model; slow, for
    checks) or ``"gmp"``. Default: the best this CPU has. ValueError for a count out of
    range or a kernel this CPU cannot run."""
    if isinstance(workers, int) and workers < 1:
        raise ValueError("workers must be at least 1")
    _native.set_workers(workers, kernel)


def kernel():
    """The kernel the array calls run on: ``"ifma"``, ``"portable"`` or ``"gmp"``."""
    return _native.kernel()


def generate_paillier_keypair(private_keyring=None, n_length=DEFAULT_KEYSIZE, djn=False):
    """A new (PaillierPublicKey, PaillierPrivateKey) with n of exactly ``n_length`` bits
    (even, at least 64). With ``djn=True`` the public key carries the DJN base ``hs`` and
    encrypts in DJN mode. The private key is added to ``private_keyring`` if given."""
    n, p, q = _native.generate_keypair(n_length)
    hs = _native.random_djn_hs(n) if djn else None
    public_key = PaillierPublicKey(n, hs=hs)
    private_key = PaillierPrivateKey(public_key, p, q)
    if private_keyring is not None:
        private_keyring.add(private_key)
    return public_key, private_key


class _HoldsNativeKey(object):
    """A key whose native counterpart is built on first use and never pickled."""

    def _make_core(self):
        raise NotImplementedError

    @property
    def _core(self):
        core = self.__dict__.get("_core_key")
        if core is None:
            core = self._make_core()
            self.__dict__["_core_key"] = core
        return core

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_core_key", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)


class PaillierPublicKey(_HoldsNativeKey):
    """The public key: n, g = n + 1, n², and max_int = n // 3 - 1 (the largest magnitude
    an EncodedNumber may hold). ``hs`` (optional) switches encryption to DJN mode."""

    def __init__(self, n, hs=None):
        self.g = n + 1
        self.n = n
        self.nsquare = n * n
        self.max_int = n // 3 - 1
        self.hs = hs

    def _make_core(self):
        return _native.PublicKey(self.n, self.hs)

    def __setstate__(self, state):
        state.setdefault("hs", None)  # pickled before DJN existed, or by hand
        super().__setstate__(state)

    def __repr__(self):
        public_key_hash = hex(hash(self))[2:]
        return "<PaillierPublicKey {}>".format(public_key_hash[:10])

    def __eq__(self, other):
        if not hasattr(other, "n"):
            return NotImplemented
        return self.n == other.n

    def __hash__(self):
        return hash(self.n)

    def raw_encrypt(self, plaintext, r_value=None):
        """The ciphertext of an int plaintext: (1 + plaintext·n)·r^n mod n², with
        ``r_value`` as r when given (truthy), else a random r (or hs^α for a DJN key).
        Not an EncryptedNumber: no encoding, no exponent."""
        if not isinstance(plaintext, int):
            raise TypeError("Expected int type plaintext but got: %s" % type(plaintext))
        # (1 + n)^m depends only on m mod n, so any int maps into [0, n) first.
        m = plaintext % self.n
        if r_value:
            r = r_value % self.nsquare
            if r == 0:
                return 0
            return self._core.encrypt_with_r(m, r)
        return self._core.encrypt(m)

    def get_random_lt_n(self):
        """A uniform random int in [1, n), from the OS's generator."""
        return random.SystemRandom().randrange(1, self.n)

    def encrypt(self, value, precision=None, r_value=None):
        """Encode ``value`` (int, float or EncodedNumber) and encrypt it. Without
        ``r_value`` the result is obfuscated now; with it, on first ``ciphertext()``."""
        if isinstance(value, EncodedNumber):
            encoding = value
        else:
            encoding = EncodedNumber.encode(self, value, precision)
        return self.encrypt_encoded(encoding, r_value)

    def encrypt_encoded(self, encoding, r_value):
        """Encrypt an EncodedNumber (see ``encrypt`` for ``r_value``)."""
        if r_value is None:
            ciphertext = self._core.encrypt(encoding.encoding % self.n)
            return EncryptedNumber._from_obfuscated(self, ciphertext, encoding.exponent)
        ciphertext = self.raw_encrypt(encoding.encoding, r_value=r_value)
        return EncryptedNumber(self, ciphertext, encoding.exponent)

    def encrypt_many(self, values, precision=None):
        """Encrypt every value (ints, floats or EncodedNumbers; list, tuple or numpy
        array) on all cores, each obfuscated. Same as ``[encrypt(v, precision) ...]``."""
        flat, shape = _flatten(values)
        encodings = [
            v if isinstance(v, EncodedNumber) else EncodedNumber.encode(self, v, precision)
            for v in flat
        ]
        ciphertexts = self._core.encrypt_many([e.encoding % self.n for e in encodings])
        numbers = [
            EncryptedNumber._from_obfuscated(self, c, e.exponent)
            for c, e in zip(ciphertexts, encodings)
        ]
        return _reshape(numbers, shape)


class PaillierPrivateKey(_HoldsNativeKey):
    """The private key: p < q with p·q = n, and what CRT decryption precomputes."""

    def __init__(self, public_key, p, q):
        if not p * q == public_key.n:
            raise ValueError("given public key does not match the given p and q.")
        if p == q:
            raise ValueError("p and q have to be different")
        self.public_key = public_key
        if q < p:
            p, q = q, p
        self.p = p
        self.q = q
        self.psquare = p * p
        self.qsquare = q * q
        self.p_inverse = _native.invert(p, q)
        self.hp = self.h_function(p, self.psquare)
        self.hq = self.h_function(q, self.qsquare)

    def _make_core(self):
        return _native.PrivateKey(self.public_key.n, self.p, self.q)

    @staticmethod
    def from_totient(public_key, totient):
        """The private key from n and φ(n) = (p - 1)(q - 1)."""
        p_plus_q = public_key.n - totient + 1
        p_minus_q = math.isqrt(p_plus_q * p_plus_q - public_key.n * 4)
        q = (p_plus_q - p_minus_q) // 2
        p = p_plus_q - q
        if not p * q == public_key.n:
            raise ValueError("given public key and totient do not match.")
        return PaillierPrivateKey(public_key, p, q)

    def __repr__(self):
        return "<PaillierPrivateKey for {}>".format(repr(self.public_key))

    def decrypt(self, encrypted_number):
        """The decrypted, decoded value (int or float) of an EncryptedNumber."""
        return self.decrypt_encoded(encrypted_number).decode()

    def decrypt_encoded(self, encrypted_number, Encoding=None):
        """The decrypted EncodedNumber (or ``Encoding``) of an EncryptedNumber."""
        if not isinstance(encrypted_number, EncryptedNumber):
            raise TypeError(
                "Expected encrypted_number to be an EncryptedNumber not: %s"
                % type(encrypted_number)
            )
        if self.public_key != encrypted_number.public_key:
            raise ValueError("encrypted_number was encrypted against a different key!")
        if Encoding is None:
            Encoding = EncodedNumber
        encoded = self.raw_decrypt(encrypted_number.ciphertext(be_secure=False))
        return Encoding(self.public_key, encoded, encrypted_number.exponent)

    def raw_decrypt(self, ciphertext):
        """The plaintext int in [0, n) of an int ciphertext (CRT over p² and q²)."""
        if not isinstance(ciphertext, int):
            raise TypeError("Expected ciphertext to be an int, not: %s" % type(ciphertext))
        return self._core.decrypt(ciphertext % self.public_key.nsquare)

    def decrypt_many(self, encrypted_numbers):
        """Decrypt and decode every EncryptedNumber on all cores; same as
        ``[decrypt(x) ...]``, shaped like the input."""
        flat, shape = _flatten(encrypted_numbers)
        for x in flat:
            if not isinstance(x, EncryptedNumber):
                raise TypeError(
                    "Expected encrypted_number to be an EncryptedNumber not: %s" % type(x)
                )
            if self.public_key != x.public_key:
                raise ValueError("encrypted_number was encrypted against a different key!")
        nsquare = self.public_key.nsquare
        plaintexts = self._core.decrypt_many(
            [x.ciphertext(be_secure=False) % nsquare for x in flat]
        )
        values = [
            EncodedNumber(self.public_key, m, x.exponent).decode()
            for m, x in zip(plaintexts, flat)
        ]
        return _reshape(values, shape)

    def h_function(self, x, xsquare):
        """L_x(g^(x-1) mod x²)⁻¹ mod x, the CRT decryption constant for prime x."""
        return _native.invert(
            self.l_function(_native.powmod(self.public_key.g, x - 1, xsquare), x), x
        )

    def l_function(self, x, p):
        """Paillier's L: (x - 1) // p."""
        return (x - 1) // p

    def crt(self, mp, mq):
        """The x mod n with x = mp mod p and x = mq mod q."""
        u = (mq - mp) * self.p_inverse % self.q
        return mp + (u * self.p)

    def __eq__(self, other):
        if not (hasattr(other, "p") and hasattr(other, "q")):
            return NotImplemented
        return self.p == other.p and self.q == other.q

    def __hash__(self):
        return hash((self.p, self.q))


class PaillierPrivateKeyring(Mapping):
    """Private keys by their public keys; decrypts a number with the right one."""

    def __init__(self, private_keys=None):
        if private_keys is None:
            private_keys = []
        public_keys = [k.public_key for k in private_keys]
        self.__keyring = dict(zip(public_keys, private_keys))

    def __getitem__(self, key):
        return self.__keyring[key]

    def __len__(self):
        return len(self.__keyring)

    def __iter__(self):
        return iter(self.__keyring)

    def __delitem__(self, public_key):
        del self.__keyring[public_key]

    def add(self, private_key):
        if not isinstance(private_key, PaillierPrivateKey):
            raise TypeError(
                "private_key should be of type PaillierPrivateKey, not %s" % type(private_key)
            )
        self.__keyring[private_key.public_key] = private_key

    def decrypt(self, encrypted_number):
        relevant_private_key = self.__keyring[encrypted_number.public_key]
        return relevant_private_key.decrypt(encrypted_number)


class EncryptedNumber(object):
    """An encrypted EncodedNumber: a ciphertext mod n² and its base-16 exponent.

    Arithmetic with other EncryptedNumbers (+, -) and with plain numbers (+, -, *, /)
    gives new EncryptedNumbers; results are not obfuscated until ``ciphertext()`` is
    asked for with ``be_secure=True`` (lazy obfuscation, as phe)."""

    def __init__(self, public_key, ciphertext, exponent=0):
        self.public_key = public_key
        self.__ciphertext = ciphertext
        self.exponent = exponent
        self.__is_obfuscated = False
        if isinstance(ciphertext, EncryptedNumber):
            raise TypeError("ciphertext should be an integer")
        if not isinstance(self.public_key, PaillierPublicKey):
            raise TypeError("public_key should be a PaillierPublicKey")

    @classmethod
    def _from_obfuscated(cls, public_key, ciphertext, exponent):
        number = cls(public_key, ciphertext, exponent)
        number.__is_obfuscated = True
        return number

    def __add__(self, other):
        if isinstance(other, EncryptedNumber):
            return self._add_encrypted(other)
        elif isinstance(other, EncodedNumber):
            return self._add_encoded(other)
        else:
            return self._add_scalar(other)

    def __radd__(self, other):
        return self.__add__(other)

    def __mul__(self, other):
        if isinstance(other, EncryptedNumber):
            raise NotImplementedError("Good luck with that...")
        if isinstance(other, EncodedNumber):
            encoding = other
        else:
            encoding = EncodedNumber.encode(self.public_key, other)
        product = self._raw_mul(encoding.encoding)
        exponent = self.exponent + encoding.exponent
        return EncryptedNumber(self.public_key, product, exponent)

    def __rmul__(self, other):
        return self.__mul__(other)

    def __sub__(self, other):
        return self + (other * -1)

    def __rsub__(self, other):
        return other + (self * -1)

    def __truediv__(self, scalar):
        return self.__mul__(1 / scalar)

    def ciphertext(self, be_secure=True):
        """The ciphertext int; obfuscated first unless ``be_secure=False``."""
        if be_secure and not self.__is_obfuscated:
            self.obfuscate()
        return self.__ciphertext

    def decrease_exponent_to(self, new_exp):
        """The same number with a smaller exponent (its mantissa times BASE^difference)."""
        if new_exp > self.exponent:
            raise ValueError(
                "New exponent %i should be more negative than old exponent %i"
                % (new_exp, self.exponent)
            )
        multiplied = self * pow(EncodedNumber.BASE, self.exponent - new_exp)
        multiplied.exponent = new_exp
        return multiplied

    def obfuscate(self):
        """Multiply the ciphertext by a fresh random n-th residue."""
        self.__ciphertext = self.public_key._core.obfuscate(
            self.__ciphertext % self.public_key.nsquare
        )
        self.__is_obfuscated = True

    def _add_scalar(self, scalar):
        encoded = EncodedNumber.encode(self.public_key, scalar, max_exponent=self.exponent)
        return self._add_encoded(encoded)

    def _add_encoded(self, encoded):
        if self.public_key != encoded.public_key:
            raise ValueError("Attempted to add numbers encoded against different public keys!")
        a, b = self._aligned_with(encoded)
        encrypted_scalar = a.public_key.raw_encrypt(b.encoding, 1)
        sum_ciphertext = a._raw_add(a.ciphertext(False), encrypted_scalar)
        return EncryptedNumber(a.public_key, sum_ciphertext, a.exponent)

    def _add_encrypted(self, other):
        if self.public_key != other.public_key:
            raise ValueError("Attempted to add numbers encrypted against different public keys!")
        a, b = self._aligned_with(other)
        sum_ciphertext = a._raw_add(a.ciphertext(False), b.ciphertext(False))
        return EncryptedNumber(a.public_key, sum_ciphertext, a.exponent)

    def _aligned_with(self, other):
        """(self, other) with the larger exponent of the two decreased to the smaller:
        numbers add only at equal exponents."""
        if self.exponent > other.exponent:
            return self.decrease_exponent_to(other.exponent), other
        if self.exponent < other.exponent:
            return self, other.decrease_exponent_to(self.exponent)
        return self, other

    def _raw_add(self, e_a, e_b):
        return _native.mulmod(e_a, e_b, self.public_key.nsquare)

    def _raw_mul(self, plaintext):
        if not isinstance(plaintext, int):
            raise TypeError("Expected ciphertext to be int, not %s" % type(plaintext))
        if plaintext < 0 or plaintext >= self.public_key.n:
            raise ValueError("Scalar out of bounds: %i" % plaintext)
        return self.public_key._core.mul_plain(
            self.ciphertext(False) % self.public_key.nsquare, plaintext
        )


class EncodedNumber(object):
    """A number as an int mantissa mod n and a base-16 exponent: value = mantissa ·
    16^exponent, mantissas above max_int (within n - max_int .. n) standing for
    negatives, as phe encodes them."""

    BASE = 16
    LOG2_BASE = math.log(BASE, 2)
    FLOAT_MANTISSA_BITS = sys.float_info.mant_dig

    def __init__(self, public_key, encoding, exponent):
        self.public_key = public_key
        self.encoding = encoding
        self.exponent = exponent

    @classmethod
    def encode(cls, public_key, scalar, precision=None, max_exponent=None):
        """Encode an int or float: exponent 0 for ints; for floats the exponent that
        keeps every bit of the float; ``precision`` (e.g. 1e-3) sets it instead;
        ``max_exponent`` caps it. ValueError if the mantissa exceeds max_int."""
        if precision is None:
            if isinstance(scalar, int):
                prec_exponent = 0
            elif isinstance(scalar, float):
                # The base-2 exponent of the float's least significant bit, in base 16,
                # rounded down: enough digits for every bit of the float.
                bin_flt_exponent = math.frexp(scalar)[1]
                bin_lsb_exponent = bin_flt_exponent - cls.FLOAT_MANTISSA_BITS
                prec_exponent = math.floor(bin_lsb_exponent / cls.LOG2_BASE)
            else:
                raise TypeError("Don't know the precision of type %s." % type(scalar))
        else:
            prec_exponent = math.floor(math.log(precision, cls.BASE))
        if max_exponent is None:
            exponent = prec_exponent
        else:
            exponent = min(max_exponent, prec_exponent)
        # Exact rationals: no float overflow, round half to even.
        int_rep = round(fractions.Fraction(scalar) * fractions.Fraction(cls.BASE) ** -exponent)
        if abs(int_rep) > public_key.max_int:
            raise ValueError(
                "Integer needs to be within +/- %d but got %d" % (public_key.max_int, int_rep)
            )
        return cls(public_key, int_rep % public_key.n, exponent)

    def decode(self):
        """The int (exponent >= 0) or float this encodes. ValueError for a mantissa
        >= n, OverflowError for one in the gap between the positive and negative bands
        or a float too large."""
        if self.encoding >= self.public_key.n:
            raise ValueError("Attempted to decode corrupted number")
        elif self.encoding <= self.public_key.max_int:
            mantissa = self.encoding
        elif self.encoding >= self.public_key.n - self.public_key.max_int:
            mantissa = self.encoding - self.public_key.n
        else:
            raise OverflowError("Overflow detected in decrypted number")
        if self.exponent >= 0:
            return mantissa * self.BASE**self.exponent
        try:
            return mantissa / self.BASE**-self.exponent
        except OverflowError as e:
            raise OverflowError("decoded result too large for a float") from e

    def decrease_exponent_to(self, new_exp):
        """The same number with a smaller exponent."""
        if new_exp > self.exponent:
            raise ValueError(
                "New exponent %i should be more negative than old exponent %i"
                % (new_exp, self.exponent)
            )
        factor = pow(self.BASE, self.exponent - new_exp)
        new_enc = self.encoding * factor % self.public_key.n
        return self.__class__(self.public_key, new_enc, new_exp)


def encrypted_sum(encrypted_numbers):
    """The EncryptedNumber of the sum of EncryptedNumbers under one key, on all cores
    (exponents aligned to the smallest first, as ``+`` does). Not obfuscated."""
    flat, _ = _flatten(encrypted_numbers)
    if not flat:
        raise ValueError("encrypted_sum needs at least one EncryptedNumber")
    public_key = _common_key(flat)
    aligned, exponent = _align(public_key, flat)
    total = public_key._core.sum(aligned)
    return EncryptedNumber(public_key, total, exponent)


def encrypted_dot(encrypted_numbers, scalars):
    """The EncryptedNumber of Σ x_i·s_i for EncryptedNumbers x_i and plain numbers s_i
    (ints, floats or EncodedNumbers), on all cores. Not obfuscated."""
    flat, _ = _flatten(encrypted_numbers)
    plain, _ = _flatten(scalars)
    if len(flat) != len(plain):
        raise ValueError("encrypted_dot: %d numbers but %d scalars" % (len(flat), len(plain)))
    if not flat:
        raise ValueError("encrypted_dot needs at least one EncryptedNumber")
    public_key = _common_key(flat)
    encodings = [
        s if isinstance(s, EncodedNumber) else EncodedNumber.encode(public_key, s)
        for s in plain
    ]
    nsquare = public_key.nsquare
    products = public_key._core.mul_plain_many(
        [x.ciphertext(False) % nsquare for x in flat], [e.encoding for e in encodings]
    )
    terms = [
        EncryptedNumber(public_key, c, x.exponent + e.exponent)
        for c, x, e in zip(products, flat, encodings)
    ]
    aligned, exponent = _align(public_key, terms)
    return EncryptedNumber(public_key, public_key._core.sum(aligned), exponent)


def _common_key(numbers):
    public_key = numbers[0].public_key
    for x in numbers:
        if not isinstance(x, EncryptedNumber):
            raise TypeError("Expected an EncryptedNumber, not %s" % type(x))
        if x.public_key != public_key:
            raise ValueError("Attempted to add numbers encrypted against different public keys!")
    return public_key


def _align(public_key, numbers):
    """Ciphertexts of ``numbers`` all at the smallest exponent among them."""
    exponent = min(x.exponent for x in numbers)
    nsquare = public_key.nsquare
    ciphertexts = [x.ciphertext(False) % nsquare for x in numbers]
    todo = [i for i, x in enumerate(numbers) if x.exponent > exponent]
    if todo:
        scaled = public_key._core.mul_plain_many(
            [ciphertexts[i] for i in todo],
            [pow(EncodedNumber.BASE, numbers[i].exponent - exponent) % public_key.n for i in todo],
        )
        for i, c in zip(todo, scaled):
            ciphertexts[i] = c
    return ciphertexts, exponent


def _flatten(values):
    """(list of Python values, numpy shape or None). numpy arrays become Python ints and
    floats (``tolist``), so numpy integers encode as ints."""
    shape = getattr(values, "shape", None)
    if shape is not None and hasattr(values, "tolist") and hasattr(values, "ravel"):
        return list(values.ravel().tolist()), shape
    return list(values), None


def _reshape(items, shape):
    if shape is None:
        return items
    import numpy

    out = numpy.empty(len(items), dtype=object)
    out[:] = items
    return out.reshape(shape)
