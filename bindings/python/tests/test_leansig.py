"""linesig.leansig: aggregation of the devnet-4 vectors' valid signatures, and the
proofs and lists that must be refused."""

import json
import os
import pathlib

import pytest

import linesig
from linesig import leansig

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = pathlib.Path(os.environ.get("LINESIG_VECTORS_DIR", ROOT.parent / "shared" / "vectors"))


@pytest.fixture(scope="module")
def signed():
    doc = json.loads((VECTORS / "leansig" / "leansig_devnet4_c08a3ba_L32_dim46.json").read_text())
    valid = [c for c in doc["cases"] if c["expected_spec"]]
    assert len(valid) >= 2
    return (
        [bytes.fromhex(c["public_key"]) for c in valid],
        [bytes.fromhex(c["message"]) for c in valid],
        [bytes.fromhex(c["signature"]) for c in valid],
        [c["epoch"] for c in valid],
    )


@pytest.fixture(scope="module")
def proof(signed):
    keys, messages, signatures, epochs = signed
    return leansig.aggregate(keys, messages, signatures, epochs)


def test_the_valid_vectors_aggregate_and_verify(signed, proof):
    keys, messages, _, epochs = signed
    assert proof[:4] == b"LSAG"
    leansig.verify_aggregate(keys, messages, epochs, proof)


def test_a_changed_list_or_proof_is_refused(signed, proof):
    keys, messages, _, epochs = signed
    with pytest.raises(leansig.InvalidAggregate):
        leansig.verify_aggregate(keys, messages, [epochs[0] + 1] + epochs[1:], proof)
    with pytest.raises(leansig.InvalidAggregate):
        leansig.verify_aggregate(keys[::-1], messages[::-1], epochs[::-1], proof)
    with pytest.raises(leansig.InvalidAggregate):
        leansig.verify_aggregate(keys[:-1], messages[:-1], epochs[:-1], proof)
    flipped = bytearray(proof)
    flipped[len(flipped) // 2] ^= 1
    with pytest.raises(leansig.InvalidAggregate):
        leansig.verify_aggregate(keys, messages, epochs, bytes(flipped))
    with pytest.raises(leansig.InvalidAggregate):
        leansig.verify_aggregate(keys, messages, epochs, proof + b"\0")


def test_no_proof_for_a_signature_that_fails(signed):
    keys, messages, signatures, epochs = signed
    bad = bytearray(signatures[1])
    bad[-1] ^= 1
    with pytest.raises(leansig.AggregateError) as refused:
        leansig.aggregate(keys, messages, [signatures[0], bytes(bad)] + signatures[2:], epochs)
    assert refused.value.args[1] == 1
    with pytest.raises(leansig.AggregateError):
        leansig.aggregate([], [], [], [])
    with pytest.raises(leansig.AggregateError):
        leansig.aggregate(keys, messages, signatures, epochs, scheme="leansig-l18")
    with pytest.raises(ValueError):
        leansig.aggregate(keys, messages[:-1], signatures, epochs)
    assert issubclass(leansig.AggregateError, ValueError) and linesig.leansig is leansig


def test_an_epoch_out_of_range_names_its_index(signed, proof):
    keys, messages, signatures, epochs = signed
    for bad in (2**32, -1):
        with pytest.raises(ValueError, match=r"epochs\[1\]"):
            leansig.aggregate(keys, messages, signatures, [epochs[0], bad] + epochs[2:])
        with pytest.raises(ValueError, match=r"epochs\[1\]"):
            leansig.verify_aggregate(keys, messages, [epochs[0], bad] + epochs[2:], proof)
