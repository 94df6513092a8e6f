"""leanSig aggregation: one succinct proof that many devnet-4 signatures verify.

``aggregate`` checks every signature first and makes no proof if one fails
(``AggregateError``, with the failing index in ``args[1]``); ``verify_aggregate``
returns only if the proof holds for exactly that list of (public key, message, epoch)
in that order, and raises ``InvalidAggregate`` with the reason otherwise. Columns are
lists of ``bytes`` as ``Engine.verify`` takes them; epochs are integers.

The proof format is linesig's own (``LSAG``, version 4; Plonky3 STARK over KoalaBear,
BLAKE3 commitments, 100 conjectured bits), not leanMultisig's. A proof covers at most
8,192 signatures (about 6.2 GiB while proving that many on two threads, 0.8 GiB
for 1,024).
"""

from typing import Sequence

from . import _native

AggregateError = _native.AggregateError
InvalidAggregate = _native.InvalidAggregate

__all__ = ["AggregateError", "InvalidAggregate", "aggregate", "verify_aggregate"]


def aggregate(
    public_keys: Sequence[bytes],
    messages: Sequence[bytes],
    signatures: Sequence[bytes],
    epochs: Sequence[int],
    *,
    scheme: str = "leansig-devnet4",
) -> bytes:
    """The proof that every signature verifies (``AggregateError`` if one does not)."""
    return _native.leansig_aggregate(
        list(public_keys), list(messages), list(signatures), list(epochs), scheme
    )


def verify_aggregate(
    public_keys: Sequence[bytes],
    messages: Sequence[bytes],
    epochs: Sequence[int],
    proof: bytes,
    *,
    scheme: str = "leansig-devnet4",
) -> None:
    """Return if ``proof`` verifies against the list; raise ``InvalidAggregate`` if not."""
    _native.leansig_verify_aggregate(
        list(public_keys), list(messages), list(epochs), bytes(proof), scheme
    )
