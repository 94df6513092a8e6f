"""leanXMSS, the lean devnets' BLAKE2s XMSS (ethereum/cryptography-specs ``Xmss``):
key generation and signing, beside ``Engine(scheme="leanxmss")``'s batch verification
(each item's context is its epoch, an int).

``keygen(seed, epoch_start, epoch_end)`` makes the spec's key for the epochs
``epoch_start..epoch_end`` (inclusive; the same seed and range give the same key). A key
signs each epoch at most once, in increasing order: **save** ``key.to_bytes()`` after
every signature, before the signature leaves the process, or a key reloaded from older
bytes could sign an epoch twice, which lets anyone forge for that epoch.
``KeyFile`` does that for a key kept in a file, as ``linesig sign`` does: the file is
locked while it is open (a second signer, in any process, waits) and saved before each
signature is returned. A signer that keeps keys in its own store must do the same: hold
a lock over load, sign and save, and save before the signature leaves the process.
"""

from __future__ import annotations

import os
from typing import Tuple

from . import _native

PUBLIC_KEY_BYTES = 32
SIGNATURE_BYTES = 1208

__all__ = ["KeyFile", "SecretKey", "keygen", "PUBLIC_KEY_BYTES", "SIGNATURE_BYTES"]


class _Key:
    """What a key and a key file both tell: its public key and where its epochs stand
    (one native object behind each, ``LeanXmssKey`` or ``LeanXmssKeyFile``)."""

    def __init__(self, native: "_native.LeanXmssKey | _native.LeanXmssKeyFile") -> None:
        self._native = native

    @property
    def public_key(self) -> bytes:
        """32 bytes: Merkle root, then the public parameter."""
        return self._native.public_key()

    @property
    def epoch_range(self) -> Tuple[int, int]:
        """The first and last epoch the key signs at."""
        return self._native.epoch_range

    @property
    def next_epoch(self) -> int:
        """The lowest epoch the key may still sign."""
        return self._native.next_epoch


class SecretKey(_Key):
    """A leanXMSS secret key with the next epoch it may sign."""

    @classmethod
    def from_bytes(cls, data: bytes) -> "SecretKey":
        """A key saved by ``to_bytes`` (its tree is rebuilt: as long as ``keygen``)."""
        return cls(_native.LeanXmssKey.from_bytes(bytes(data)))

    def to_bytes(self) -> bytes:
        """72 bytes: seed, range and next epoch, checksummed (``LXSK``)."""
        return self._native.to_bytes()

    def sign(self, epoch: int, message: bytes) -> bytes:
        """The 1,208-byte signature of a 32-byte message at ``epoch`` (``ValueError``
        for an epoch outside the range or at or before one already signed)."""
        return self._native.sign(epoch, bytes(message))

    def __repr__(self) -> str:
        start, end = self.epoch_range
        return "leanxmss.SecretKey(epochs %d..%d, next %d)" % (start, end, self.next_epoch)


def keygen(seed: bytes, epoch_start: int, epoch_end: int) -> SecretKey:
    """The key a 32-byte seed grows for epochs ``epoch_start..epoch_end`` (inclusive)."""
    return SecretKey(_native.LeanXmssKey.generate(bytes(seed), epoch_start, epoch_end))


class KeyFile(_Key):
    """A leanXMSS key file open for signing, locked until ``close()`` (or the end of a
    ``with`` block); each ``sign`` saves the file before it returns the signature.

    ``KeyFile.create(key, path)`` writes a new file (never over an existing one);
    ``KeyFile.open(path)`` waits while another signer holds the lock. ``OSError`` for a
    file that cannot be read or written, ``ValueError`` for a damaged or foreign one.
    """

    @classmethod
    def open(cls, path: "str | os.PathLike[str]") -> "KeyFile":
        return cls(_native.LeanXmssKeyFile.open(os.fspath(path)))

    @staticmethod
    def create(key: SecretKey, path: "str | os.PathLike[str]") -> None:
        _native.LeanXmssKeyFile.create(key._native, os.fspath(path))

    def sign(self, epoch: int, message: bytes) -> bytes:
        """The signature of a 32-byte message at ``epoch``, after the file is saved
        (``ValueError`` for a used or out-of-range epoch; ``OSError`` if the save
        failed, with the epoch used up all the same)."""
        return self._native.sign(epoch, bytes(message))

    def close(self) -> None:
        """Release the lock; later calls raise ``ValueError``."""
        self._native.close()

    def __enter__(self) -> "KeyFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
