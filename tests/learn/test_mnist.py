"""MNIST: idx files read by the format's definition, loader errors, the demo end to end.

The fixtures are written here from the idx specification (learn_helpers.idx_bytes), so
the loader is checked against the format, not against its own output."""

from __future__ import annotations

import gzip
import hashlib
import os
import re
import socket
import subprocess
import sys

import pytest
from conftest import SRC, require_module
from learn_helpers import idx_bytes, separable_digits, serve_files, write_mnist

from micrograd import cli, datasets
from micrograd.datasets import IdxError, read_idx

np = require_module("numpy")


def small_mnist(folder, compress=True, n_train=30, n_test=10, seed=0):
    rng = np.random.default_rng(seed)
    parts = (rng.integers(0, 256, (n_train, 28, 28)), rng.integers(0, 10, n_train),
             rng.integers(0, 256, (n_test, 28, 28)), rng.integers(0, 10, n_test))
    write_mnist(folder, *parts, compress=compress)
    return parts


@pytest.mark.parametrize("compress", [True, False], ids=["gzip", "raw"])
def test_read_idx_gives_the_array_written(tmp_path, compress):
    array = np.arange(2 * 3 * 5, dtype=np.uint8).reshape(2, 3, 5)
    data = idx_bytes(array)
    (tmp_path / "a").write_bytes(gzip.compress(data) if compress else data)
    assert np.array_equal(read_idx(tmp_path / "a"), array)


@pytest.mark.parametrize("compress", [True, False], ids=["gzip", "raw"])
def test_mnist_from_data_folder(tmp_path, compress):
    train_x, train_y, test_x, test_y = small_mnist(tmp_path, compress)
    X_train, y_train, X_test, y_test = datasets.mnist(tmp_path)
    assert X_train.shape == (30, 784) and X_test.shape == (10, 784)
    assert X_train.dtype == np.float32 and y_train.dtype == np.int64
    assert np.allclose(X_train, train_x.reshape(30, 784) / 255.0)
    assert np.allclose(X_test, test_x.reshape(10, 784) / 255.0)
    assert np.array_equal(y_train, train_y) and np.array_equal(y_test, test_y)


def test_copies_with_dotted_names_are_found(tmp_path):
    small_mnist(tmp_path, compress=False)
    for path in tmp_path.iterdir():  # train-images-idx3-ubyte -> train-images.idx3-ubyte
        path.rename(tmp_path / path.name.replace("-idx", ".idx"))
    assert datasets.mnist(tmp_path)[0].shape == (30, 784)


def test_missing_files_are_named(tmp_path):
    small_mnist(tmp_path)
    (tmp_path / "t10k-labels-idx1-ubyte.gz").unlink()
    with pytest.raises(FileNotFoundError, match=r"lacks MNIST's t10k-labels-idx1-ubyte\[\.gz\]"):
        datasets.mnist(tmp_path)


def test_data_that_does_not_exist(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file or folder"):
        datasets.mnist(tmp_path / "nowhere")


def test_data_may_name_one_of_the_files_meaning_its_folder(tmp_path):
    """--data means the same in every demo: a folder, or a file (here: its folder)."""
    small_mnist(tmp_path)
    from_file = datasets.mnist(tmp_path / "t10k-labels-idx1-ubyte.gz")
    from_folder = datasets.mnist(tmp_path)
    assert all((a == b).all() for a, b in zip(from_file, from_folder, strict=True))


@pytest.mark.parametrize("compress", [True, False], ids=["gzip-bomb", "huge-raw-file"])
def test_a_file_bigger_than_any_mnist_file_is_one_line_error(tmp_path, compress, capsys):
    """A gzip bomb (about 100 KB expanding to 100 MB of zeros) stops at the bound, with one
    line saying what was wrong, not a MemoryError traceback."""
    small_mnist(tmp_path)
    huge = b"\0" * (datasets.MAX_IDX_BYTES + 2**20)
    name = "train-images-idx3-ubyte"
    (tmp_path / (name + ".gz")).unlink()
    if compress:
        (tmp_path / (name + ".gz")).write_bytes(gzip.compress(huge, compresslevel=9))
    else:
        (tmp_path / name).write_bytes(huge)
    code = cli.main(["demo", "mnist", "--data", str(tmp_path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert f"more than {datasets.MAX_IDX_BYTES:,} bytes" in err and name in err


def replace(folder, name, data):
    (folder / (name + ".gz")).write_bytes(gzip.compress(data))


@pytest.mark.parametrize("name, data, message", [
    ("train-images-idx3-ubyte", b"PK\x03\x04 a zip file", "not an idx file"),
    ("train-images-idx3-ubyte", b"\0\0\x0d\x01" + (4).to_bytes(4, "big") + bytes(16),
     r"type 0x0d.*unsigned bytes"),
    ("train-images-idx3-ubyte", idx_bytes(np.zeros((30, 28, 28), np.uint8))[:-5],
     r"need 23520 bytes of data, the file has 23515 \(truncated\?\)"),
    ("train-images-idx3-ubyte", idx_bytes(np.zeros((30, 14, 14), np.uint8)),
     r"images are N x 28 x 28 \(magic number 2051\); this file holds 30 x 14 x 14"),
    ("train-labels-idx1-ubyte", idx_bytes(np.zeros((30, 28, 28), np.uint8)),
     r"labels are N \(magic number 2049\)"),
    ("train-labels-idx1-ubyte", idx_bytes(np.full(30, 12, np.uint8)), "digits 0-9, found 12"),
    ("train-labels-idx1-ubyte", idx_bytes(np.zeros(29, np.uint8)),
     "30 images but 29 labels"),
])
def test_bad_idx_files_get_clear_errors(tmp_path, name, data, message):
    small_mnist(tmp_path)
    replace(tmp_path, name, data)
    with pytest.raises(IdxError, match=message):
        datasets.mnist(tmp_path)


def test_damaged_gzip(tmp_path):
    small_mnist(tmp_path)
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(IdxError, match="damaged gzip"):
        datasets.mnist(tmp_path)


def test_without_data_folder_the_files_are_downloaded_and_checked(tmp_path, monkeypatch):
    small_mnist(tmp_path / "site")
    with serve_files() as server:
        files = {}
        for part, (name, _) in datasets.MNIST_FILES.items():
            body = (tmp_path / "site" / (name + ".gz")).read_bytes()
            server.files["mnist/" + name + ".gz"] = body
            files[part] = (name, hashlib.sha256(body).hexdigest())
        monkeypatch.setattr(datasets, "MNIST_FILES", files)
        monkeypatch.setattr(datasets, "MNIST_MIRRORS", (server.url + "mnist/",))
        monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
        first = datasets.mnist()
        second = datasets.mnist()  # from the cache
        assert len(server.requests) == 4
    assert np.array_equal(first[0], second[0]) and first[0].shape == (30, 784)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(
        [datasets.MANIFEST] + [name + ".gz" for name, _ in files.values()])


def test_published_checksums_are_the_known_ones():
    # the SHA-256 sums of the four .gz files as published (and listed by torchvision and
    # TensorFlow's mirror): a typo here would make every real download fail
    assert dict(datasets.MNIST_FILES.values()) == {
        "train-images-idx3-ubyte":
            "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609",
        "train-labels-idx1-ubyte":
            "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c",
        "t10k-images-idx3-ubyte":
            "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6",
        "t10k-labels-idx1-ubyte":
            "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6",
    }


# --- the demo -------------------------------------------------------------------------------

def separable_mnist(folder):
    train_x, train_y = separable_digits(40, seed=1)
    test_x, test_y = separable_digits(10, seed=2)
    write_mnist(folder, train_x, train_y, test_x, test_y)
    return test_y


def test_training_on_separable_digits_classifies_them_all(tmp_path):
    from micrograd.demos.mnist import confusion_matrix, train_mnist

    test_y = separable_mnist(tmp_path)
    run = train_mnist(data_dir=str(tmp_path), steps=150, batch_size=32)
    assert run.accuracy == 1.0
    counts = confusion_matrix(run.y_test, run.predicted)
    assert np.array_equal(counts, np.diag(np.bincount(test_y, minlength=10)))


def test_confusion_matrix_matches_scikit_learn():
    metrics = require_module("sklearn.metrics")
    from micrograd.demos.mnist import confusion_matrix

    rng = np.random.default_rng(3)
    true, predicted = rng.integers(0, 10, 500), rng.integers(0, 10, 500)
    assert np.array_equal(confusion_matrix(true, predicted),
                          metrics.confusion_matrix(true, predicted, labels=range(10)))


def test_demo_mnist_end_to_end(tmp_path, capsys):
    require_module("matplotlib")
    separable_mnist(tmp_path / "data")
    code = cli.main(["demo", "mnist", "--data", str(tmp_path / "data"),
                     "--out", str(tmp_path / "out"), "--steps", "150"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "test accuracy 100.00% (100/100)" in out
    assert "confusion matrix" in out
    row_for_3 = next(line for line in out.splitlines() if re.match(r"\s+3\s+\d", line))
    assert [int(n) for n in row_for_3.split()[1:]] == [0, 0, 0, 10, 0, 0, 0, 0, 0, 0]
    picture = tmp_path / "out" / "mnist_misclassified.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_mnist_misclassified_picture_shows_the_mistakes(tmp_path):
    require_module("matplotlib")
    from micrograd.demos.mnist import save_misclassified

    X = np.zeros((3, 784), np.float32)
    path = save_misclassified(X, np.array([1, 2, 3]), np.array([1, 7, 3]),
                              str(tmp_path / "wrong.png"))
    assert (tmp_path / "wrong.png").read_bytes()[:4] == b"\x89PNG" and path.endswith("wrong.png")


def test_demo_mnist_offline_says_to_use_data(tmp_path, monkeypatch, capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(datasets, "MNIST_MIRRORS", (f"http://127.0.0.1:{port}/",))
    monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
    code = cli.main(["demo", "mnist", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2
    assert "could not download train-images-idx3-ubyte.gz" in err
    # one instruction, naming all four files and the command that then works
    for name, _ in datasets.MNIST_FILES.values():
        assert f"{name}.gz" in err
    assert "`micrograd demo mnist --data FOLDER`" in err


def test_data_option_belongs_to_mnist(tmp_path, capsys):
    assert cli.main(["demo", "xor", "--data", str(tmp_path)]) == 2
    assert "--data is for the mnist demo" in capsys.readouterr().err


def test_demo_mnist_refuses_the_scalar_engine(tmp_path, capsys):
    assert cli.main(["demo", "mnist", "--engine", "scalar", "--data", str(tmp_path)]) == 2
    assert "Tensor engine only" in capsys.readouterr().err


def test_demo_mnist_without_numpy_says_what_to_install(tmp_path):
    blocked = ("import sys; sys.modules['numpy'] = None\n"
               "from micrograd.cli import main\n"
               f"sys.exit(main(['demo', 'mnist', '--out', {str(tmp_path / 'out')!r}]))")
    result = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True,
                            check=False,
                            env={**os.environ, "PYTHONPATH": str(SRC)}, timeout=120)
    assert result.returncode == 3, result.stderr
    assert "micrograd demo mnist needs numpy: pip install 'micrograd[demo]'" in result.stderr


def test_demo_mnist_refuses_zero_steps(tmp_path, capsys):
    separable_mnist(tmp_path / "data")
    code = cli.main(["demo", "mnist", "--data", str(tmp_path / "data"), "--steps", "0",
                     "--out", str(tmp_path / "out")])
    assert code == 2
    assert "--steps must be a positive integer, got 0" in capsys.readouterr().err
