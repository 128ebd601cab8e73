"""save/load in PyTorch's file format, both directions against real torch.save/torch.load,
and a hostile pickle refused."""

from __future__ import annotations

import collections
import io
import pickle
import zipfile

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")


DTYPES = [(np.float32, torch.float32), (np.float64, torch.float64), (np.int64, torch.int64)]


def saved_by_us(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    mt.save(obj, buffer)
    buffer.seek(0)
    return buffer


def saved_by_torch(obj) -> io.BytesIO:
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize("np_dtype, torch_dtype", DTYPES, ids=["float32", "float64", "int64"])
def test_our_file_loads_in_torch_with_dtypes_views_and_nesting(np_dtype, torch_dtype):
    base = np.arange(24).reshape(4, 6).astype(np_dtype)
    whole = mt.tensor(base)
    column = mt.from_numpy(whole.numpy()[:, 2])           # a strided view of whole's storage
    transposed = mt.from_numpy(whole.numpy().T)            # non-contiguous
    reversed_rows = mt.from_numpy(base[::-1])           # negative strides: saved as a copy
    obj = {"whole": whole, "column": column, "t": transposed, "rev": reversed_rows,
           "scalar": mt.tensor(np.array(7, dtype=np_dtype)), "nested": [1, 2.5, "x", (whole, None)],
           "state": collections.OrderedDict(w=mt.tensor(np.ones((2, 2), dtype=np_dtype)))}
    loaded = torch.load(saved_by_us(obj), weights_only=True)
    for key in ("whole", "column", "t", "rev", "scalar"):
        assert loaded[key].dtype == torch_dtype
        np.testing.assert_array_equal(loaded[key].numpy(), obj[key].numpy(), err_msg=key)
    assert loaded["column"].stride() == (6,) and loaded["t"].stride() == (1, 6)
    loaded["whole"][0, 2] = 99  # the view shares its storage, as torch's own views
    assert loaded["column"][0].item() == 99
    assert loaded["nested"][3][0] is loaded["whole"] and loaded["nested"][:3] == [1, 2.5, "x"]
    assert type(loaded["state"]) is collections.OrderedDict


@pytest.mark.parametrize("np_dtype, torch_dtype", DTYPES, ids=["float32", "float64", "int64"])
def test_torch_file_loads_here_with_dtypes_views_and_nesting(np_dtype, torch_dtype):
    whole = torch.arange(24).reshape(4, 6).to(torch_dtype)
    obj = {"whole": whole, "column": whole[:, 2], "t": whole.t(), "offset": whole[2:, 1:],
           "list": [whole[0], {"deep": torch.tensor(3, dtype=torch_dtype)}], "n": 4}
    loaded = mt.load(saved_by_torch(obj))
    for key in ("whole", "column", "t", "offset"):
        assert loaded[key].dtype == np_dtype
        np.testing.assert_array_equal(loaded[key].numpy(), obj[key].numpy(), err_msg=key)
    loaded["whole"].data[0, 2] = 42
    assert loaded["column"].data[0] == 42  # views still share memory after loading
    assert loaded["list"][1]["deep"].item() == 3 and loaded["n"] == 4


def test_state_dicts_move_both_ways_between_micrograd_and_torch(tmp_path):
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                 torch.nn.Linear(4, 2)).double()
    ours = mt.nn.Sequential(mt.nn.Linear(3, 4), mt.nn.BatchNorm1d(4), mt.nn.Linear(4, 2)).double()
    theirs.train()(torch.randn(8, 3, dtype=torch.float64))  # running stats that are not 0/1
    torch.save(theirs.state_dict(), tmp_path / "torch.pt")
    ours.load_state_dict(mt.load(tmp_path / "torch.pt"))
    theirs.eval()
    ours.eval()
    x = np.random.default_rng(0).normal(size=(5, 3))
    np.testing.assert_allclose(ours(mt.tensor(x)).data, theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12)
    mt.save(ours.state_dict(), tmp_path / "ours.pt")
    fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4),
                                torch.nn.Linear(4, 2)).double().eval()
    fresh.load_state_dict(torch.load(tmp_path / "ours.pt", weights_only=True))
    np.testing.assert_allclose(fresh(torch.tensor(x)).detach().numpy(), ours(mt.tensor(x)).data,
                               rtol=1e-12)


def test_parameters_keep_requires_grad_through_torch():
    p = torch.nn.Parameter(torch.ones(2))
    loaded = mt.load(saved_by_torch({"p": p, "t": torch.ones(2, requires_grad=True)}))
    assert isinstance(loaded["p"], mt.nn.Parameter) and loaded["p"].requires_grad
    assert loaded["t"].requires_grad
    back = torch.load(saved_by_us({"w": mt.tensor([1.0, 2.0], requires_grad=True)}),
                      weights_only=True)
    assert back["w"].requires_grad


class Hostile:
    def __reduce__(self):
        import os

        return (os.system, ("echo pwned > /dev/null",))


def test_a_hostile_pickle_is_refused_without_running_anything():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps({"x": Hostile()}, protocol=2))
        archive.writestr("archive/version", "3\n")
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"refusing to load posix\.system|"
                                                     r"refusing to load os\.system|"
                                                     r"refusing to load nt\.system"):
        mt.load(buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="refusing to load"):
        mt.load(buffer, weights_only=False)  # still refused: nothing but tensors and containers


def test_bad_files_and_objects_get_clear_errors(tmp_path):
    (tmp_path / "plain.pt").write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(pickle.UnpicklingError, match="not a zip archive"):
        mt.load(tmp_path / "plain.pt")
    with pytest.raises(TypeError, match=r"save model.state_dict\(\) instead"):
        mt.save(mt.nn.Linear(2, 2), tmp_path / "model.pt")
    with pytest.raises(TypeError, match="got set"):
        mt.save({1, 2}, tmp_path / "set.pt")
