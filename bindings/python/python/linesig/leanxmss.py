"""leanXMSS, the lean devnets' BLAKE2s XMSS (ethereum/cryptography-specs ``Xmss``):
key generation and signing, beside ``Engine(scheme="leanxmss")``'s batch verification
(each item's context is its epoch, an int).

``keygen(seed, epoch_start, epoch_end)`` makes the spec's key for the epochs
``epoch_start..epoch_end`` (inclusive; the same seed and range give the same key). A key
signs each epoch at most once, in increasing order: **save** ``key.to_bytes()`` after
every signature, before the signature leaves the process, or a key reloaded from older
bytes could sign an epoch twice, which lets anyone forge for that epoch.
"""

from __future__ import annotations

from typing import Tuple

from . import _native

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 1208

__all__ = ["SecretKey", "keygen", "PUBLIC_KEY_BYTES", "SIGNATURE_BYTES"]


class SecretKey:
    """A leanXMSS secret key with the next epoch it may sign."""

    def __init__(self, native: "_native.LeanXmssKey") -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: bytes) -> "SecretKey":
        """A key saved by ``to_bytes`` (its tree is rebuilt: as long as ``keygen``)."""
        return cls(_native.LeanXmssKey.from_bytes(bytes(data)))

    def to_bytes(self) -> bytes:
        """72 bytes: seed, range and next epoch, checksummed (``LXSK``)."""
        return self._key.to_bytes()

    @property
    def public_key(self) -> bytes:
        """32 bytes: Merkle root, then the public parameter."""
        return self._key.public_key()

    @property
    def epoch_range(self) -> Tuple[int, int]:
        """The first and last epoch the key signs at."""
        return self._key.epoch_range

    @property
    def next_epoch(self) -> int:
        """The lowest epoch the key may still sign."""
        return self._key.next_epoch

    def sign(self, epoch: int, message: bytes) -> bytes:
        """The 1,208-byte signature of a 32-byte message at ``epoch`` (``ValueError``
        for an epoch outside the range or at or before one already signed)."""
        return self._key.sign(epoch, bytes(message))

    def __repr__(self) -> str:
        start, end = self.epoch_range
        return "leanxmss.SecretKey(epochs %d..%d, next %d)" % (start, end, self.next_epoch)


def keygen(seed: bytes, epoch_start: int, epoch_end: int) -> SecretKey:
    """The key a 32-byte seed grows for epochs ``epoch_start..epoch_end`` (inclusive)."""
    return SecretKey(_native.LeanXmssKey.generate(bytes(seed), epoch_start, epoch_end))
