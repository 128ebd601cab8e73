"""The BLAS thread policy (micrograd.tensors.threads): one thread for small products, for
big ones a thread per core that other processes leave free, and the user's own setting
left alone. The machine's load is injected: no test here times anything."""

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
                  "reported": micrograd.tensors.get_num_threads(),
                  "now": micrograd.tensors.threads.threads_now()}))
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


def test_one_thread_asked_in_the_environment_is_what_big_work_gets():
    result = run_probe(OPENBLAS_NUM_THREADS="1")
    assert result["after"] == result["reported"] == result["now"] == 1


class Machine:
    """A 2-core machine whose load the test sets: other jobs' and this process's CPU use
    in cores, advanced by `run(seconds)`; /proc/stat and process_time as the policy reads
    them."""

    def __init__(self, readable: bool = True):
        self.now = 100.0
        self.busy_s, self.ours_s = 5000.0, 3.0  # since boot; only differences matter
        self.others, self.ours = 0.0, 1.0
        self.readable = readable
        self.looks = 0

    def busy(self) -> float | None:
        self.looks += 1
        return self.busy_s if self.readable else None

    def process_time(self) -> float:
        return self.ours_s

    def run(self, seconds: float) -> None:
        self.now += seconds
        self.busy_s += (self.others + self.ours) * seconds
        self.ours_s += self.ours * seconds


def policy_on(machine: Machine, max_threads: int = 2) -> threads._Policy:
    policy = threads._Policy(threads._Load(machine.busy, machine.process_time))
    policy.started = policy.active = True
    policy.max_threads, policy.cores = max_threads, 2
    return policy


def threads_over(policy: threads._Policy, machine: Machine, seconds: float) -> list[int]:
    """What big products get, one every 10 ms for `seconds`."""
    used = []
    for _ in range(round(seconds / 0.01)):
        used.append(policy.threads_now(machine.now))
        machine.run(0.01)
    return used


def test_on_an_idle_machine_big_products_get_every_thread_once_the_load_was_read():
    machine = Machine()
    policy = policy_on(machine)
    used = threads_over(policy, machine, 1.0)
    assert used[0] == 1  # nothing measured yet: the safe choice
    assert set(used[round(threads.LOAD_INTERVAL / 0.01) + 1:]) == {2}


def test_a_big_product_long_after_the_first_product_is_decided_at_once(monkeypatch):
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                 "MICROGRAD_BLAS_THREADS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(threads, "_blas_setters", lambda: [(lambda n: None, 2)])
    machine = Machine()
    policy = threads._Policy(threads._Load(machine.busy, machine.process_time))
    policy.cores = 2
    policy.start(machine.now)  # the first, small product
    machine.run(5.0)  # small products only, on an idle machine
    assert policy.threads_now(machine.now) == 2


def test_when_another_job_takes_a_core_big_products_go_to_one_thread_and_come_back():
    machine = Machine()
    policy = policy_on(machine)
    threads_over(policy, machine, 1.0)
    machine.others = 1.0  # a busy loop on the other core
    assert threads_over(policy, machine, 1.0)[-50:] == [1] * 50
    machine.others = 0.0
    assert threads_over(policy, machine, 1.0)[-50:] == [2] * 50


def test_only_other_processes_count_as_load():
    machine = Machine()
    machine.ours = 2.0  # this process on both cores (its BLAS worker spinning): not a reason
    policy = policy_on(machine)
    assert threads_over(policy, machine, 1.0)[-50:] == [2] * 50


@pytest.mark.parametrize("others, expected", [(threads.TAKEN - 0.05, 2),
                                              (threads.TAKEN + 0.05, 1), (1.6, 1)])
def test_a_core_counts_as_taken_once_others_use_a_share_of_it(others, expected):
    machine = Machine()
    machine.others = others
    policy = policy_on(machine)
    assert threads_over(policy, machine, 1.0)[-50:] == [expected] * 50


def test_the_load_is_read_at_most_every_interval():
    machine = Machine()
    policy = policy_on(machine)
    threads_over(policy, machine, 1.0)  # 100 products
    assert machine.looks == pytest.approx(1.0 / threads.LOAD_INTERVAL, abs=1)


def test_where_the_load_cannot_be_read_big_products_get_what_blas_would_give_them():
    machine = Machine(readable=False)
    policy = policy_on(machine)
    assert set(threads_over(policy, machine, 0.5)[1:]) == {2}


def test_set_num_threads_caps_what_big_products_get():
    machine = Machine()
    policy = policy_on(machine, max_threads=4)
    policy.cores = 8
    assert threads_over(policy, machine, 1.0)[-1] == 4
    policy.max_threads = 1  # what set_max_threads(1) sets
    assert threads_over(policy, machine, 1.0) == [1] * 100


def test_only_big_products_change_blas_threads_and_they_are_counted(monkeypatch):
    machine = Machine()
    policy = policy_on(machine)
    calls: list[int] = []
    policy._set = calls.append
    policy.current = 1
    policy.next_look = float("inf")  # decided: big products on two threads
    policy.big_threads = 2
    monkeypatch.setattr(threads, "_policy", policy)
    monkeypatch.setattr(threads, "_big_mnk", threads.MIN_FLOPS / 2)
    side = int((threads.MIN_FLOPS / 2) ** (1 / 3)) + 1  # a cube of at least MIN_FLOPS
    small, big = np.ones((4, 4), np.float32), np.ones((side, side), np.float32)
    threads.matmul(small, small)
    assert calls == [] and threads.multi_threaded_products() == 0
    threads.matmul(big, big)
    assert calls == [2, 1] and threads.multi_threaded_products() == 1


def test_the_policy_product_is_numpys_product():
    rng = np.random.default_rng(0)
    for shape_a, shape_b in (((3, 4), (4, 5)), ((2, 600, 600), (600, 600)), ((7,), (7, 2))):
        a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
        np.testing.assert_array_equal(threads.matmul(a, b), np.matmul(a, b))
