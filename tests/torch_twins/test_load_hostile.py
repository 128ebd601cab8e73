"""A hostile .pt corpus, made here (no committed binaries): every file torch 2.13's
torch.load(weights_only=True) refuses must be refused by micrograd.torch.load too, with a
one-line pickle.UnpicklingError, and no file may change what a later load returns."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import serialization

torch = require_module("torch")


def pt_file(data_pkl: bytes, storages: dict[str, bytes] | None = None,
            compression: int = zipfile.ZIP_STORED) -> bytes:
    """A torch.save-shaped zip: archive/data.pkl, byteorder, data/<key>, version."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        archive.writestr("archive/data.pkl", data_pkl)
        archive.writestr("archive/byteorder", "little")
        for key, raw in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", raw)
        archive.writestr("archive/version", "3\n")
    return buffer.getvalue()


def global_op(module: str, name: str) -> bytes:
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def unicode_op(text: str) -> bytes:
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


PROTO = b"\x80\x02"
MARK, TUPLE, REDUCE, BUILD, STOP = b"(", b"t", b"R", b"b", b"."
EMPTY_DICT, SETITEMS, NONE, TUPLE2, NEWOBJ = b"}", b"u", b"N", b"\x86", b"\x81"


def set_state(target: bytes, attribute: str, value: bytes) -> bytes:
    """target; BUILD with (None, {attribute: value}): setattr(target, attribute, value)."""
    return (PROTO + target + NONE + EMPTY_DICT + MARK + unicode_op(attribute) + value
            + SETITEMS + TUPLE2 + BUILD + STOP)


def call(function: bytes, *args: bytes) -> bytes:
    return PROTO + function + MARK + b"".join(args) + TUPLE + REDUCE + STOP


def tensor_pickle(storage: str, key: str, numel: int, size: int) -> bytes:
    """_rebuild_tensor_v2(pid(storage, key, numel), 0, (size,), (1,), False, OrderedDict())
    as torch.save writes it (persistent id by BINPERSID)."""
    pid = (MARK + unicode_op("storage") + global_op("torch", storage) + unicode_op(key)
           + unicode_op("cpu") + b"J" + struct.pack("<i", numel) + TUPLE + b"Q")
    args = (MARK + pid + b"K\x00" + b"K" + bytes([size]) + b"\x85" + b"K\x01\x85" + b"\x89"
            + global_op("collections", "OrderedDict") + b")R" + TUPLE)
    return PROTO + global_op("torch._utils", "_rebuild_tensor_v2") + args + REDUCE + STOP


FLOATS = np.arange(4, dtype=np.float32)
GOOD = pt_file(tensor_pickle("FloatStorage", "0", 4, 4), {"0": FLOATS.tobytes()})

HOSTILE = {
    "storage type's dtype changed": pt_file(set_state(
        global_op("torch", "FloatStorage"), "dtype", unicode_op("float64"))),
    "global function's __defaults__ changed": pt_file(set_state(
        global_op("torch._utils", "_rebuild_tensor_v2"), "__defaults__",
        MARK + b"K\x07" + TUPLE)),
    "type object changed": pt_file(set_state(
        global_op("collections", "OrderedDict"), "keys", unicode_op("boom"))),
    "os.system called": pt_file(call(global_op("os", "system"), unicode_op("echo pwned"))),
    "builtins.eval called": pt_file(call(global_op("builtins", "eval"), unicode_op("1+1"))),
    "getattr reaches a module": pt_file(call(global_op("builtins", "getattr"),
                                             global_op("collections", "OrderedDict"),
                                             unicode_op("__init__"))),
    "storage type called": pt_file(call(global_op("torch", "FloatStorage"), b"K\x01")),
    "storage claims more than the file holds": pt_file(
        tensor_pickle("FloatStorage", "0", 2**30, 4), {"0": FLOATS.tobytes()}),
    "storage entry missing": pt_file(tensor_pickle("FloatStorage", "7", 4, 4)),
    "tensor past its storage": pt_file(tensor_pickle("FloatStorage", "0", 4, 9),
                                       {"0": FLOATS.tobytes()}),
    "truncated pickle": pt_file(PROTO + MARK + unicode_op("a")),
    "not a pickle": pt_file(b"\xff\xfe garbage"),
    "no data.pkl": GOOD.replace(b"archive/data.pkl", b"archive/other.pk"),
    "truncated archive": GOOD[: len(GOOD) // 2],
}


def torch_refuses(raw: bytes) -> bool:
    try:
        torch.load(io.BytesIO(raw), weights_only=True)
    except Exception:  # any refusal counts; the kind of error is ours to choose
        return True
    return False


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_torch_refuses_is_refused_in_one_line(name):
    raw = HOSTILE[name]
    assert torch_refuses(raw), f"torch loads {name!r}: not a hostile file for this corpus"
    with pytest.raises(pickle.UnpicklingError) as refused:
        mt.load(io.BytesIO(raw))
    assert "\n" not in str(refused.value) and str(refused.value)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_no_hostile_file_changes_what_a_later_load_returns(name):
    with pytest.raises(pickle.UnpicklingError):
        mt.load(io.BytesIO(HOSTILE[name]))
    loaded = mt.load(io.BytesIO(GOOD))
    expected = torch.load(io.BytesIO(GOOD), weights_only=True)
    assert loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded.numpy(), expected.numpy())


def test_the_good_file_of_the_corpus_loads_in_both():
    np.testing.assert_array_equal(mt.load(io.BytesIO(GOOD)).numpy(), FLOATS)
    np.testing.assert_array_equal(torch.load(io.BytesIO(GOOD), weights_only=True).numpy(),
                                  FLOATS)


def test_a_compressed_entry_that_inflates_past_the_bound_is_refused_before_inflating(
        monkeypatch):
    # 4 MiB of zeros deflate to a few KiB; with the bound lowered to 1 MiB the header's
    # claimed size alone must refuse it (the full-size bomb is the same check at 256 MiB)
    numel = 2**20
    bomb = pt_file(tensor_pickle("FloatStorage", "0", 0, 0).replace(
        b"J" + struct.pack("<i", 0), b"J" + struct.pack("<i", numel)),
        {"0": bytes(4 * numel)}, compression=zipfile.ZIP_DEFLATED)
    assert len(bomb) < 64 * 1024
    monkeypatch.setattr(serialization, "MAX_INFLATED_ENTRY", 2**20)

    real_open = zipfile.ZipFile.open

    def no_inflating(archive, entry, *args, **kwargs):
        name = getattr(entry, "filename", entry)
        assert not name.endswith("/data/0"), "decompressed before the size check"
        return real_open(archive, entry, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "open", no_inflating)
    with pytest.raises(pickle.UnpicklingError, match="past the bound"):
        mt.load(io.BytesIO(bomb))


def test_every_load_builds_fresh_objects():
    first, second = mt.load(io.BytesIO(GOOD)), mt.load(io.BytesIO(GOOD))
    first.numpy()[0] = 99.0
    assert second.numpy()[0] == 0.0
