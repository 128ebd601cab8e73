"""The BLAS thread policy (micrograd.tensors.threads): one thread for small products, the
faster of one and many for big ones, and the user's own setting left alone."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from micrograd.tensors import threads

pytest.importorskip("threadpoolctl")

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "src")

# in a fresh interpreter: BLAS threads (threadpoolctl's count) before and after a small product
PROBE = """
import json, numpy as np, threadpoolctl, micrograd
def blas():
    return max(p["num_threads"] for p in threadpoolctl.threadpool_info()
               if p["user_api"] == "blas")
before = blas()
x = micrograd.tensor(np.ones((8, 4), np.float32), requires_grad=True)
(x @ micrograd.tensor(np.ones((4, 3), np.float32))).sum().backward()
print(json.dumps({"before": before, "after": blas(),
                  "reported": micrograd.tensors.get_num_threads()}))
"""


def run_probe(**env_extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                        "MICROGRAD_BLAS_THREADS")}
    env.update(PYTHONPATH=SRC, **env_extra)
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_small_product_leaves_blas_on_one_thread_and_reports_the_default_as_the_limit():
    result = run_probe()
    if result["before"] < 2:
        pytest.skip("BLAS starts with one thread on this machine: nothing to lower")
    assert result["after"] == 1
    assert result["reported"] == result["before"]  # what big products may still use


@pytest.mark.parametrize("setting", [{"OPENBLAS_NUM_THREADS": "2"},
                                     {"MICROGRAD_BLAS_THREADS": "fixed"}])
def test_a_user_choice_of_threads_is_left_alone(setting):
    result = run_probe(**setting)
    assert result["after"] == result["before"]


class Clock:
    """Feeds the policy measured seconds per flop, as if products had taken them."""

    def __init__(self, max_threads: int):
        self.policy = threads._Policy()
        self.policy.started = self.policy.active = True
        self.policy.max_threads = max_threads

    def run(self, flops: float, per_flop: dict[int, float]) -> int:
        size_class, n = self.policy.choose(flops)
        self.policy.record(size_class, n, per_flop[n])
        return n


def test_big_products_settle_on_the_faster_thread_count_and_retry_the_other_rarely():
    clock = Clock(max_threads=2)
    used = [clock.run(1e9, {1: 2.0, 2: 1.0}) for _ in range(600)]
    assert used[:2] == [1, 2]  # each measured once
    assert 3 <= used.count(1) < 20  # then the faster one, the slower retried ever more rarely
    assert used[-100:].count(2) >= 99


def test_when_the_machine_gets_busy_big_products_go_back_to_one_thread():
    clock = Clock(max_threads=2)
    for _ in range(50):
        clock.run(1e9, {1: 2.0, 2: 1.0})
    # other jobs took the second core: two threads are now four times slower than one
    used = [clock.run(1e9, {1: 2.0, 2: 8.0}) for _ in range(600)]
    assert used[-100:].count(1) >= 99


def test_size_classes_are_measured_apart():
    clock = Clock(max_threads=2)
    for _ in range(50):
        clock.run(1e9, {1: 2.0, 2: 1.0})  # big: two threads win
        clock.run(3e8, {1: 1.0, 2: 3.0})  # smaller: one thread wins
    assert clock.run(1e9, {1: 2.0, 2: 1.0}) == 2
    assert clock.run(3e8, {1: 1.0, 2: 3.0}) == 1


def test_the_policy_product_is_numpys_product():
    rng = np.random.default_rng(0)
    for shape_a, shape_b in (((3, 4), (4, 5)), ((2, 600, 600), (600, 600)), ((7,), (7, 2))):
        a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
        np.testing.assert_array_equal(threads.matmul(a, b), np.matmul(a, b))
