"""W4's script, `python -m benchmarks.chain`: the gradient it reports and its collector counts.

No timing assertions: only what the JSON says about the graph and Python's cyclic gc.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # the speed suite's code paths, run for real

ROOT = Path(__file__).resolve().parents[2]
OPS = 6000  # ~16,000 gc-tracked objects: several generation-0 collections at any default threshold


def run_chain(*args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-m", "benchmarks.chain", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def with_gc() -> dict:
    return run_chain("--gc-stats", str(OPS))


def test_reports_the_chain_rule_gradient_of_the_chain(with_gc):
    # OPS / 3 products by 0.9999; the additions and the relus of positive numbers pass 1.
    (run,) = with_gc["runs"]
    assert run["n"] == OPS
    assert run["grad"] == pytest.approx(0.9999 ** (OPS // 3), rel=1e-12)


def test_counts_the_collections_the_gc_ran_during_the_build(with_gc):
    (run,) = with_gc["runs"]
    young, middle, full = run["collections_in_build"]
    assert with_gc["gc"] is True
    # each collection of generation 0 follows ~700 new objects (threshold 700); those of
    # generations 1 and 2 include one, so all three together count about that many
    threshold = gc.get_threshold()[0]
    assert young >= 1 and young + middle + full >= run["tracked_objects"] // threshold // 2
    assert run["gc_seconds_in_build"]["young"] > 0.0
    # every op makes a Value; each * and + also a constant Value: 5 per 3 ops, all alive
    assert run["tracked_objects"] >= OPS * 5 // 3


def test_gc_off_runs_no_collection_and_the_same_gradient(with_gc):
    off = run_chain("--gc-off", str(OPS))
    (run,) = off["runs"]
    assert off["gc"] is False
    assert run["collections_in_build"] == [0, 0, 0]
    assert "gc_seconds_in_build" not in run  # only with --gc-stats
    assert run["grad"] == with_gc["runs"][0]["grad"]
