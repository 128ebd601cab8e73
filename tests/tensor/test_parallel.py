"""tensors/parallel.py: numpy kernels split over threads give the serial result bit for bit,
surface a worker's exception in the caller, and run serially when one thread is allowed.

The oracle is the same kernel run once on the whole array (parallel.py's own promise);
the ops' values against torch are the torch twins' business (test_gelu_float32,
test_attention, test_layers)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from tests.conftest import require_module

require_module("hypothesis")
from hypothesis import given, settings  # noqa: E402 (after the check above)
from hypothesis import strategies as st  # noqa: E402

import micrograd.torch as torch  # noqa: E402
from micrograd.tensors import parallel, threads  # noqa: E402

F = torch.nn.functional


class _Threads:
    """parallel.py's switches: every size split over `n` threads, or nothing split."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch

    def split(self, n: int = 3) -> None:
        self.monkeypatch.setattr(parallel, "MIN_WORK", 2)
        self.monkeypatch.setattr(parallel, "TASK_WORK", 2)
        self.monkeypatch.setattr(parallel, "BLOCK", 64)  # blocks inside slices too
        self.monkeypatch.setattr(parallel, "MIN_STACK_MADDS", 2)
        self.monkeypatch.setattr(threads, "threads_now", lambda: n)

    def serial(self) -> None:
        self.monkeypatch.setattr(parallel, "MIN_WORK", 1 << 62)
        self.monkeypatch.setattr(parallel, "BLOCK", 1 << 62)
        self.monkeypatch.setattr(parallel, "MIN_STACK_MADDS", 1 << 62)


@pytest.fixture
def switch(monkeypatch: pytest.MonkeyPatch) -> _Threads:
    return _Threads(monkeypatch)


def _assert_split_equals_serial(run: Any, *args: Any) -> None:
    """run(*args) with every big-enough kernel split over threads gives, bit for bit and
    dtype for dtype, what it gives with nothing split."""
    with pytest.MonkeyPatch.context() as mp:
        _Threads(mp).serial()
        expected = run(*args)
    with pytest.MonkeyPatch.context() as mp:
        _Threads(mp).split()
        got = run(*args)
    for e, r in zip(expected, got, strict=True):
        assert r.dtype == e.dtype and r.tobytes() == e.tobytes()


def _array(shape: tuple[int, ...], dtype: type, layout: str, seed: int) -> np.ndarray:
    """Normal numbers of `shape`: contiguous, transposed (a strided view) or every other
    row of a bigger array."""
    rng = np.random.default_rng(seed)
    if layout == "transposed":
        return (rng.standard_normal(shape[::-1]) * 3).astype(dtype).T
    if layout == "strided" and shape:
        return (rng.standard_normal((2 * shape[0],) + shape[1:]) * 3).astype(dtype)[::2]
    return (rng.standard_normal(shape) * 3).astype(dtype)


shapes = st.lists(st.integers(0, 37), min_size=1, max_size=3).map(tuple)
dtypes = st.sampled_from([np.float32, np.float64])
layouts = st.sampled_from(["contiguous", "transposed", "strided"])


def _value_and_grad(op: Any) -> Any:
    """(x, g) -> [op(x), the gradient of op(x) . g with respect to x], as numpy arrays."""
    def run(x: np.ndarray, g: np.ndarray) -> list[np.ndarray]:
        t = torch.tensor(x, requires_grad=True)
        y = op(t)
        y.backward(torch.tensor(g))
        return [y.detach().numpy().copy(), t.grad.numpy().copy()]

    return run


_gelu_and_grad = _value_and_grad(F.gelu)


@settings(max_examples=60, deadline=None)
@given(shape=shapes, dtype=dtypes, layout=layouts, seed=st.integers(0, 2**16))
def test_gelu_split_over_threads_equals_serial_bit_for_bit(
        shape: tuple, dtype: type, layout: str, seed: int) -> None:
    x = _array(shape, dtype, layout, seed)
    g = _array(shape, dtype, "contiguous", seed + 1)
    _assert_split_equals_serial(_gelu_and_grad, x, g)


def _layer_norm_and_grads(x: np.ndarray, g: np.ndarray) -> list[np.ndarray]:
    n = x.shape[-1]
    rng = np.random.default_rng(n)
    w = torch.tensor(rng.standard_normal(n).astype(x.dtype), requires_grad=True)
    b = torch.tensor(rng.standard_normal(n).astype(x.dtype), requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    y = F.layer_norm(t, (n,), w, b)
    y.backward(torch.tensor(g))
    return [a.numpy().copy() for a in (y.detach(), t.grad, w.grad, b.grad)]


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 23), min_size=2, max_size=3).map(tuple), dtype=dtypes,
       layout=layouts, seed=st.integers(0, 2**16))
def test_layer_norm_split_over_threads_equals_serial_bit_for_bit(
        shape: tuple, dtype: type, layout: str, seed: int) -> None:
    x = _array(shape, dtype, layout, seed)
    g = _array(shape, dtype, "contiguous", seed + 1)
    _assert_split_equals_serial(_layer_norm_and_grads, x, g)


def _attention_and_grads(q: np.ndarray, k: np.ndarray, v: np.ndarray, g: np.ndarray,
                         dropout_p: float) -> list[np.ndarray]:
    torch.manual_seed(0)
    ts = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    y = F.scaled_dot_product_attention(*ts, is_causal=True, dropout_p=dropout_p)
    y.backward(torch.tensor(g))
    return [y.detach().numpy().copy()] + [t.grad.numpy().copy() for t in ts]


@settings(max_examples=30, deadline=None)
@given(batch=st.integers(1, 7), length=st.integers(1, 13), dim=st.integers(1, 9),
       dtype=dtypes, dropout_p=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 2**16))
def test_attention_split_over_threads_equals_serial_bit_for_bit(
        batch: int, length: int, dim: int, dtype: type, dropout_p: float, seed: int) -> None:
    q, k, v, g = (_array((batch, length, dim), dtype, "contiguous", seed + i) for i in range(4))
    _assert_split_equals_serial(_attention_and_grads, q, k, v, g, dropout_p)


@pytest.mark.parametrize("layout", ["contiguous", "a transposed", "b transposed", "both"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_split_stack_of_products_equals_numpys_product_bit_for_bit(
        switch: _Threads, layout: str, dtype: type) -> None:
    """Attention's stacked products: each chunk of the stack is numpy's own product of
    those matrices, so the split stack is np.matmul's, bit for bit (it did split)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((5, 3, 17, 33)).astype(dtype)
    b = rng.standard_normal((5, 3, 33, 19)).astype(dtype)
    if layout in ("a transposed", "both"):
        a = np.swapaxes(a.swapaxes(-1, -2).copy(), -1, -2)
    if layout in ("b transposed", "both"):
        b = np.swapaxes(b.swapaxes(-1, -2).copy(), -1, -2)
    expected = np.matmul(a, b)
    switch.split(2)
    chunks: list[int] = []  # (whether a worker took one: test_a_split_kernel_runs_on...)
    original = np.matmul

    def recording(x: np.ndarray, y: np.ndarray, **kw: Any) -> np.ndarray:
        chunks.append(len(x))
        return original(x, y, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(parallel.np, "matmul", recording)
        got = parallel.matmul_stack(a, b)
    assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()
    assert len(chunks) > 1 and sum(chunks) == 5


def _stacked_products_and_grads(a: np.ndarray, b: np.ndarray, g: np.ndarray
                                ) -> list[np.ndarray]:
    x, y = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    out = x @ y.transpose(-2, -1)  # the lecture's q @ k.transpose(-2, -1)
    out.backward(torch.tensor(g))
    return [out.detach().numpy().copy(), x.grad.numpy().copy(), y.grad.numpy().copy()]


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(1, 9), rows=st.integers(1, 11), inner=st.integers(1, 9),
       dtype=dtypes, seed=st.integers(0, 2**16))
def test_a_stack_of_tensor_products_split_over_threads_equals_serial_bit_for_bit(
        batch: int, rows: int, inner: int, dtype: type, seed: int) -> None:
    a, b = (_array((batch, rows, inner), dtype, "contiguous", seed + i) for i in range(2))
    g = _array((batch, rows, rows), dtype, "contiguous", seed + 2)
    _assert_split_equals_serial(_stacked_products_and_grads, a, b, g)


def test_a_stack_that_broadcasts_is_numpys_product() -> None:
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((4, 1, 6, 5)), rng.standard_normal((3, 5, 2))
    assert np.array_equal(parallel.matmul_stack(a, b), np.matmul(a, b))


def _dropout_and_grad(x: np.ndarray, g: np.ndarray) -> list[np.ndarray]:
    torch.manual_seed(7)
    t = torch.tensor(x, requires_grad=True)
    y = F.dropout(t, 0.3)
    y.backward(torch.tensor(g))
    return [y.detach().numpy().copy(), t.grad.numpy().copy()]


def _clipped(grads: list[np.ndarray]) -> list[np.ndarray]:
    params = [torch.zeros(g.shape, requires_grad=True) for g in grads]
    for p, g in zip(params, grads, strict=True):
        p.grad = torch.tensor(g.astype(np.float32))
    total = torch.nn.utils.clip_grad_norm_(params, 1.0)
    return [total.numpy().copy()] + [p.grad.numpy().copy() for p in params]


@settings(max_examples=30, deadline=None)
@given(shape=shapes, dtype=dtypes, layout=layouts, seed=st.integers(0, 2**16),
       sizes=st.lists(shapes, min_size=1, max_size=6))
def test_dropout_and_clip_grad_split_over_threads_equal_serial_bit_for_bit(
        shape: tuple, dtype: type, layout: str, seed: int, sizes: list[tuple]) -> None:
    x = _array(shape, dtype, layout, seed)
    g = _array(shape, dtype, "contiguous", seed + 1)
    grads = [_array(s, np.float32, "contiguous", seed + i) for i, s in enumerate(sizes)]
    _assert_split_equals_serial(lambda: _dropout_and_grad(x, g) + _clipped(grads))


_softmax_and_grad = _value_and_grad(lambda t: t.softmax(-1))


@settings(max_examples=40, deadline=None)
@given(shape=shapes, dtype=dtypes, layout=layouts, seed=st.integers(0, 2**16))
def test_softmax_split_over_threads_equals_serial_bit_for_bit(
        shape: tuple, dtype: type, layout: str, seed: int) -> None:
    x = _array(shape, dtype, layout, seed)
    g = _array(shape, dtype, "contiguous", seed + 1)
    _assert_split_equals_serial(_softmax_and_grad, x, g)


def test_slices_cover_the_axis_once_and_start_aligned() -> None:
    for length in (0, 1, 63, 64, 65, 1000, 4097):
        for parts in (1, 2, 3, 8):
            cut = parallel.bounds(length, parts, 64)
            covered = [i for s in cut for i in range(s.start, s.stop)]
            assert covered == list(range(length))
            assert all(s.start % 64 == 0 for s in cut) and len(cut) <= parts


def _threads_taking_slices() -> set[int]:
    """The threads that ran slices of a split run whose slices each wait (up to 30 s)
    until a second thread has started one."""
    seen: set[int] = set()
    other_started = threading.Event()

    def work(part: slice) -> None:
        seen.add(threading.get_ident())
        if len(seen) > 1:
            other_started.set()
        other_started.wait(timeout=30)

    parallel.run(work, 16, 1 << 30)
    return seen


def test_a_split_kernel_runs_on_more_than_one_thread(switch: _Threads) -> None:
    """The first slice waits until another thread has started one: it can only finish if
    the work really is shared."""
    switch.split(2)
    splits = parallel.split_calls()
    seen = _threads_taking_slices()
    assert len(seen) == 2 and threading.get_ident() in seen
    assert parallel.split_calls() == splits + 1  # counted for the bench's policy row


def test_an_exception_in_a_worker_is_raised_in_the_caller(switch: _Threads) -> None:
    switch.split(2)
    caller = threading.get_ident()
    ran_elsewhere = threading.Event()

    def work(part: slice) -> None:
        if threading.get_ident() != caller:
            ran_elsewhere.set()
            raise ArithmeticError(f"slice {part.start}:{part.stop} failed")
        ran_elsewhere.wait(timeout=30)  # leave slices to the worker

    with pytest.raises(ArithmeticError, match="failed"):
        parallel.run(work, 8, 1 << 30)
    assert ran_elsewhere.is_set()


def test_an_exception_in_the_caller_is_raised_once_the_workers_are_done(
        switch: _Threads) -> None:
    switch.split(2)
    done: list[int] = []

    def work(part: slice) -> None:
        if part.start == 0:
            raise KeyError("first slice")
        done.append(part.start)

    with pytest.raises(KeyError, match="first slice"):
        parallel.run(work, 8, 1 << 30)
    assert sorted(done) == list(range(1, 8))  # every other slice still ran


def test_set_num_threads_1_runs_every_kernel_in_the_caller(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    monkeypatch.setattr(parallel, "MIN_WORK", 2)
    monkeypatch.setattr(parallel, "TASK_WORK", 2)
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert parallel.thread_count(1 << 40) == 1
        seen: set[int] = set()
        splits = parallel.split_calls()
        parallel.run(lambda part: seen.add(threading.get_ident()), 64, 1 << 40)
        assert seen == {threading.get_ident()}
        assert parallel.split_calls() == splits  # the bench's "same code" count
    finally:
        torch.set_num_threads(before)


def test_small_work_runs_in_the_caller_in_one_call() -> None:
    calls: list[slice] = []
    parallel.run(calls.append, 1000, parallel.MIN_WORK - 1)
    assert calls == [slice(0, 1000)]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_splits_work_on_threads_of_its_own(switch: _Threads) -> None:
    """The parent's pool threads do not exist in a child; the child starts its own."""
    import os

    switch.split(2)
    parallel.run(lambda part: None, 8, 1 << 30)  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if a slice ran on another thread
        seen: set[int] = set()
        try:
            seen = _threads_taking_slices()
        finally:
            os._exit(0 if len(seen) == 2 else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_big_kernels_run_in_the_caller_while_another_job_holds_the_other_core(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the pool asks threads.threads_now(), as big products do: a worker that must wait for
    # a core (and each numpy call's GIL hand-back with it) would make the split slower
    from test_threads import Machine, policy_on, threads_over

    monkeypatch.setattr(parallel, "MIN_WORK", 2)
    machine = Machine()
    policy = policy_on(machine)
    monkeypatch.setattr(threads, "threads_now", lambda: policy.threads_now(machine.now))
    threads_over(policy, machine, 1.0)  # idle
    assert parallel.thread_count(1 << 30) == 2
    machine.others = 1.0  # a busy loop on the other core
    threads_over(policy, machine, 1.0)
    assert parallel.thread_count(1 << 30) == 1
