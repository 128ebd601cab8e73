"""Helpers for the learner-facing tests: a local HTTP server and small idx files.

(Not a conftest.py: tests/conftest.py is imported as `conftest` by the other folders.)
"""

from __future__ import annotations

import contextlib
import gzip
import http.server
import threading
from collections.abc import Iterator


class _Server(http.server.ThreadingHTTPServer):
    files: dict[str, bytes]
    requests: list[str]
    url: str


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        self.server.requests.append(self.path)
        body = self.server.files.get(self.path.lstrip("/"))
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # keep pytest's output clean
        pass


@contextlib.contextmanager
def serve_files() -> Iterator[_Server]:
    """A file server on 127.0.0.1: .files maps names to bytes, .requests logs each GET,
    .url is its base URL."""
    server = _Server(("127.0.0.1", 0), _Handler)
    server.files, server.requests = {}, []
    server.url = f"http://127.0.0.1:{server.server_address[1]}/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def idx_bytes(array) -> bytes:
    """An idx file for a uint8 numpy array, written from the format's definition:
    0, 0, type 0x08, the number of dimensions, each dimension big-endian, the bytes."""
    header = bytes([0, 0, 0x08, array.ndim])
    for size in array.shape:
        header += int(size).to_bytes(4, "big")
    return header + array.astype("uint8").tobytes()


def write_mnist(folder, train_images, train_labels, test_images, test_labels,
                compress: bool = True) -> None:
    """The four MNIST files in `folder` under their published names."""
    parts = {"train-images-idx3-ubyte": train_images, "train-labels-idx1-ubyte": train_labels,
             "t10k-images-idx3-ubyte": test_images, "t10k-labels-idx1-ubyte": test_labels}
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in parts.items():
        data = idx_bytes(array)
        if compress:
            (folder / (name + ".gz")).write_bytes(gzip.compress(data))
        else:
            (folder / name).write_bytes(data)


def separable_digits(n_per_class: int, seed: int):
    """28x28 images where digit d lights row band d (plus noise): trivially separable, so a
    working MLP must classify all of them."""
    import numpy as np

    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(10), n_per_class)
    rng.shuffle(labels)
    images = rng.integers(0, 40, size=(len(labels), 28, 28))
    for k, d in enumerate(labels):
        images[k, 2 + 2 * d: 4 + 2 * d, 4:24] = 255
    return images.astype(np.uint8), labels.astype(np.uint8)


def execute_notebook(nb, cwd, timeout: int = 120):
    """Run a notebook (nbformat node) top to bottom in a fresh python3 kernel that imports
    micrograd from this checkout; returns it with its outputs. A cell that raises fails."""
    import os
    import pathlib

    from nbclient import NotebookClient

    src = str(pathlib.Path(__file__).resolve().parents[2] / "src")
    saved = {k: os.environ.get(k) for k in ("PYTHONPATH", "MPLBACKEND")}
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [src, saved["PYTHONPATH"]]))
    os.environ["MPLBACKEND"] = "Agg"  # no window from a plot in a test run
    try:
        NotebookClient(nb, timeout=timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(cwd)}}).execute()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return nb
