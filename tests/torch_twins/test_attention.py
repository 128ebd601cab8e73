"""F.scaled_dot_product_attention, the fused node, against torch's: values and gradients of
query, key, value (and a float mask) in float64, for causal, boolean and float masks,
scales, batch shapes, and dropout under the same seed."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch.nn import functional as F

torch = require_module("torch")

RNG = np.random.default_rng(19)


def _pair(shape, requires_grad=True):
    x = RNG.normal(size=shape)
    return mt.tensor(x, requires_grad=requires_grad), torch.tensor(x, requires_grad=requires_grad)


def check_twin(q_shape, k_shape, v_shape, *, mask=None, mask_grad=False, **kwargs):
    """Forward and every input's gradient of ours equal torch's (float64, 1e-10)."""
    qo, qt = _pair(q_shape)
    ko, kt = _pair(k_shape)
    vo, vt = _pair(v_shape)
    mo = mt_mask = None
    if mask is not None:
        if mask.dtype == np.bool_:
            mo, mt_mask = mt.tensor(mask), torch.tensor(mask)
        else:
            mo = mt.tensor(mask, requires_grad=mask_grad)
            mt_mask = torch.tensor(mask, requires_grad=mask_grad)
    yo = F.scaled_dot_product_attention(qo, ko, vo, attn_mask=mo, **kwargs)
    yt = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, attn_mask=mt_mask,
                                                          **kwargs)
    np.testing.assert_allclose(yo.data, yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    seed = RNG.normal(size=tuple(yt.shape))
    (yo * mt.tensor(seed)).sum().backward()
    (yt * torch.tensor(seed)).sum().backward()
    for name, ours, theirs in (("query", qo, qt), ("key", ko, kt), ("value", vo, vt)):
        np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)
    if mask_grad:
        np.testing.assert_allclose(mo.grad, mt_mask.grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg="attn_mask")


def test_plain_attention_matches_torch():
    check_twin((2, 3, 5, 4), (2, 3, 7, 4), (2, 3, 7, 6))


def test_causal_attention_matches_torch_square_and_rectangular():
    check_twin((2, 4, 8, 16), (2, 4, 8, 16), (2, 4, 8, 16), is_causal=True)
    check_twin((3, 5, 4), (3, 7, 4), (3, 7, 2), is_causal=True)  # L < S: top-left aligned


def test_boolean_mask_broadcast_over_batch_matches_torch():
    mask = np.tril(np.ones((6, 6), dtype=bool))
    mask[3, :2] = False
    check_twin((2, 3, 6, 4), (2, 3, 6, 4), (2, 3, 6, 5), mask=mask)


def test_float_mask_and_its_gradient_match_torch():
    mask = RNG.normal(size=(1, 5, 7))
    check_twin((2, 5, 3), (2, 7, 3), (2, 7, 4), mask=mask, mask_grad=True)


def test_explicit_scale_matches_torch():
    check_twin((2, 6, 8), (2, 6, 8), (2, 6, 8), is_causal=True, scale=0.3)


def test_dropout_uses_torchs_mask_for_the_same_seed():
    mt.manual_seed(5)
    torch.manual_seed(5)
    check_twin((2, 2, 6, 4), (2, 2, 6, 4), (2, 2, 6, 4), is_causal=True, dropout_p=0.3)


def test_the_lecture_head_gives_the_same_numbers_fused_and_composed():
    """The GPT lecture's masked-softmax head, written with ops, against the fused node."""
    x = RNG.normal(size=(2, 8, 4))
    q1, k1, v1 = (mt.tensor(x + i, requires_grad=True) for i in range(3))
    q2, k2, v2 = (mt.tensor(x + i, requires_grad=True) for i in range(3))
    tril = mt.tril(mt.ones(8, 8))
    wei = q1 @ k1.transpose(-2, -1) * 4 ** -0.5
    composed = F.softmax(wei.masked_fill(tril == 0, float("-inf")), dim=-1) @ v1
    fused = F.scaled_dot_product_attention(q2, k2, v2, is_causal=True)
    np.testing.assert_allclose(fused.data, composed.data, rtol=1e-12)
    composed.sum().backward()
    fused.sum().backward()
    for a, b in ((q1, q2), (k1, k2), (v1, v2)):
        np.testing.assert_allclose(b.grad, a.grad, rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(("shapes", "kwargs", "error", "words"), [
    (((2, 3, 4), (2, 3, 5), (2, 3, 4)), {}, ValueError, "same last dimension"),
    (((2, 3, 4), (2, 3, 4), (2, 5, 4)), {}, ValueError, "same sequence length"),
    (((2, 3, 4), (2, 3, 4), (2, 3, 4)), {"dropout_p": 1.5}, ValueError, "between 0 and 1"),
    (((2, 3, 4), (2, 3, 4), (2, 3, 4)), {"is_causal": True, "attn_mask": "mask"}, ValueError,
     "not both"),
])
def test_bad_arguments_say_what_was_wrong(shapes, kwargs, error, words):
    q, k, v = (mt.tensor(RNG.normal(size=s)) for s in shapes)
    if kwargs.get("attn_mask") == "mask":
        kwargs = {**kwargs, "attn_mask": mt.ones(3, 3, dtype=mt.bool)}
    with pytest.raises(error, match=words):
        F.scaled_dot_product_attention(q, k, v, **kwargs)


def test_a_mask_of_the_wrong_shape_is_an_error():
    q = mt.tensor(RNG.normal(size=(2, 3, 4)))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mt.ones(4, 4, dtype=mt.bool))
