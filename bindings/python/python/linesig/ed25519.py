"""Ed25519 key generation and signing (RFC 8032, deterministic), beside
``Engine(policy=...)``'s batch verification: a 32-byte secret seed gives the public key
and the signatures, as the C ABI's ``linesig_ed25519_*`` calls do.
"""

from __future__ import annotations

from . import _native


def public_key(seed: bytes) -> bytes:
    """The 32-byte public key of the 32-byte secret ``seed``."""
    return _native.ed25519_public_key(bytes(seed))


def sign(seed: bytes, message: bytes) -> bytes:
    """The 64-byte signature of ``message`` under the 32-byte secret ``seed``."""
    return _native.ed25519_sign(bytes(seed), bytes(message))
