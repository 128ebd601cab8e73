"""`micrograd demo names` and `micrograd demo gpt`: their text from --data or a download
(against a local HTTP server on 127.0.0.1), and training end to end on tiny settings.

Oracles: an untrained model over V symbols scores -log(1/V) (so a model that learned
something scores below it), the vocabulary of the generated text (samples may use nothing
else), and the checksum of the bytes served.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import math
import pathlib
import random
import re
import socket
import sys

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
def test_offline_first_run_gives_one_instruction_that_works(demo, tmp_path, monkeypatch,
                                                            capsys, names_file):
    """The offline message names the URL and one command; doing exactly that then works."""
    module, attribute = (names, "NAMES") if demo == "names" else (gpt, "SHAKESPEARE")
    source = getattr(module, attribute)
    monkeypatch.setattr(module, attribute,
                        dataclasses.replace(source, urls=(closed_port_url() + "x.txt",)))
    monkeypatch.setenv("MICROGRAD_DATA", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert cli.main(["demo", demo, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f"{source.size:,} bytes" in err
    command = re.search(r"`(micrograd demo [^`]*)`", err).group(1).split()
    assert command == ["micrograd", "demo", demo, "--data", source.filename]
    # the learner saves the download under the name the message gives, and runs the command
    (tmp_path / source.filename).write_bytes(names_file.read_bytes())
    assert cli.main(command[1:] + ["--steps", "3", "--out", str(tmp_path / "out")]) == 0


def test_gpt_data_folder_may_hold_the_urls_input_txt(tmp_path, verse_file):
    (tmp_path / "input.txt").write_bytes(verse_file.read_bytes())
    assert textdata.read_text(gpt.SHAKESPEARE, tmp_path) == verse_file.read_text()


def test_data_folder_without_the_file_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"holds no names\.txt"):
        textdata.read_text(names.NAMES, tmp_path)


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
# -- training end to end -------------------------------------------------------------------

def test_names_model_learns_below_the_uniform_baseline_and_samples_its_alphabet(names_file):
    words = names.load_words(str(names_file))
    stoi, _ = names.vocabulary(words)
    run = names.train_names(words, steps=400, seed=1, n_embd=8, n_hidden=64, n_samples=8)
    baseline = math.log(len(stoi))
    assert len(run.losses) == 400
    assert run.losses[0] == pytest.approx(baseline, rel=0.1)  # small last layer: near-uniform
    assert sum(run.losses[-50:]) / 50 < 0.8 * baseline
    assert run.split_loss["val"] < 0.8 * baseline
    assert len(run.samples) == 8
    assert set("".join(run.samples)) <= set(stoi) - {"."}


def test_gpt_learns_below_the_uniform_baseline_and_samples_its_alphabet(verse_file):
    text = verse_file.read_text(encoding="utf-8")
    config = gpt.GPTConfig(block_size=8, n_embd=16, n_head=2, n_layer=1, batch_size=8,
                           lr=3e-3, steps=150, eval_interval=50, eval_iters=4, seed=3)
    run = gpt.train_gpt(text, config, sample_length=60)
    baseline = math.log(len(set(text)))
    assert [step for step, _, _ in run.estimates] == [0, 50, 100, 150]
    assert run.estimates[0][1] == pytest.approx(baseline, rel=0.15)
    assert run.estimates[-1][1] < 0.75 * baseline and run.estimates[-1][2] < 0.75 * baseline
    assert len(run.sample) == 61 and set(run.sample) <= set(text)


@pytest.mark.slow  # trains through the command line
@pytest.mark.parametrize("demo, steps", [("names", 60), ("gpt", 4)])
def test_the_command_prints_losses_samples_and_writes_the_plot(demo, steps, tmp_path,
                                                               names_file, capsys):
    require_module("matplotlib")
    out = tmp_path / "out"
    code = cli.main(["demo", demo, "--data", str(names_file), "--steps", str(steps),
                     "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 0
    assert f"step {steps}/{steps}" in printed
    assert (out / f"{demo}_loss.png").stat().st_size > 1000
    assert "-log(1/" in printed and "wrote" in printed


# -- the demos' numbers are PyTorch's ------------------------------------------------------

def load_on_real_torch(module_name: str, monkeypatch):
    """A fresh copy of micrograd.demos.<module_name> whose `import micrograd.torch as
    torch` finds the real torch: the same code, run by PyTorch."""
    torch = require_module("torch")
    import micrograd

    monkeypatch.setitem(sys.modules, "micrograd.torch", torch)
    monkeypatch.setitem(sys.modules, "micrograd.torch.nn", torch.nn)
    monkeypatch.setitem(sys.modules, "micrograd.torch.nn.functional", torch.nn.functional)
    monkeypatch.setattr(micrograd, "torch", torch, raising=False)
    path = pathlib.Path(importlib.import_module(f"micrograd.demos.{module_name}").__file__)
    spec = importlib.util.spec_from_file_location(f"torch_twin_of_{module_name}", path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look themselves up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # the demo trains twice: under PyTorch and under micrograd.torch
def test_names_demo_prints_pytorchs_numbers(names_file, monkeypatch):
    words = names.load_words(str(names_file))
    ours = names.train_names(words, steps=100, seed=7, n_embd=8, n_hidden=32, n_samples=5)
    on_torch = load_on_real_torch("names", monkeypatch)
    theirs = on_torch.train_names(words, steps=100, seed=7, n_embd=8, n_hidden=32, n_samples=5)
    # same weights, same minibatches: the first loss agrees to float32 rounding ...
    assert ours.losses[0] == pytest.approx(theirs.losses[0], rel=1e-6)
    assert ours.losses == pytest.approx(theirs.losses, rel=1e-4)
    assert ours.split_loss == pytest.approx(theirs.split_loss, rel=1e-4)
    assert ours.samples == theirs.samples  # ... and the same sampled names


@pytest.mark.slow  # the demo trains twice: under PyTorch and under micrograd.torch
def test_gpt_demo_prints_pytorchs_numbers(verse_file, monkeypatch):
    text = verse_file.read_text(encoding="utf-8")
    settings = dict(block_size=8, n_embd=16, n_head=2, n_layer=2, batch_size=4, steps=20,
                    eval_interval=10, eval_iters=2, seed=11)
    ours = gpt.train_gpt(text, gpt.GPTConfig(**settings), sample_length=20)
    on_torch = load_on_real_torch("gpt", monkeypatch)
    theirs = on_torch.train_gpt(text, on_torch.GPTConfig(**settings), sample_length=20)
    assert ours.losses == pytest.approx(theirs.losses, rel=1e-4)
    flat = [[x for row in run.estimates for x in row] for run in (ours, theirs)]
    assert flat[0] == pytest.approx(flat[1], rel=1e-4)
    assert ours.sample == theirs.sample
