"""Datasets: the lecture's and textbook's numbers, scikit-learn's points, sane shapes and labels."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from conftest import optional_module

from micrograd import datasets

# scikit-learn (the demo extra) is the oracle of the tests that use it: they skip without it
sklearn_datasets = optional_module("sklearn.datasets")


def test_tiny_is_the_lectures_dataset():
    xs, ys = datasets.tiny()
    assert xs == [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    assert ys == [1.0, -1.0, -1.0, 1.0]
    xs[0][0] = 99.0  # each call returns fresh lists
    assert datasets.tiny()[0][0][0] == 2.0


def test_xor_is_the_textbooks_table_with_plus_minus_one_labels():
    X, Y = datasets.xor()
    assert X == [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    assert Y == [-1.0, 1.0, 1.0, -1.0]
    assert all((a != b) == (y > 0) for (a, b), y in zip(X, Y, strict=True))


@pytest.mark.parametrize("n, noise, seed", [(100, 0.1, 1337), (57, None, 0), (300, 0.3, 5)])
def test_moons_are_sklearns_points_exactly(n, noise, seed):
    X, y = datasets.moons(n, noise=noise, seed=seed)
    X_ref, y_ref = sklearn_datasets.make_moons(n_samples=n, noise=noise, random_state=seed)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)
    assert X.shape == (n, 2) and set(np.unique(y)) == {0, 1}


def test_moons_without_seed_follow_numpys_global_state_as_the_notebook():
    np.random.seed(1337)
    X, y = datasets.moons(100, noise=0.1, signed=True)
    np.random.seed(1337)
    X_ref, y_ref = sklearn_datasets.make_moons(n_samples=100, noise=0.1)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref * 2 - 1)
    # The notebook's last cell prints plt.ylim(yy.min(), yy.max()) for its h = 0.25 mesh:
    yy = np.arange(X[:, 1].min() - 1, X[:, 1].max() + 1, 0.25)
    assert (yy.min(), yy.max()) == (-1.548639298268643, 1.951360701731357)


def test_circles_are_sklearns_points_and_balanced():
    X, y = datasets.circles(101, noise=0.05, factor=0.5, seed=3, signed=True)
    X_ref, y_ref = sklearn_datasets.make_circles(
        n_samples=101, noise=0.05, factor=0.5, random_state=3
    )
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref * 2 - 1)
    counts = sorted(np.unique(y, return_counts=True)[1])
    assert counts == [50, 51]
    radius = np.hypot(X[:, 0], X[:, 1])
    assert radius[y == 1].mean() < radius[y == -1].mean()  # class 1 is the inner circle


def test_spiral_has_balanced_classes_on_growing_radii_and_is_seeded():
    X, y = datasets.spiral(n_per_class=80, n_classes=4, noise=0.1, seed=7)
    assert X.shape == (320, 2) and X.dtype == np.float64
    assert np.array_equal(np.unique(y, return_counts=True)[1], [80, 80, 80, 80])
    radius = np.hypot(X[:, 0], X[:, 1])
    for k in range(4):
        arm = radius[y == k]
        assert arm[0] == 0.0 and arm[-1] == pytest.approx(1.0)  # noise moves the angle only
        assert np.all(np.diff(arm) > 0)
    np.testing.assert_array_equal(X, datasets.spiral(80, 4, 0.1, seed=7)[0])
    assert not np.array_equal(X, datasets.spiral(80, 4, 0.1, seed=8)[0])


def test_digits_are_sklearns_scaled_to_unit_range():
    sklearn_datasets.load_digits  # the dataset is scikit-learn's: skip without it
    X, y = datasets.digits()
    assert X.shape == (1797, 64) and X.min() == 0.0 and X.max() == 1.0
    assert set(np.unique(y)) == set(range(10))


GRID = [(n, noise, seed) for n in (1, 2, 7, 100, 101) for noise in (None, 0.0, 0.2)
        for seed in (0, 1337, None)]


@pytest.mark.parametrize("n, noise, seed", GRID)
def test_without_scikit_learn_moons_and_circles_are_still_its_exact_points(
        monkeypatch, n, noise, seed):
    references = []
    for make, kwargs in ((sklearn_datasets.make_moons, {}),
                         (sklearn_datasets.make_circles, {"factor": 0.3})):
        np.random.seed(99)  # used when seed is None, as the notebook's np.random.seed(1337)
        references.append(make(n_samples=n, noise=noise, random_state=seed, **kwargs))
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # import now fails
    ours = []
    for make, kwargs in ((datasets.moons, {}), (datasets.circles, {"factor": 0.3})):
        np.random.seed(99)
        ours.append(make(n, noise=noise, seed=seed, **kwargs))
    for (X, y), (X_ref, y_ref) in zip(ours, references, strict=True):
        np.testing.assert_array_equal(X, X_ref)
        np.testing.assert_array_equal(y, y_ref)
        assert X.dtype == X_ref.dtype and y.dtype == y_ref.dtype


def test_digits_without_scikit_learn_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # import now fails
    with pytest.raises(ImportError, match=r"digits dataset needs scikit-learn.*micrograd\[demo\]"):
        datasets.digits()


def test_circles_factor_outside_zero_to_one_is_a_clear_error():
    with pytest.raises(ValueError, match=r"factor .* must be in \[0, 1\), got 1.5"):
        datasets.circles(10, factor=1.5)


@pytest.mark.parametrize(
    "call",
    [lambda: datasets.moons(0), lambda: datasets.spiral(10, n_classes=0),
     lambda: datasets.circles("100")],
)
def test_bad_sizes_are_value_errors(call):
    with pytest.raises(ValueError, match="must be a positive int"):
        call()
