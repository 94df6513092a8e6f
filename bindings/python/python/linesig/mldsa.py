"""ML-DSA (FIPS 204) key generation and signing, beside ``Engine(scheme="mldsa65")``'s
batch verification.

``keygen(scheme, seed)`` derives the key pair from a 32-byte seed (the same keys as any
FIPS 204 implementation; keep the seed as secret as the key). ``sign`` is hedged when
given 32 fresh random bytes (``os.urandom(32)``) and deterministic without them.
"""

from __future__ import annotations

from typing import Optional, Tuple

from . import _native


def keygen(scheme: str, seed: bytes) -> Tuple[bytes, bytes]:
    """(public key, signing key) for ``scheme`` ("mldsa44", "mldsa65", "mldsa87")."""
    return _native.mldsa_keygen(scheme, bytes(seed))


def sign(
    scheme: str,
    signing_key: bytes,
    message: bytes,
    context: bytes = b"",
    randomness: Optional[bytes] = None,
) -> bytes:
    """The signature of ``message`` under ``context`` (at most 255 bytes)."""
    return _native.mldsa_sign(
        scheme,
        bytes(signing_key),
        bytes(message),
        bytes(context),
        None if randomness is None else bytes(randomness),
    )
