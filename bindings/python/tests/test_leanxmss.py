"""linesig.leanxmss and Engine(scheme="leanxmss"): the spec's vectors through Python's
face (verify valid and tampered, key_gen, sign), and the one-use rule of a key."""

import os
import pathlib

import pytest

import linesig
from linesig import leanxmss

ROOT = pathlib.Path(__file__).resolve().parents[3]
VECTORS = pathlib.Path(os.environ.get("LINESIG_VECTORS_DIR", ROOT.parent / "shared" / "vectors"))


def case(folder: str, name: str) -> dict:
    """A data.yaml's scalar fields (hex strings as bytes, numbers as ints)."""
    fields = {}
    for line in (VECTORS / "leanxmss" / folder / name / "data.yaml").read_text().splitlines():
        key, _, value = line.strip().partition(":")
        value = value.strip().strip("'")
        if value.startswith("0x"):
            fields[key] = bytes.fromhex(value[2:])
        elif value.isdigit():
            fields[key] = int(value)
        elif value in ("true", "false", "null"):
            fields[key] = value
    return fields


def test_valid_vector_verifies_and_tampered_is_refused():
    c = case("verify", "verify_valid")
    engine = linesig.Engine("leanxmss", workers=2)
    tampered = bytearray(c["signature"])
    tampered[0] ^= 1
    keys = [c["public_key"]] * 3
    messages = [c["message"]] * 3
    signatures = [c["signature"], bytes(tampered), c["signature"][:-1]]
    valid, codes = engine.verify(keys, messages, signatures, [c["epoch"]] * 3, reasons=True)
    assert list(valid) == [True, False, False]
    assert [linesig.REASONS[int(x)] for x in codes[1:]] == ["equation_failed", "bad_length"]
    wrong_epoch = engine.verify(keys[:1], messages[:1], signatures[:1], [c["epoch"] + 1])
    assert not wrong_epoch[0]


def test_key_gen_and_sign_vectors():
    k = case("key_gen", "key_gen_middle_epochs")
    key = leanxmss.keygen(k["seed"], k["epoch_start"], k["epoch_end"])
    assert key.public_key == k["output"]
    s = case("sign", "sign_range_middle")
    key = leanxmss.keygen(s["seed"], s["epoch_start"], s["epoch_end"])
    assert key.sign(s["epoch"], s["message"]) == s["output"]
    with pytest.raises(ValueError):
        leanxmss.keygen(k["seed"], 4, 3)


def test_a_key_signs_each_epoch_once_across_its_bytes():
    key = leanxmss.keygen(bytes(32), 5, 9)
    signature = key.sign(6, bytes(32))
    engine = linesig.Engine("leanxmss")
    assert engine.verify([key.public_key], [bytes(32)], [signature], [6])[0]
    reloaded = leanxmss.SecretKey.from_bytes(key.to_bytes())
    assert reloaded.next_epoch == 7 and reloaded.epoch_range == (5, 9)
    with pytest.raises(ValueError, match="used"):
        reloaded.sign(6, bytes(32))
    with pytest.raises(ValueError, match="outside"):
        reloaded.sign(10, bytes(32))
    with pytest.raises(ValueError, match="epoch"):
        reloaded.sign(-1, bytes(32))
    with pytest.raises(ValueError):
        leanxmss.SecretKey.from_bytes(b"LXSK" + bytes(10))


def test_a_key_file_signs_each_epoch_once(tmp_path):
    import threading

    key = leanxmss.keygen(bytes([4]) * 32, 20, 23)
    path = tmp_path / "k.key"
    leanxmss.KeyFile.create(key, path)
    with pytest.raises(OSError, match="exists"):
        leanxmss.KeyFile.create(key, path)
    message = bytes([6]) * 32
    engine = linesig.Engine("leanxmss")
    with leanxmss.KeyFile.open(path) as f:
        assert f.epoch_range == (20, 23) and f.next_epoch == 20
        signature = f.sign(21, message)
        assert engine.verify([f.public_key], [message], [signature], [21])[0]
        # A second signer waits for the lock until this one closes.
        opened = []
        second = threading.Thread(target=lambda: opened.append(leanxmss.KeyFile.open(path)))
        second.start()
        second.join(0.3)
        assert not opened, "a second handle opened while the first held the lock"
    second.join(30)
    again = opened[0]
    assert again.next_epoch == 22
    with pytest.raises(ValueError):
        again.sign(21, message)
    again.close()
    with pytest.raises(ValueError, match="closed"):
        again.sign(22, message)
    with pytest.raises(OSError):
        leanxmss.KeyFile.open(tmp_path / "none.key")
    (tmp_path / "bad.key").write_bytes(b"LXSK" + bytes(68))
    with pytest.raises(ValueError):
        leanxmss.KeyFile.open(tmp_path / "bad.key")
