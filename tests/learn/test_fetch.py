"""datasets.fetch against a real HTTP server on 127.0.0.1 (no test leaves the machine)."""

from __future__ import annotations

import hashlib
import re
import socket

import pytest
from learn_helpers import serve_files

from micrograd import datasets
from micrograd.datasets import DownloadError, ForeignFile, fetch

PAYLOAD = b"0123456789" * 10_000  # bigger than one read chunk
DIGEST = hashlib.sha256(PAYLOAD).hexdigest()


@pytest.fixture
def http_server():
    with serve_files() as server:
        yield server


def test_first_download_writes_the_file_into_data_dir(http_server, tmp_path):
    http_server.files["data.bin"] = PAYLOAD
    path = fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    assert path == tmp_path / "data.bin"
    assert path.read_bytes() == PAYLOAD
    assert http_server.requests == ["/data.bin"]
    # no .part left behind; the manifest says fetch wrote data.bin
    assert sorted(p.name for p in tmp_path.iterdir()) == [datasets.MANIFEST, "data.bin"]


def test_cache_hit_makes_no_second_request(http_server, tmp_path):
    http_server.files["data.bin"] = PAYLOAD
    fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    again = fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    assert again.read_bytes() == PAYLOAD
    assert http_server.requests == ["/data.bin"]


def test_environment_variable_chooses_the_cache(http_server, tmp_path, monkeypatch):
    http_server.files["data.bin"] = PAYLOAD
    monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
    path = fetch(http_server.url + "data.bin", DIGEST, "data.bin")
    assert path == tmp_path / "cache" / "data.bin"


def test_default_cache_is_the_platform_cache_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("MICROGRAD_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(datasets.sys, "platform", "linux")
    assert datasets.cache_dir() == tmp_path / "micrograd"
    monkeypatch.setattr(datasets.sys, "platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "Local"))
    assert datasets.cache_dir() == tmp_path / "Local" / "micrograd" / "Cache"


def test_bad_checksum_deletes_the_download_and_says_so(http_server, tmp_path):
    http_server.files["data.bin"] = PAYLOAD + b"tampered"
    with pytest.raises(DownloadError, match=r"SHA-256.*expected.*deleted"):
        fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_damaged_file_fetch_wrote_is_downloaded_again(http_server, tmp_path):
    http_server.files["data.bin"] = PAYLOAD
    fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    (tmp_path / "data.bin").write_bytes(b"half a file")
    path = fetch(http_server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    assert path.read_bytes() == PAYLOAD
    assert http_server.requests == ["/data.bin", "/data.bin"]


def test_a_damaged_file_fetch_wrote_is_kept_until_its_new_copy_is_complete(tmp_path):
    """Offline: the old copy is still there after the failed download (nothing deleted first)."""
    with serve_files() as server:
        server.files["data.bin"] = PAYLOAD
        fetch(server.url + "data.bin", DIGEST, "data.bin", data_dir=tmp_path)
    (tmp_path / "data.bin").write_bytes(b"half a file")
    with pytest.raises(DownloadError, match="could not download"):
        fetch(closed_port_url() + "data.bin", DIGEST, "data.bin", data_dir=tmp_path, timeout=5)
    assert (tmp_path / "data.bin").read_bytes() == b"half a file"


@pytest.mark.parametrize("online", [True, False], ids=["online", "offline"])
def test_a_users_own_file_in_the_cache_is_never_deleted_or_overwritten(
        http_server, tmp_path, monkeypatch, online):
    """Issue 22: $MICROGRAD_DATA holding the learner's own names.txt (another checksum) and
    no network: the file was deleted before any download. Now it is kept and reported."""
    mine = b"ada\nalan\ngrace\n"
    (tmp_path / "names.txt").write_bytes(mine)
    monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path))
    http_server.files["names.txt"] = PAYLOAD
    url = (http_server.url if online else closed_port_url()) + "names.txt"
    with pytest.raises(ForeignFile, match=r"left untouched.*--data .*names\.txt"):
        fetch(url, DIGEST, "names.txt", timeout=5)
    assert (tmp_path / "names.txt").read_bytes() == mine
    assert http_server.requests == []  # nothing downloaded that could not be kept


def test_a_users_file_given_as_data_is_used_whatever_its_checksum(tmp_path):
    from micrograd.demos import textdata
    from micrograd.demos.names import NAMES

    (tmp_path / "names.txt").write_text("ada\nalan\n", encoding="utf-8")
    assert textdata.read_text(NAMES, tmp_path / "names.txt") == "ada\nalan\n"
    assert textdata.read_text(NAMES, tmp_path) == "ada\nalan\n"  # its folder works too


def test_second_mirror_is_tried_when_the_first_fails(http_server, tmp_path):
    http_server.files["b/data.bin"] = PAYLOAD
    path = fetch([http_server.url + "a/data.bin", http_server.url + "b/data.bin"], DIGEST,
                 "data.bin", data_dir=tmp_path)
    assert path.read_bytes() == PAYLOAD
    assert http_server.requests == ["/a/data.bin", "/b/data.bin"]


def closed_port_url() -> str:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def test_server_down_is_a_clear_error_naming_where_to_save_the_file(tmp_path):
    expected = str(tmp_path / "data.bin")
    with pytest.raises(DownloadError, match=r"could not download data\.bin.*Offline\? Download "
                       r".*data\.bin yourself and save it as " + re.escape(expected)):
        fetch(closed_port_url() + "data.bin", DIGEST, "data.bin", data_dir=tmp_path, timeout=5)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kwargs, message", [
    ({"url": "ftp://example/x"}, "http:// or https://"),
    ({"sha256": "abc"}, "64 hexadecimal"),
    ({"filename": "../escape"}, "plain file name"),
])
def test_bad_arguments_are_refused(tmp_path, kwargs, message):
    args = {"url": "http://127.0.0.1/x", "sha256": DIGEST, "filename": "x"} | kwargs
    with pytest.raises(ValueError, match=message):
        fetch(args["url"], args["sha256"], args["filename"], data_dir=tmp_path)
