"""Small datasets for the demos and for experiments.

    tiny()      the lecture's 4 samples of 3 numbers, targets +1/-1        (plain lists)
    xor()       the 4 XOR points, labels +1/-1 as the textbook             (plain lists)
    moons()     scikit-learn's make_moons: the micrograd demo's data       (numpy arrays)
    circles()   scikit-learn's make_circles                                (numpy arrays)
    spiral()    k interleaved spiral arms, a classic multi-class toy set   (numpy arrays)
    digits()    scikit-learn's bundled 8x8 digits, pixels scaled to [0, 1] (numpy arrays)
    mnist()     the 70,000 28x28 MNIST digits from their four idx files    (numpy arrays)

fetch() downloads a file once into the data cache ($MICROGRAD_DATA, else the platform's
cache folder) and checks its SHA-256; mnist() uses it, and so can any demo that needs data.

The first two need only the standard library. The others need numpy, and digits needs
scikit-learn (`pip install 'micrograd[demo]'`); without them they raise an ImportError
saying so. moons and circles are scikit-learn's points exactly for the same seed --
moons(100, noise=0.1, seed=1337) is what the micrograd notebook gets after
np.random.seed(1337) -- made by scikit-learn where it is installed, else by the same
recipe here with numpy alone (the same random draws in the same order).
"""

from __future__ import annotations

import gzip
import hashlib
import importlib
import os
import re
import sys
import tempfile
import urllib.error
import urllib.request
import zlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from micrograd._validate import check_positive_int

__all__ = ["MNIST_FILES", "DownloadError", "ForeignFile", "IdxError", "cache_dir", "circles",
           "digits", "fetch", "mnist", "mnist_paths", "moons", "read_idx", "spiral", "tiny", "xor"]

INSTALL_HINT = "pip install 'micrograd[demo]'"


def tiny() -> tuple[list[list[float]], list[float]]:
    """The lecture's dataset: four inputs of three numbers and their desired outputs."""
    xs = [
        [2.0, 3.0, -1.0],
        [3.0, -1.0, 0.5],
        [0.5, 1.0, 1.0],
        [1.0, 1.0, -1.0],
    ]
    ys = [1.0, -1.0, -1.0, 1.0]
    return xs, ys


def xor() -> tuple[list[list[float]], list[float]]:
    """XOR with +1/-1 labels (a tanh output can reach +-1; it never reaches 0/1 targets well)."""
    X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    Y = [-1.0, 1.0, 1.0, -1.0]
    return X, Y


def moons(
    n_samples: int = 100, noise: float | None = None, seed: int | None = None, signed: bool = False
) -> tuple[Any, Any]:
    """Two interleaving half circles: X (n, 2) float64, y in {0, 1} ({-1, +1} if signed).

    The same points as sklearn.datasets.make_moons(n_samples, noise=noise, random_state=seed);
    seed=None draws from numpy's global random state, as the micrograd notebook does.
    """
    check_positive_int("n_samples", n_samples)
    try:
        from sklearn.datasets import make_moons
    except ImportError:
        X, y = _two_arcs(n_samples, noise, seed, _moon_arcs)
    else:
        X, y = make_moons(n_samples=n_samples, noise=noise, random_state=seed)
    return X, (y * 2 - 1 if signed else y)


def circles(
    n_samples: int = 100,
    noise: float | None = None,
    factor: float = 0.8,
    seed: int | None = None,
    signed: bool = False,
) -> tuple[Any, Any]:
    """A small circle inside a large one: sklearn.datasets.make_circles' points exactly."""
    check_positive_int("n_samples", n_samples)
    if not 0 <= factor < 1:
        raise ValueError(f"factor (inner radius / outer radius) must be in [0, 1), got {factor!r}")
    try:
        from sklearn.datasets import make_circles
    except ImportError:
        X, y = _two_arcs(n_samples, noise, seed, lambda np, n_out, n_in:
                         _circle_arcs(np, n_out, n_in, factor))
    else:
        X, y = make_circles(n_samples=n_samples, noise=noise, factor=factor, random_state=seed)
    return X, (y * 2 - 1 if signed else y)


def _two_arcs(n_samples: int, noise: float | None, seed: int | None, arcs: Any) -> tuple:
    """scikit-learn's recipe for moons and circles, with numpy only: class 0 on one arc
    (n // 2 points), class 1 on the other, rows shuffled by the legacy RandomState, then
    Gaussian noise -- the same generator calls in the same order, so the same points."""
    np = _require("numpy", "moons/circles")
    rng = np.random if seed is None else np.random.RandomState(seed)  # None: global state
    n_out = n_samples // 2
    n_in = n_samples - n_out
    (x_out, y_out), (x_in, y_in) = arcs(np, n_out, n_in)
    X = np.column_stack([np.concatenate([x_out, x_in]), np.concatenate([y_out, y_in])])
    labels = np.concatenate([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    order = np.arange(n_samples)
    rng.shuffle(order)
    X, labels = X[order], labels[order]
    if noise is not None:
        X += rng.normal(scale=noise, size=X.shape)
    return X, labels


def _moon_arcs(np: Any, n_out: int, n_in: int) -> tuple:
    """The upper half of the unit circle, and a lower half shifted right by 1, down by 0.5."""
    top, bottom = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    return (np.cos(top), np.sin(top)), (1 - np.cos(bottom), 1 - np.sin(bottom) - 0.5)


def _circle_arcs(np: Any, n_out: int, n_in: int, factor: float) -> tuple:
    """The unit circle and a circle of radius `factor`, points evenly spaced on each."""
    outer = np.linspace(0, 2 * np.pi, n_out, endpoint=False)
    inner = np.linspace(0, 2 * np.pi, n_in, endpoint=False)
    return (np.cos(outer), np.sin(outer)), (np.cos(inner) * factor, np.sin(inner) * factor)


def spiral(
    n_per_class: int = 100, n_classes: int = 3, noise: float = 0.2, seed: int | None = None
) -> tuple[Any, Any]:
    """n_classes spiral arms of n_per_class points each: X (n, 2), y in 0..n_classes-1.

    Arm k: radius r from 0 to 1, angle from 4k to 4(k+1) radians plus Gaussian noise,
    point (r sin angle, r cos angle).
    """
    check_positive_int("n_per_class", n_per_class)
    check_positive_int("n_classes", n_classes)
    np = _require("numpy", "spiral")
    rng = np.random.default_rng(seed)
    radius = np.linspace(0.0, 1.0, n_per_class)
    X = np.empty((n_per_class * n_classes, 2))
    y = np.empty(n_per_class * n_classes, dtype=np.int64)
    for k in range(n_classes):
        rows = slice(k * n_per_class, (k + 1) * n_per_class)
        angle = np.linspace(4.0 * k, 4.0 * (k + 1), n_per_class)
        angle = angle + rng.normal(scale=noise, size=n_per_class)
        X[rows, 0] = radius * np.sin(angle)
        X[rows, 1] = radius * np.cos(angle)
        y[rows] = k
    return X, y


def digits() -> tuple[Any, Any]:
    """scikit-learn's 1,797 8x8 digits (bundled, no download): X (1797, 64) in [0, 1], y 0..9."""
    load_digits = _require("sklearn.datasets", "digits").load_digits
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def _require(module: str, dataset: str) -> Any:
    """Import an optional package, or raise ImportError saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = "scikit-learn" if module.startswith("sklearn") else module
        raise ImportError(
            f"the {dataset} dataset needs {package} ({error.name} is not installed): "
            f"{INSTALL_HINT}"
        ) from error


# --- downloads: fetched once into a cache folder, checked by SHA-256 ----------------------

DATA_ENV = "MICROGRAD_DATA"
DOWNLOAD_TIMEOUT = 60.0  # seconds without a byte before a download is given up
_CHUNK = 1 << 16


class DownloadError(OSError):
    """A file could not be downloaded, or what arrived is not the file expected."""


def cache_dir(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where downloads are kept: data_dir if given, else $MICROGRAD_DATA, else the
    platform's cache folder (~/.cache/micrograd, ~/Library/Caches/micrograd, or
    %LOCALAPPDATA%\\micrograd\\Cache)."""
    if data_dir is not None:
        return Path(data_dir).expanduser()
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return Path(base) / "micrograd" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "micrograd"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "micrograd"


def fetch(url: str | Iterable[str], sha256: str, filename: str,
          data_dir: str | os.PathLike[str] | None = None,
          timeout: float = DOWNLOAD_TIMEOUT, offline_hint: str | None = None) -> Path:
    """The path of `filename` in the cache folder (see cache_dir), downloaded from `url`
    on first use; `url` may be a list of mirrors, tried in order.

    The file's SHA-256 must be `sha256`: a download that does not match is deleted and
    raises DownloadError. The download goes to a temporary file renamed into place only
    when complete and checked, so an interrupted run never leaves half a file under the
    real name. A file already there that does not match is replaced only if fetch wrote it
    (the folder's .micrograd-downloads lists it), and only once its new copy is complete:
    anything else under that name is the user's, kept as it is and reported (ForeignFile).
    `offline_hint`: what the user should do when no mirror answers (default: where to save
    the file by hand).
    """
    urls = [url] if isinstance(url, str) else list(url)
    if not urls or not all(isinstance(u, str) and u.startswith(("http://", "https://"))
                           for u in urls):
        raise ValueError(f"fetch needs http:// or https:// URLs, got {url!r}")
    expected = sha256.lower() if isinstance(sha256, str) else ""
    if not re.fullmatch(r"[0-9a-f]{64}", expected):
        raise ValueError(f"sha256 must be 64 hexadecimal digits, got {sha256!r}")
    if (not isinstance(filename, str) or not filename or filename in (".", "..")
            or "/" in filename or "\\" in filename or filename == MANIFEST):
        raise ValueError(f"filename must be a plain file name (no folders), got {filename!r}")
    folder = cache_dir(data_dir)
    path = folder / filename
    if path.exists():
        if path.is_file() and _sha256_of(path) == expected:
            return path
        if not path.is_file() or filename not in _written_by_fetch(folder):
            found = (f"has SHA-256 {_sha256_of(path)}" if path.is_file() else "is not a file")
            raise ForeignFile(
                f"{path} {found}, not the {expected} of the {filename} micrograd downloads. "
                f"micrograd did not write it, so it is left untouched: to use it, pass it "
                f"yourself (a demo's --data {path}); to let micrograd download its own copy, "
                f"move it out of {folder}")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise DownloadError(f"cannot create the data folder {str(folder)!r} "
                            f"({error.strerror or error}); set ${DATA_ENV} to a folder you "
                            f"can write to") from None
    failures = []
    for source in urls:
        try:
            digest = _download(source, path, timeout, expected)
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", None) or error
            failures.append(f"{source}: {reason}")
            continue
        if digest != expected:
            raise DownloadError(
                f"{filename} downloaded from {source} has SHA-256 {digest}, expected "
                f"{expected}; the download was deleted. The server sent something else (a "
                f"changed file, an error page or a proxy's page): download it yourself and "
                f"save it as {path}")
        _record_written(folder, filename)
        return path
    hint = offline_hint or (f"Download {urls[0]} yourself and save it as {path} "
                            f"(or set ${DATA_ENV} to the folder that holds {filename})")
    raise DownloadError(f"could not download {filename} ({'; '.join(failures)}). "
                        f"Offline? {hint}")


class ForeignFile(DownloadError):
    """The cache folder holds a file under the download's name that fetch did not write and
    that is not the file expected: it is kept, never deleted or overwritten."""


MANIFEST = ".micrograd-downloads"  # the names of the files fetch wrote into a folder


def _written_by_fetch(folder: Path) -> set[str]:
    try:
        return set((folder / MANIFEST).read_text(encoding="utf-8").splitlines())
    except OSError:
        return set()


def _record_written(folder: Path, filename: str) -> None:
    names = _written_by_fetch(folder)
    if filename not in names:
        with open(folder / MANIFEST, "a", encoding="utf-8") as manifest:
            manifest.write(filename + "\n")


def _download(url: str, path: Path, timeout: float, expected: str) -> str:
    """Stream url into a temporary file beside `path` and return its SHA-256; the file is
    renamed into place if that is `expected`, else deleted."""
    digest = hashlib.sha256()
    handle, partial = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".",
                                       suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as reply:
            while chunk := reply.read(_CHUNK):
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() == expected:
            os.replace(partial, path)
    finally:
        Path(partial).unlink(missing_ok=True)  # gone already if it was renamed
    return digest.hexdigest()


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# --- MNIST: the four idx files --------------------------------------------------------------

MNIST_MIRRORS = (
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
)
# part -> (file name, SHA-256 of the .gz file as published)
MNIST_FILES = {
    "train_images": ("train-images-idx3-ubyte",
                     "440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609"),
    "train_labels": ("train-labels-idx1-ubyte",
                     "3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c"),
    "test_images": ("t10k-images-idx3-ubyte",
                    "8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6"),
    "test_labels": ("t10k-labels-idx1-ubyte",
                    "f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6"),
}
MNIST_LARGEST = 47_040_016  # bytes of train-images-idx3-ubyte: 16 + 60000 * 28 * 28
MAX_IDX_BYTES = 64 * 2**20  # read_idx refuses more (a gzip bomb, a wrong file)
IDX_IMAGES_MAGIC, IDX_LABELS_MAGIC = 2051, 2049  # unsigned bytes, 3 and 1 dimensions


class IdxError(ValueError):
    """A file is not the idx file it should be (wrong magic number, sizes, or truncated)."""


def read_idx(path: str | os.PathLike[str]) -> Any:
    """An idx file (gzip-compressed or not) as a numpy uint8 array of its dimensions.

    idx: two zero bytes, a type byte (0x08: unsigned bytes), the number of dimensions,
    each dimension as a big-endian 32-bit integer, then the data.
    """
    np = _require("numpy", "idx")
    with open(path, "rb") as file:
        compressed = file.read(2) == b"\x1f\x8b"  # gzip's magic, whatever the file's name
        file.seek(0)
        try:
            # read at most one byte past the bound: a gzip bomb (a few KB that expand to
            # gigabytes) or a huge file stops here with one line, not a MemoryError
            raw = (gzip.GzipFile(fileobj=file) if compressed else file).read(MAX_IDX_BYTES + 1)
        except (OSError, EOFError, zlib.error) as error:
            raise IdxError(f"{path}: a damaged gzip file ({error})") from None
    if len(raw) > MAX_IDX_BYTES:
        raise IdxError(f"{path}: {'expands to' if compressed else 'holds'} more than "
                       f"{MAX_IDX_BYTES:,} bytes; MNIST's biggest idx file has "
                       f"{MNIST_LARGEST:,} (is this the right file?)")
    if len(raw) < 4 or raw[:2] != b"\0\0":
        raise IdxError(f"{path}: not an idx file (it should start with two zero bytes, then "
                       f"type and dimension bytes; starts with {raw[:4].hex() or 'nothing'})")
    if raw[2] != 0x08:
        raise IdxError(f"{path}: idx data of type 0x{raw[2]:02x}; MNIST's are unsigned bytes "
                       f"(0x08)")
    ndim = raw[3]
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise IdxError(f"{path}: truncated: {ndim} dimensions announced, the header ends early")
    dims = [int.from_bytes(raw[4 + 4 * k: 8 + 4 * k], "big") for k in range(ndim)]
    size = int(np.prod(dims)) if dims else 1
    if len(raw) - header != size:
        raise IdxError(f"{path}: dimensions {' x '.join(map(str, dims))} need {size} bytes of "
                       f"data, the file has {len(raw) - header}"
                       + (" (truncated?)" if len(raw) - header < size else ""))
    return np.frombuffer(raw, dtype=np.uint8, offset=header).reshape(dims)


def _check_idx(array: Any, path: Path, images: bool) -> None:
    want = (3, "images", "N x 28 x 28") if images else (1, "labels", "N")
    if array.ndim != want[0] or (images and array.shape[1:] != (28, 28)):
        magic = IDX_IMAGES_MAGIC if images else IDX_LABELS_MAGIC
        raise IdxError(f"{path}: MNIST {want[1]} are {want[2]} (magic number {magic}); this "
                       f"file holds {' x '.join(map(str, array.shape)) or 'a scalar'}")
    if not images and array.size and array.max() > 9:
        raise IdxError(f"{path}: MNIST labels are digits 0-9, found {int(array.max())}")


def mnist_paths(data_dir: str | os.PathLike[str] | None = None) -> dict[str, Path]:
    """The four MNIST files: from data_dir (as given, no download; .gz or not; a folder, or
    one of the four files, meaning its folder), else from the cache folder, downloaded on
    first use with their SHA-256 checked."""
    if data_dir is None:
        names = " ".join(name + ".gz" for name, _ in MNIST_FILES.values())
        hint = (f"Download {names} from {MNIST_MIRRORS[0]} into one folder and run "
                f"`micrograd demo mnist --data FOLDER`")
        return {part: fetch([m + name + ".gz" for m in MNIST_MIRRORS], digest, name + ".gz",
                            offline_hint=hint)
                for part, (name, digest) in MNIST_FILES.items()}
    folder = Path(data_dir).expanduser()
    if folder.is_file():  # one of the four files: --data means its folder, as for the others
        folder = folder.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"--data {str(folder)!r}: no such file or folder; give the "
                                f"folder that holds MNIST's four idx files (or one of them)")
    paths, missing = {}, []
    for part, (name, _) in MNIST_FILES.items():
        # the published names, and the ones with a dot some copies use (train-images.idx3-ubyte)
        dotted = name.replace("-idx", ".idx")
        found = [folder / n for n in (name, name + ".gz", dotted, dotted + ".gz")
                 if (folder / n).is_file()]
        if found:
            paths[part] = found[0]
        else:
            missing.append(name + "[.gz]")
    if missing:
        needed = ", ".join(n for n, _ in MNIST_FILES.values())
        raise FileNotFoundError(f"--data {str(folder)!r} lacks MNIST's {', '.join(missing)}; "
                                f"it needs the four files {needed} (gzip-compressed or not)")
    return paths


def mnist(data_dir: str | os.PathLike[str] | None = None) -> tuple[Any, Any, Any, Any]:
    """MNIST as X_train (60000, 784), y_train, X_test (10000, 784), y_test: pixels float32
    in [0, 1], labels int64 0..9. Files from data_dir, else the cache (see mnist_paths)."""
    np = _require("numpy", "mnist")
    paths = mnist_paths(data_dir)
    arrays = {}
    for part, path in paths.items():
        array = read_idx(path)
        _check_idx(array, path, images=part.endswith("images"))
        arrays[part] = array
    for split in ("train", "test"):
        n_images, n_labels = len(arrays[f"{split}_images"]), len(arrays[f"{split}_labels"])
        if n_images != n_labels:
            raise IdxError(f"MNIST {split}: {n_images} images but {n_labels} labels "
                           f"({paths[f'{split}_images']}, {paths[f'{split}_labels']})")

    def pixels(images: Any) -> Any:
        return (images.reshape(len(images), -1) / np.float32(255)).astype(np.float32)

    return (pixels(arrays["train_images"]), arrays["train_labels"].astype(np.int64),
            pixels(arrays["test_images"]), arrays["test_labels"].astype(np.int64))
