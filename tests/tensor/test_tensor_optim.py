"""micrograd.optim on Tensor parameters, step by step against torch.optim."""

import numpy as np
import pytest
from conftest import require_module

torch = require_module("torch")

import micrograd  # noqa: E402
from micrograd import optim  # noqa: E402
from micrograd.tensors import functional as F  # noqa: E402
from micrograd.tensors import nn  # noqa: E402

CASES = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, weight_decay=0.05)),
    ("AdamW", dict(lr=0.01, weight_decay=0.1)),
]


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_optimizer_steps_on_tensor_parameters_match_torch_optim(name, options):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 4))
    y = rng.integers(0, 3, size=12)

    model = nn.Sequential(nn.Linear(4, 5, dtype=np.float64), nn.Tanh(),
                          nn.Linear(5, 3, dtype=np.float64))
    twin = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(),
                               torch.nn.Linear(5, 3)).double()
    with torch.no_grad():
        for ours, theirs in zip(model.parameters(), twin.parameters(), strict=True):
            theirs.copy_(torch.from_numpy(np.array(ours.data)))

    opt = getattr(optim, name)(model.parameters(), **options)
    torch_opt = getattr(torch.optim, name)(twin.parameters(), **options)
    for _ in range(10):
        loss = F.cross_entropy(model(micrograd.tensor(X)), micrograd.tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()

        torch_loss = torch.nn.functional.cross_entropy(twin(torch.from_numpy(X)),
                                                       torch.from_numpy(y))
        torch_opt.zero_grad()
        torch_loss.backward()
        torch_opt.step()

        assert loss.item() == pytest.approx(torch_loss.item(), rel=1e-12)
    for ours, theirs in zip(model.parameters(), twin.parameters(), strict=True):
        np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-10, atol=1e-13)
        assert ours.data.dtype == np.float64
