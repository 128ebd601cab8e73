"""The lecture-style scripts run with real torch, and their numbers are the ones to expect.

The oracles are independent of the scripts' own output: parameter counts worked out from
the layer sizes, -log(1/27) for an untrained 27-way classifier, numpy's least-squares
cubic for sin(x), the lecture's own hand-derived gradients against autograd.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module
from lecture_outputs import SCRIPTS, compare_outputs, parse_output, run_script

pytestmark = pytest.mark.slow  # whole lecture scripts, under torch and micrograd

_outputs: dict[str, dict[str, str]] = {}


def torch_output(name: str) -> dict[str, str]:
    """The parsed output of one script under real torch, run once per session."""
    require_module("torch")
    if name not in _outputs:
        _outputs[name] = parse_output(run_script(name))
    return _outputs[name]


def number(out: dict[str, str], name: str) -> float:
    return float(out[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_script_runs_and_prints_finite_numbers(name):
    out = torch_output(name)
    assert len(out) >= 10
    for key, value in out.items():
        try:
            x = float(value)
        except ValueError:
            continue
        assert math.isfinite(x), f"{name}: {key} is {value}"


@pytest.mark.slow
def test_poly_tensors_reaches_the_least_squares_cubic():
    out = torch_output("poly_tensors.py")
    x = np.linspace(-math.pi, math.pi, 2000)
    y = np.sin(x)
    design = np.stack([np.ones_like(x), x, x**2, x**3], axis=1)
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    best = float(((design @ coef - y) ** 2).sum())
    # RMSprop on Linear(3, 1) converges to the least-squares cubic (float32 data)
    assert best * 0.999 <= number(out, "sequential_loss_final") <= best * 1.05
    assert number(out, "sequential_w1") == pytest.approx(coef[1], abs=0.01)
    assert number(out, "sequential_w3") == pytest.approx(coef[3], abs=0.002)
    # gradients by hand, autograd and the nn.Module take the same SGD steps
    for c in "abcd":
        assert number(out, f"manual_{c}") == pytest.approx(number(out, f"autograd_{c}"), rel=1e-5)
        assert number(out, f"module_{c}") == pytest.approx(number(out, f"autograd_{c}"), rel=1e-5)
    assert number(out, "manual_loss_final") > best  # 2000 SGD steps are not converged


@pytest.mark.slow
def test_classifier_separates_the_blobs_and_the_checkpoint_round_trips():
    out = torch_output("classifier_loader.py")
    assert number(out, "test_accuracy") > 90
    assert out["argmax_correct"] == out["test_correct"] == out["restored_correct"]
    assert out["restored_outputs_equal"] == "True"
    assert out["state_keys"] == "fc1.weight,fc1.bias,fc2.weight,fc2.bias"
    assert number(out, "epoch5_lr") == pytest.approx(0.01 * 0.5**3)  # StepLR(2, 0.5), 6 epochs
    assert out["train_batches"] == str(math.ceil(480 / 32))


@pytest.mark.slow
def test_makemore_mlp_counts_parameters_and_losses_agree():
    out = torch_output("makemore_mlp.py")
    assert out["parameters"] == str(27 * 10 + 30 * 200 + 200 + 200 * 27 + 27)
    assert number(out, "manual_loss") == pytest.approx(number(out, "cross_entropy_loss"), rel=1e-5)
    assert number(out, "lr_at_500") == pytest.approx(10 ** (-3 + 3 * 500 / 999), rel=1e-5)
    assert number(out, "loss_last") < number(out, "loss_step0")
    samples = [v for k, v in out.items() if k.startswith("sample")]
    assert len(samples) == 10 and all(s.endswith(".") for s in samples)


@pytest.mark.slow
def test_makemore_batchnorm_starts_at_the_uniform_loss():
    out = torch_output("makemore_batchnorm.py")
    assert number(out, "init_loss") == pytest.approx(-math.log(1 / 27), abs=0.1)
    assert out["parameters"] == str(27 * 10 + 30 * 200 + 200 + 200 * 27 + 27 + 2 * 200)
    deep = 27 * 10 + 30 * 100 + 2 * 100 * 100 + 100 * 27 + 3 * 2 * 100 + 2 * 27
    assert out["deep_parameters"] == str(deep)
    # BatchNorm normalises the pre-activations to unit std at initialisation
    assert number(out, "init_hpreact_std") == pytest.approx(1.0, abs=0.05)
    assert number(out, "bn_loss_last") < number(out, "init_loss")


@pytest.mark.slow
def test_makemore_backprop_gradients_match_autograd():
    out = torch_output("makemore_backprop.py")
    approx = [k for k in out if k.startswith("cmp_") and k.endswith("_approximate")]
    assert len(approx) == 28
    assert all(out[k] == "True" for k in approx), [k for k in approx if out[k] != "True"]
    assert all(number(out, k.replace("_approximate", "_maxdiff")) < 1e-6 for k in approx)
    # the gradient above the tanh is a chain of exact float operations in both
    assert out["cmp_logprobs_exact"] == "True"
    assert abs(number(out, "loss_fast_diff")) < 1e-6
    assert out["dcounts_requires_grad"] == out["dlogits_requires_grad"] == "True"
    assert number(out, "manual_train_loss_last") < number(out, "manual_train_loss_step0")


@pytest.mark.slow
def test_makemore_wavenet_shapes_follow_the_hierarchy():
    out = torch_output("makemore_wavenet.py")
    assert out["layer0_Embedding_out_shape"] == "(4, 8, 10)"
    assert out["layer1_FlattenConsecutive_out_shape"] == "(4, 4, 20)"
    assert out["layer3_BatchNorm1d_out_shape"] == "(4, 4, 48)"
    assert out["layer9_FlattenConsecutive_out_shape"] == "(4, 96)"
    assert out["layer13_Linear_out_shape"] == "(4, 27)"
    assert out["bn_running_var_shape"] == "(1, 1, 48)"  # reduced over dims (0, 1)
    params = 27 * 10 + 20 * 48 + 2 * 96 * 48 + 3 * 2 * 48 + 48 * 27 + 27
    assert out["parameters"] == str(params)
    assert number(out, "loss_step0") == pytest.approx(-math.log(1 / 27), abs=0.2)


@pytest.mark.slow
def test_gpt_char_counts_parameters_and_learns():
    out = torch_output("gpt_char.py")
    v, e, t, layers = int(out["vocab_size"]), 32, 16, 2
    per_layer = 3 * e * e + (e * e + e) + (e * 4 * e + 4 * e) + (4 * e * e + e) + 2 * 2 * e
    assert out["gpt_parameters"] == str(v * e + t * e + layers * per_layer + 2 * e + e * v + v)
    assert out["gpt_tril_buffer_sum"] == str(float(t * (t + 1) // 2))
    assert out["trick_version2_allclose"] == out["trick_version3_allclose"] == "True"
    assert number(out, "bigram_trained_loss") < number(out, "bigram_init_loss")
    assert number(out, "gpt_step0_train_loss") == pytest.approx(math.log(v), abs=0.1)  # std 0.02
    assert number(out, "gpt_step19_train_loss") < number(out, "gpt_step0_train_loss")


def test_parse_output_reads_names_and_refuses_bad_lines():
    assert parse_output("loss 2.5\nsample abc.\n") == {"loss": "2.5", "sample": "abc."}
    with pytest.raises(ValueError, match="repeats"):
        parse_output("loss 1\nloss 2\n")
    with pytest.raises(ValueError, match="not `name value`"):
        parse_output("loss\n")


def test_compare_outputs_uses_tolerance_for_numbers_only():
    want = {"loss": "2.0", "ok": "True", "n": "3"}
    assert compare_outputs(want, {"loss": "2.0000001", "ok": "True", "n": "3"}) == []
    assert compare_outputs(want, {"loss": "2.1", "ok": "True", "n": "3"}) == [
        "loss: expected 2.0, got 2.1"]
    assert compare_outputs(want, {"loss": "2.0", "ok": "False"}) == [
        "missing n", "ok: expected True, got False"]
    assert compare_outputs({"x": "nan"}, {"x": "nan"}) == []
    assert compare_outputs({"x": "inf"}, {"x": "1e308"}) == ["x: expected inf, got 1e308"]
