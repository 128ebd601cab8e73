"""nn.Module reprs equal torch's: layers' settings, nesting and indentation, ModuleList's
runs of identical modules, a user's module with extra_repr."""

from __future__ import annotations

import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

MODULES = """nn.Linear(2, 3)
nn.Linear(2, 3, bias=False)
nn.Embedding(27, 10)
nn.LayerNorm(64)
nn.LayerNorm((4, 8), eps=1e-6, elementwise_affine=False)
nn.BatchNorm1d(100)
nn.BatchNorm1d(100, momentum=0.001, affine=False)
nn.Dropout(0.2)
nn.Dropout()
nn.ReLU()
nn.Tanh()
nn.Sigmoid()
nn.GELU()
nn.GELU(approximate='tanh')
nn.Softmax(dim=1)
nn.LogSoftmax(dim=-1)
nn.Flatten()
nn.Identity()
nn.MSELoss()
nn.CrossEntropyLoss()
nn.NLLLoss()
nn.L1Loss()
nn.BCELoss()
nn.BCEWithLogitsLoss()
nn.Sequential()
nn.ModuleList()
nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU())
nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
nn.ModuleList([nn.Linear(4, 4), nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4)])
nn.ModuleList([nn.Sequential(nn.Linear(4, 4), nn.ReLU()) for _ in range(2)])
nn.ModuleDict({'a': nn.Linear(1, 2), 'b': nn.ReLU()})
nn.Sequential(nn.Embedding(27, 10), nn.Flatten(), nn.Linear(30, 200, bias=False), \
nn.BatchNorm1d(200), nn.Tanh(), nn.Linear(200, 27))
nn.Sequential(nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU())), nn.Tanh())""".splitlines()


@pytest.mark.parametrize("text", MODULES)
def test_module_prints_as_torch(text):
    assert repr(eval(text, {"nn": mt.nn})) == repr(eval(text, {"nn": torch.nn}))


def _user_model(nn):
    class Block(nn.Module):
        def __init__(self, n):
            super().__init__()
            self.n = n
            self.fc = nn.Linear(n, n)
            self.act = nn.ReLU()

        def extra_repr(self):
            return f"n={self.n}"

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(5, 4)
            self.blocks = nn.ModuleList([Block(4) for _ in range(2)])
            self.head = nn.Linear(4, 5)

    return Model()


def test_a_users_module_prints_as_torch():
    assert repr(_user_model(mt.nn)) == repr(_user_model(torch.nn))
