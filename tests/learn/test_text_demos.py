"""`micrograd demo names` and `micrograd demo gpt`: their text from --data or a download
(against a local HTTP server on 127.0.0.1), and training end to end on tiny settings.

Oracles: an untrained model over V symbols scores -log(1/V) (so a model that learned
something scores below it), the vocabulary of the generated text (samples may use nothing
else), and the checksum of the bytes served.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import socket

import pytest
from conftest import require_module
from learn_helpers import serve_files

from micrograd import cli, datasets

require_module("numpy")

from micrograd.demos import gpt, names, textdata  # noqa: E402


def made_up_names(count: int, seed: int = 0) -> list[str]:
    """Pronounceable names from a few syllables: structure a small model can learn."""
    syllables = ["ka", "lo", "mi", "ra", "na", "el", "is", "an", "jo", "ve"]
    rng = random.Random(seed)
    return ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3)))
            for _ in range(count)]


@pytest.fixture
def names_file(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("\n".join(made_up_names(400)) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def verse_file(tmp_path):
    lines = ["to be or not to be", "that is the question", "the rest is silence"]
    rng = random.Random(1)
    path = tmp_path / "verse.txt"
    path.write_text("\n".join(rng.choice(lines) for _ in range(300)) + "\n", encoding="utf-8")
    return path


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


# -- the text ------------------------------------------------------------------------------

def test_names_come_from_the_data_file_one_per_line(names_file):
    words = names.load_words(str(names_file))
    assert words == made_up_names(400)
    stoi, itos = names.vocabulary(words)
    assert stoi["."] == 0 and itos[0] == "."
    assert sorted(stoi) == ["."] + sorted(set("".join(words)))


def test_contexts_and_targets_are_the_lectures(names_file):
    stoi, _ = names.vocabulary(["emma"])
    X, Y = names.build_dataset(["emma"], stoi, block_size=3)
    e, m, a = stoi["e"], stoi["m"], stoi["a"]
    # ... -> e, ..e -> m, .em -> m, emm -> a, mma -> .
    assert X.tolist() == [[0, 0, 0], [0, 0, e], [0, e, m], [e, m, m], [m, m, a]]
    assert Y.tolist() == [e, m, m, a, 0]


@pytest.mark.parametrize("content, message", [
    (None, "no such file"), ("", "empty"), ("ann\nb.o\n", "may not contain"),
])
def test_bad_data_files_say_what_is_wrong(tmp_path, content, message):
    path = tmp_path / "words.txt"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises((OSError, ValueError), match=message):
        names.load_words(str(path))


def test_text_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("café\n".encode("latin-1"))
    with pytest.raises(ValueError, match="not UTF-8"):
        textdata.read_text(gpt.SHAKESPEARE, str(path))


def test_first_use_downloads_the_text_checks_it_and_caches_it(tmp_path, names_file,
                                                              monkeypatch):
    payload = names_file.read_bytes()
    with serve_files() as server:
        server.files["names.txt"] = payload
        source = dataclasses.replace(names.NAMES, urls=(server.url + "names.txt",),
                                     sha256=hashlib.sha256(payload).hexdigest())
        monkeypatch.setattr(names, "NAMES", source)
        monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
        assert names.load_words() == made_up_names(400)
        assert names.load_words() == made_up_names(400)  # from the cache this time
        assert server.requests == ["/names.txt"]
    assert (tmp_path / "cache" / "names.txt").read_bytes() == payload


def test_a_download_that_is_not_the_published_file_is_refused(tmp_path, monkeypatch):
    with serve_files() as server:
        server.files["input.txt"] = b"not shakespeare"
        source = dataclasses.replace(gpt.SHAKESPEARE, urls=(server.url + "input.txt",))
        with pytest.raises(datasets.DownloadError, match="SHA-256"):
            textdata.read_text(source, data_dir=tmp_path)
    assert not (tmp_path / source.filename).exists()


@pytest.mark.parametrize("demo", ["names", "gpt"])
def test_offline_first_run_says_to_download_by_hand_or_pass_data(demo, tmp_path, monkeypatch,
                                                                 capsys):
    module, attribute = (names, "NAMES") if demo == "names" else (gpt, "SHAKESPEARE")
    source = getattr(module, attribute)
    monkeypatch.setattr(module, attribute,
                        dataclasses.replace(source, urls=(closed_port_url() + "x.txt",)))
    monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
    assert cli.main(["demo", demo, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "--data PATH" in err and f"{source.size:,} bytes" in err


def test_the_published_checksums_are_well_formed():
    for source in (names.NAMES, gpt.SHAKESPEARE):
        assert len(source.sha256) == 64 and int(source.sha256, 16) >= 0
        assert all(url.startswith("https://") for url in source.urls)


# -- configuration -----------------------------------------------------------------------

def test_gpt_refuses_a_text_shorter_than_two_contexts():
    with pytest.raises(ValueError, match="at least"):
        gpt.train_gpt("abc", gpt.GPTConfig(block_size=8, steps=1))


def test_gpt_config_is_checked():
    with pytest.raises(ValueError, match="multiple of n_head"):
        gpt.GPTConfig(n_embd=10, n_head=4).check()
