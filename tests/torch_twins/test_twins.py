"""Scripts written for PyTorch, run unmodified on real torch and on micrograd.torch: same
printed text, same numbers (the twin harness in twin.py)."""

from __future__ import annotations

import pathlib

import pytest
from conftest import require_module
from twin import assert_twins

pytestmark = pytest.mark.slow  # each twin script runs under torch and under micrograd

require_module("torch")


TWINS = pathlib.Path(__file__).parent / "twins"


def test_module_subclass_with_parameters_fit_by_sgd_and_adam(tmp_path):
    assert_twins(TWINS / "polynomial_module.py", tmp_path, rel=1e-9, abs_=1e-12)


def test_dataloader_classifier_with_train_eval_and_accuracy_float32(tmp_path):
    assert_twins(TWINS / "loader_classifier.py", tmp_path, rel=2e-4, abs_=1e-5)


def test_state_dict_and_optimizer_state_survive_save_and_load(tmp_path):
    _, ours = assert_twins(TWINS / "state_dict_round_trip.py", tmp_path, rel=1e-9,
                           abs_=1e-12)
    assert "same outputs: 0.0" in ours


def test_makemore_style_character_mlp_with_embedding_and_batchnorm(tmp_path):
    assert_twins(TWINS / "char_mlp.py", tmp_path, rel=1e-9, abs_=1e-12)
