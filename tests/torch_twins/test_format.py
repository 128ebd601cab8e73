"""Tensor.__format__ against torch: a 0-d tensor formats as its .item(), any other tensor
takes only the empty spec (torch's TypeError otherwise)."""

from __future__ import annotations

import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

VALUES = [(98.6, None), (0.1, None), (-0.0, None), (1e-30, None), (3.0, "float64"),
          (7, None), (-3, "int32"), (True, None), (float("inf"), None),
          (float("nan"), None), (123456789.0, None)]
SPECS = ["", ".4f", ">12.3e", "g", "+.2%", "10"]


@pytest.mark.parametrize("value,dtype", VALUES)
@pytest.mark.parametrize("spec", SPECS)
def test_zero_d_formats_as_its_item(value, dtype, spec):
    def formatted(lib):
        t = lib.tensor(value, dtype=None if dtype is None else getattr(lib, dtype))
        try:
            return format(t, spec)
        except (TypeError, ValueError) as error:
            return f"{type(error).__name__}"
    assert formatted(mt) == formatted(torch)


def test_format_reaches_item_precision():
    """The issue's case: '{}'.format on a float32 98.6 prints the float32's double value."""
    assert f"{mt.tensor(98.6)}" == f"{torch.tensor(98.6)}" == "98.5999984741211"
    assert f"{mt.tensor(2.5) * 2:.4f}" == "5.0000"


@pytest.mark.parametrize("shape", [(1,), (2,), (2, 3), (0,)])
def test_other_tensors_refuse_a_spec_as_torch(shape):
    with pytest.raises(TypeError) as theirs:
        format(torch.ones(shape), ".4f")
    with pytest.raises(TypeError) as ours:
        format(mt.ones(shape), ".4f")
    assert str(ours.value) == str(theirs.value)


def test_a_zero_d_parameter_formats_as_torch():
    """torch formats only a plain Tensor as its item: a Parameter takes the empty spec only."""
    for lib in (mt, torch):
        p = lib.nn.Parameter(lib.tensor(1.5))
        with pytest.raises(TypeError, match="unsupported format string passed to Parameter"):
            format(p, ".2f")
    assert format(mt.nn.Parameter(mt.tensor(1.5)), "") == format(
        torch.nn.Parameter(torch.tensor(1.5)), "")
