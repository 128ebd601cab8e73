"""quiet_floats: numpy's floating-point warnings off between silence() and restore(), and the
caller's own settings back afterwards (np.geterr is the oracle)."""

import warnings

import numpy as np
import pytest

from micrograd.tensors import quiet_floats


def test_silence_ignores_every_warning_and_restore_puts_the_callers_settings_back():
    before = np.seterr(divide="raise", over="warn", invalid="print", under="ignore")
    try:
        token = quiet_floats.silence()
        try:
            assert set(np.geterr().values()) == {"ignore"}
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                assert np.isinf(np.array([1.0]) / 0.0)[0]  # no warning, no raise
        finally:
            quiet_floats.restore(token)
        assert np.geterr() == {"divide": "raise", "over": "warn", "under": "ignore",
                               "invalid": "print"}
        with pytest.raises(FloatingPointError):
            np.array([1.0]) / 0.0
    finally:
        np.seterr(**before)


def test_nested_silences_unwind_in_order():
    outer = quiet_floats.silence()
    inner = quiet_floats.silence()
    quiet_floats.restore(inner)
    assert set(np.geterr().values()) == {"ignore"}
    quiet_floats.restore(outer)
    assert np.geterr()["divide"] == "warn"  # numpy's default


def test_backward_through_a_division_by_zero_warns_nothing_and_leaves_settings_alone():
    import micrograd.torch as torch

    x = torch.tensor([0.0, 1.0], requires_grad=True)
    settings = np.geterr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (1 / x).sum().backward()  # d/dx 1/x = -1/x^2: -inf at 0, as torch gives
    assert x.grad.tolist() == [-np.inf, -1.0]
    assert np.geterr() == settings
