"""torch.utils.data on micrograd: batches, collation, splits -- against torch's loader."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch.utils import data

torch = require_module("torch")


class Squares:
    """A map-style dataset written for torch: dict samples with a number and a pair."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": float(i), "pair": (i, i * i), "vec": np.array([i, -i], dtype=np.float32)}


def as_lists(batch):
    if isinstance(batch, dict):
        return {k: as_lists(v) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(as_lists(v) for v in batch)
    return (batch.tolist(), str(batch.dtype).replace("torch.", ""))


@pytest.mark.parametrize("batch_size, drop_last", [(4, False), (4, True), (1, False), (10, False)])
def test_collation_of_dicts_tuples_numbers_and_arrays_matches_torch(batch_size, drop_last):
    ours = data.DataLoader(Squares(10), batch_size=batch_size, drop_last=drop_last)
    theirs = torch.utils.data.DataLoader(Squares(10), batch_size=batch_size, drop_last=drop_last)
    assert len(ours) == len(theirs)
    ours_batches = [as_lists(b) for b in ours]
    theirs_batches = [as_lists(b) for b in theirs]
    assert ours_batches == theirs_batches


def test_tensor_dataset_batches_and_shuffle_visit_every_row_once():
    X = mt.tensor(np.arange(20.0).reshape(10, 2))
    y = mt.tensor(np.arange(10))
    loader = data.DataLoader(data.TensorDataset(X, y), batch_size=3, shuffle=True,
                             generator=np.random.default_rng(0))
    seen = []
    for xb, yb in loader:
        np.testing.assert_array_equal(xb.data[:, 0], 2 * yb.data)  # rows stay paired
        seen += yb.tolist()
    assert sorted(seen) == list(range(10)) and seen != list(range(10))
    again = data.DataLoader(data.TensorDataset(X, y), batch_size=3, shuffle=True,
                            generator=np.random.default_rng(0))
    assert [v for _, yb in again for v in yb.tolist()] == seen
    mt.manual_seed(1)
    first = [v for _, yb in data.DataLoader(data.TensorDataset(X, y), batch_size=5, shuffle=True)
             for v in yb.tolist()]
    mt.manual_seed(1)
    second = [v for _, yb in data.DataLoader(data.TensorDataset(X, y), batch_size=5, shuffle=True)
              for v in yb.tolist()]
    assert first == second  # the default stream follows manual_seed, as torch's


def test_random_split_and_subset():
    dataset = data.TensorDataset(np.arange(10))
    parts = data.random_split(dataset, [0.5, 0.3, 0.2], generator=np.random.default_rng(3))
    twin = torch.utils.data.random_split(range(10), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [len(p) for p in twin] == [5, 3, 2]
    values = sorted(v for p in parts for (x,) in (p[i] for i in range(len(p))) for v in [x.item()])
    assert values == list(range(10))
    uneven = data.random_split(range(7), [0.5, 0.5])
    twin = torch.utils.data.random_split(range(7), [0.5, 0.5])
    assert [len(p) for p in uneven] == [len(p) for p in twin]
    subset = data.Subset(dataset, [4, 2])
    assert len(subset) == 2 and subset[1][0].item() == 2
    with pytest.raises(ValueError, match="does not equal the length"):
        data.random_split(dataset, [3, 3])


def test_bad_arguments_say_what_is_expected():
    with pytest.raises(ValueError, match="batch_size must be a positive int"):
        data.DataLoader(data.TensorDataset(np.zeros(3)), batch_size=0)
    with pytest.raises(ValueError, match="same length"):
        data.TensorDataset(np.zeros(3), np.zeros(4))
    with pytest.raises(RuntimeError, match="same shape"):
        list(data.DataLoader([np.zeros(2), np.zeros(3)], batch_size=2))
