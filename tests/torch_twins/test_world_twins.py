"""Scripts in the style of nanoGPT and makemore (written here), run unmodified on real
torch and on micrograd.torch: the names such scripts reach for (torch.backends, amp,
distributed checks, samplers, clip_grad_norm_, checkpoints) and the same printed numbers."""

from __future__ import annotations

import pathlib

from conftest import require_module
from twin import assert_twins, numbers, run, shape

require_module("torch")

TWINS = pathlib.Path(__file__).parent / "twins"


def test_gpt_with_backend_flags_clipping_checkpoint_and_resume(tmp_path):
    script = TWINS / "gpt_checkpoint_resume.py"
    assert_twins(script, tmp_path, rel=1e-4, abs_=1e-5)
    # the resumed run reads each side's own ckpt.pt and must go on identically
    resume = ("--init_from=resume", "--max_iters=16")
    theirs = run(script, micrograd=False, cwd=tmp_path / "torch", args=resume)
    ours = run(script, micrograd=True, cwd=tmp_path / "micrograd", args=resume)
    assert "resumed at 6" in ours and shape(ours) == shape(theirs)
    for x, y in zip(numbers(theirs), numbers(ours), strict=True):
        assert abs(x - y) <= 1e-5 + 1e-4 * abs(x), (theirs, ours)


def test_makemore_style_samplers_loaders_and_autograd_rules(tmp_path):
    _, ours = assert_twins(TWINS / "names_samplers.py", tmp_path, rel=1e-5, abs_=1e-6)
    assert "third: Trying to backward through the graph a second time" in ours
