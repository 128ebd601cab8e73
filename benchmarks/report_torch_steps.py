"""The W6-W10 sections of docs/benchmarks.md: training steps on micrograd.torch and PyTorch."""

from __future__ import annotations

from benchmarks.common import median, same_code_note
from benchmarks.report_format import mib, ratio, spread, table
from benchmarks.targets import (
    BY_KEY,
    EVAL_LOSS,
    LOSS_RTOL,
    POLICY,
    RSS,
    STEP0_LOSS,
    TIME,
    Measured,
    target,
)

CONFIGS = ("micrograd/1", "micrograd/default", "torch/1", "torch/default")
OPENBLAS_ONE = "micrograd/env1"  # OPENBLAS_NUM_THREADS=1 in the environment: the policy's bar
TITLES = {
    "W6": "makemore MLP step (batch 32, embedding 10, hidden 200, hand-written BatchNorm, SGD)",
    "W7": "GPT lecture step (n_embd 64, 4 heads, 4 layers, block 32, batch 16, AdamW)",
    "W8": "GPT lecture at its published size (batch 64, block 256, n_embd 384, 6 heads, "
          "6 layers, dropout 0.2, AdamW)",
    "W9": "nanoGPT shakespeare-char, README CPU settings (block 64, batch 12, 4 layers, "
          "4 heads, n_embd 128, dropout 0, AdamW, grad clip 1.0)",
    "W10-linear": "tiny: Linear(4, 1) regression, batch 32, MSE, SGD",
    "W10-mlp": "tiny: Linear(4, 16)-ReLU-Linear(16, 1) regression, batch 32, MSE, SGD",
    "W10-poly": "tiny: PyTorch's polynomial tutorial (2,000 points, 4 parameters, "
                "update under no_grad)",
}
HEADINGS = {
    "W6": "## W6, W7 — the makemore and GPT lecture steps through `micrograd.torch`",
    "W8": "## W8 — the GPT lecture at its published size through `micrograd.torch`",
    "W9": "## W9, W10 — nanoGPT's char model and tiny tensors through `micrograd.torch`",
}


def target_key(workload: str) -> str:
    """'W10-mlp' -> 'W10': the sub-workloads of W10 share its target."""
    return workload.split("-")[0]


def _good(runs: list[dict]) -> list[dict]:
    return [r for r in runs if r and "error" not in r and "median_s" in r]


def _why_not(runs: list[dict]) -> str:
    errors = [r["error"] for r in runs if r and "error" in r]
    return f"error: {errors[0]}" if errors else "not run"


def _median_time(runs: list[dict]) -> float | None:
    """Median over processes of each process's median step."""
    good = _good(runs)
    return median([r["median_s"] for r in good]) if good else None


def _peak(runs: list[dict]) -> float | None:
    good = _good(runs)
    return median([r["peak_rss_kib"] for r in good]) if good else None


def _threads(runs: list[dict], fallback: str) -> str:
    return next((str(r["threads"]) for r in _good(runs) if "threads" in r), fallback)


def first_losses(runs: dict[str, list]) -> tuple[list[float], list[float]]:
    """(micrograd's, PyTorch's) losses of the first steps, from each one's first good run."""
    ours: list[float] = next(
        (r["first_losses"] for k in CONFIGS[:2] for r in _good(runs.get(k, []))), [])
    theirs: list[float] = next(
        (r["first_losses"] for k in CONFIGS[2:] for r in _good(runs.get(k, []))), [])
    return ours[:3], theirs[:3]


def _check_losses(runs: dict[str, list]) -> tuple[float | None, float | None]:
    """(micrograd's, PyTorch's) eval-mode loss before training, where the workload has one."""
    def first(keys: tuple[str, ...]) -> float | None:
        return next((r["check_loss"] for k in keys for r in _good(runs.get(k, []))
                     if "check_loss" in r), None)
    return first(CONFIGS[:2]), first(CONFIGS[2:])


INTRO = ("The same code (`benchmarks/torch_steps.py`, `nanogpt_steps.py`, `tiny_steps.py`) "
         "runs on PyTorch and on `micrograd.torch`, from the same float32 weights and batches "
         "drawn in numpy. Each engine, thread setting and workload runs in a process of its "
         "own; a process takes a few warm-up steps, then times each step; the table shows the "
         "median over processes of each process's median step (with the range over processes "
         "where there were several). One thread is `torch.set_num_threads(1)` on both; "
         "micrograd's default is its BLAS thread policy (`micrograd.tensors.threads`); "
         "\"OPENBLAS_NUM_THREADS=1\" is micrograd with that variable set, the bar the policy "
         "must not be slower than (issue 19 checks it on W8, W9 and W10). The verdict compares "
         "each engine at its best.")


def _cell(runs: list[dict]) -> str:
    good = _good(runs)
    return spread([r["median_s"] for r in good]) if good else _why_not(runs)


def torch_steps_section(results: dict, measured: Measured, machine: dict | None = None) -> str:
    """W6-W10: timings, ratios, the thread policy against OPENBLAS_NUM_THREADS=1, the
    matrix products' FLOP/s, peak RSS and the losses, with a verdict per target."""
    workloads = sorted(results, key=lambda w: (int(target_key(w)[1:]), w))
    any_runs: dict[str, list] = next(iter(results.values()), {})
    ours_n = _threads(any_runs.get("micrograd/default", []), "default")
    torch_n = _threads(any_runs.get("torch/default", []), "default")
    first = target_key(workloads[0])
    heading = HEADINGS["W6" if first == "W7" else "W9" if first == "W10" else first]
    out = [heading, "", INTRO, ""]
    for workload in workloads:
        timed = sorted({r["steps"] for runs in results[workload].values() for r in _good(runs)
                        if "steps" in r})
        steps = f" ({' or '.join(map(str, timed))} timed steps a process)" if timed else ""
        out.append(f"- **{workload}**: {TITLES.get(workload, workload)}{steps}")
    out.append("")
    rows, policy_rows = [], []
    peak = (machine or {}).get("sgemm_peak_flops")
    for workload in workloads:
        runs = results[workload]
        times = {k: _median_time(runs.get(k, [])) for k in (*CONFIGS, OPENBLAS_ONE)}
        processes = max((len(_good(runs.get(k, []))) for k in CONFIGS), default=0)
        our_times = [times[k] for k in CONFIGS[:2] if times[k]]
        their_times = [times[k] for k in CONFIGS[2:] if times[k]]
        best = min(our_times) / min(their_times) if our_times and their_times else None
        time_target = target(workload, TIME)
        rows.append([workload, str(processes),
                     *[_cell(runs.get(k, [])) for k in (*CONFIGS, OPENBLAS_ONE)],
                     ratio(best), time_target.text(), time_target.verdict(best)])
        measured[(workload, TIME)] = (best, f"{ratio(best)} of PyTorch's time"
                                      if best is not None else _why_not(runs.get(CONFIGS[0], [])))
        policy = (times["micrograd/default"] / times[OPENBLAS_ONE]
                  if times["micrograd/default"] and times[OPENBLAS_ONE] else None)
        work = [r.get("multi_threaded_work") for r in _good(runs.get("micrograd/default", []))]
        measured[(workload, POLICY)] = (policy, ratio(policy) + same_code_note(work))
        flops = next((r.get("matmul_flops") for r in _good(runs.get("micrograd/1", []))), None)

        def rate(key: str, _times: dict = times, _flops: float | None = flops) -> str:
            if not _flops or not _times[key]:
                return "—"
            achieved = _flops / _times[key]
            share = f" ({achieved / peak:.0%})" if peak else ""
            return f"{achieved / 1e9:,.2f} GFLOP/s{share}"

        policy_rows.append([workload, ratio(policy), rate("micrograd/1"), rate("torch/1")])
    out.append(table(["workload", "processes", "micrograd, 1 thread",
                      f"micrograd, default ({ours_n} max)", "PyTorch, 1 thread",
                      f"PyTorch, {torch_n} threads", "micrograd, OPENBLAS_NUM_THREADS=1",
                      "ours / PyTorch, each at its best", "target", "result"], rows))
    peak_text = (f"{peak / 1e9:,.1f} GFLOP/s, measured in this run by "
                 "`benchmarks/blas_threads.py`" if peak else "not measured")
    out += ["", "The thread policy (micrograd's default over micrograd with "
                "OPENBLAS_NUM_THREADS=1: ≤ 1 means the policy never cost time), and the "
                "matrix products' achieved rate — their flops per step (forward and backward) "
                "over the one-thread step time — against this machine's single-thread sgemm "
                f"peak ({peak_text}):", ""]
    out.append(table(["workload", "default / OPENBLAS_NUM_THREADS=1",
                      "micrograd, 1 thread: matmul FLOP/s", "PyTorch, 1 thread: matmul FLOP/s"],
                     policy_rows))

    out += ["", "Peak RSS (Linux `VmHWM` of each process, imports included: a user pays for "
                "them), median over the one-thread processes:", ""]
    rows = []
    for workload in workloads:
        runs = results[workload]
        peaks = {k: _peak(runs.get(k, [])) for k in ("micrograd/1", "torch/1")}
        after_import = {k: median([r["rss_after_import_kib"] for r in _good(runs.get(k, []))])
                        if _good(runs.get(k, [])) else None for k in ("micrograd/1", "torch/1")}
        our_peak, their_peak = peaks["micrograd/1"], peaks["torch/1"]
        rss_share = our_peak / their_peak if our_peak and their_peak else None
        rows.append([workload, mib(after_import["micrograd/1"]), mib(our_peak),
                     mib(after_import["torch/1"]), mib(their_peak), ratio(rss_share),
                     target(workload, RSS).verdict(rss_share)])
        if rss_share is not None:
            measured[(workload, RSS)] = (rss_share, f"{ratio(rss_share)} ({mib(our_peak)} vs "
                                                    f"{mib(their_peak)})")
    out.append(table(["workload", "micrograd, after import", "micrograd, peak",
                      "PyTorch, after import", "PyTorch, peak", "ours / PyTorch", "result"],
                     rows))

    out += ["", f"Losses from the same weights (step 0 must agree to {LOSS_RTOL:.0e} relative; "
                "later steps drift by float32 rounding). Where dropout is on (W8), the two "
                "engines' training losses differ by their random masks, so the check is the "
                "eval-mode loss of batch 0's first 8 sequences before training:", ""]
    rows = []
    for workload in workloads:
        our_losses, their_losses = first_losses(results[workload])
        our_check, their_check = _check_losses(results[workload])
        pairs = [("eval, before training", our_check, their_check)] if (
            our_check is not None and their_check is not None) else []
        pairs += [(str(step), a, b) for step, (a, b) in
                  enumerate(zip(our_losses, their_losses, strict=False))]
        kind = EVAL_LOSS if (workload, EVAL_LOSS) in BY_KEY else STEP0_LOSS
        if not pairs:
            rows.append([workload, "0", "—", "—", "—", "n/a"])
            continue
        checked = "eval, before training" if kind == EVAL_LOSS else "0"
        for step, a, b in pairs:
            difference = abs(a - b) / abs(b) if b else abs(a - b)
            result = target(workload, kind).verdict(difference) if step == checked else "—"
            rows.append([workload, step, repr(a), repr(b), f"{difference:.1e}", result])
            if step == checked:
                measured[(workload, kind)] = (difference, f"{difference:.1e}")
    out.append(table(["workload", "step", "micrograd", "PyTorch", "relative difference",
                      "result"], rows))
    return "\n".join(out)
