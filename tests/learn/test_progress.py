"""Progress bars (issue 22, item 6): every demo that trains for more than a few seconds
(mnist, names, gpt) shows tqdm's bar on a real terminal -- here a pseudo-terminal -- and
only plain `step k/n  loss x` lines when its output is piped."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys

import pytest
from conftest import SRC, require_module
from learn_helpers import separable_digits, write_mnist

require_module("tqdm")
require_module("numpy")

CLI = [sys.executable, "-c", "from micrograd.cli import main; raise SystemExit(main())"]
STEPS = {"mnist": 40, "names": 40, "gpt": 4}  # a gpt step costs ~100 names steps


def names_file(folder):
    rng = random.Random(0)
    syllables = ["ka", "lo", "mi", "ra", "na", "el"]
    path = folder / "names.txt"
    path.write_text("\n".join("".join(rng.choice(syllables) for _ in range(rng.randint(1, 3)))
                              for _ in range(300)) + "\n", encoding="utf-8")
    return path


def demo_args(demo: str, tmp_path) -> list[str]:
    if demo == "mnist":
        images, labels = separable_digits(20, seed=0)
        write_mnist(tmp_path / "mnist", images, labels, images[:50], labels[:50])
        data = tmp_path / "mnist"
    else:
        data = names_file(tmp_path)  # any UTF-8 text serves gpt too
    return ["demo", demo, "--data", str(data), "--steps", str(STEPS[demo]),
            "--out", str(tmp_path / "out")]


def environment() -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TQDM_DISABLE")}
    env.update(PYTHONPATH=str(SRC), COLUMNS="100", MPLBACKEND="Agg")
    return env


def run_in_terminal(args: list[str], cwd) -> str:
    """Run under a pseudo-terminal (stdin, stdout and stderr all a tty); return what it wrote."""
    import fcntl
    import pty
    import struct
    import termios

    main, child = pty.openpty()
    # a new pseudo-terminal is 0 columns wide (tqdm would draw a bar of no width): 24 x 100
    fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen(CLI + args, stdin=child, stdout=child, stderr=child,
                               env=environment(), cwd=cwd, close_fds=True)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 1 << 16)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    assert process.wait(timeout=300) == 0, b"".join(chunks).decode(errors="replace")
    os.close(main)
    return b"".join(chunks).decode(errors="replace")


BAR = r"{demo}: +\d+%\|"  # tqdm's bar: "names:  45%|████▌     | 18/40 [...]"


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("demo", ["mnist", "names", "gpt"])
def test_a_terminal_gets_the_bar(demo, tmp_path):
    shown = run_in_terminal(demo_args(demo, tmp_path), tmp_path)
    assert re.search(BAR.format(demo=demo), shown), shown[-2000:]
    assert "\r" in shown  # the bar redraws itself in place
    assert f"step {STEPS[demo]}/{STEPS[demo]}" in shown


@pytest.mark.parametrize("demo", ["mnist", "names", "gpt"])
def test_a_pipe_gets_plain_lines_only(demo, tmp_path):
    result = subprocess.run(CLI + demo_args(demo, tmp_path), capture_output=True, text=True,
                            env=environment(), cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    for stream in (result.stdout, result.stderr):
        assert "\r" not in stream and not re.search(BAR.format(demo=demo), stream)
    total = STEPS[demo]
    steps = re.findall(rf"^step +(\d+)/{total}  loss \d+\.\d{{4}}$", result.stdout, re.M)
    assert steps and steps[-1] == str(total)
