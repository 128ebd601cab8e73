"""Turn the suite's raw results into docs/benchmarks.md: a table per workload and a verdict
per target. Everything after HAND_WRITTEN_MARKER in an existing report is kept as is."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import median, same_code_note
from benchmarks.report_format import mib, ms, ratio, sec, spread, table
from benchmarks.report_torch_steps import CONFIGS as TENSOR_CONFIGS
from benchmarks.report_torch_steps import OPENBLAS_ONE, torch_steps_section
from benchmarks.targets import (
    GROWTH,
    NOT_MEASURED,
    POLICY,
    RSS,
    RSS_VS_010,
    SAME_LOSSES,
    SPEED_UP,
    TIME,
    Measured,
    target,
    target_rows,
)

HAND_WRITTEN_MARKER = (
    "<!-- hand-written: everything below this line is kept when the suite rewrites the file -->"
)
NOT_AVAILABLE = "not available"


def _ok(run: dict | None) -> bool:
    return bool(run) and "error" not in run and run.get("available", True)


def _error(runs: list[dict]) -> str:
    for run in runs:
        if run and "error" in run:
            return f"error: {run['error']}"
        if run and not run.get("available", True):
            return f"{NOT_AVAILABLE} ({run.get('reason', '')})"
    return NOT_AVAILABLE


# --- the workloads ---------------------------------------------------------------------------

def step_time(run: dict) -> float:
    """Seconds per step of one notebook run: its total over its steps (gc pauses included)."""
    return sum(run["seconds"]) / len(run["seconds"])


def max_relative_difference(a: list[float], b: list[float]) -> float:
    """Over the steps both runs have: a run stopped early is compared as far as it went."""
    worst = 0.0
    for x, y in zip(a, b, strict=False):
        scale = max(abs(x), abs(y))
        if scale:
            worst = max(worst, abs(x - y) / scale)
    return worst


def w1_section(w1: dict, published: dict, measured: Measured) -> str:
    ours = [r for r in w1.get("ours", []) if _ok(r)]
    theirs = [r for r in w1.get("baseline", []) if _ok(r)]
    out = ["## W1 — the micrograd moons demo, scalar engine", "",
           "The notebook's code (MLP(2, [16, 16, 1]), full batch of 100, hinge + 1e-4·L2, "
           "lr = 1.0 − 0.9·k/100) with only its imports pointing at each engine; each run in a "
           "fresh process. Time per step = a run's total over its steps (garbage-collector "
           "pauses included), median over runs.", ""]
    rows = []
    t_ours = median([step_time(r) for r in ours]) if ours else None
    t_theirs = median([step_time(r) for r in theirs]) if theirs else None
    for name, runs, t in (("micrograd (this repo)", ours, t_ours),
                          ("micrograd 0.1.0", theirs, t_theirs)):
        if not runs:
            failed = w1.get("ours" if "this" in name else "baseline", [])
            rows.append([name, "—", "—", "—", "—", "—", "—", _error(failed)])
            continue
        per_run = ", ".join(ms(step_time(r)) for r in runs)
        first = runs[0]
        rows.append([
            name, str(len(runs)), str(first["steps"]), ms(t), per_run,
            f"{first['losses'][0]!r}", f"{first['losses'][-1]!r}",
            f"{first['accuracies'][-1] * 100:.0f}%",
        ])
    out.append(table(["engine", "runs", "steps", "time per step (median)", "per run",
                      "loss step 0", "last loss", "last accuracy"], rows))
    speedup = t_theirs / t_ours if t_ours and t_theirs else None
    cpu = [median([sum(r["cpu_seconds"]) / len(r["cpu_seconds"]) for r in runs])
           for runs in (ours, theirs) if runs and all("cpu_seconds" in r for r in runs)]
    cpu_text = (f" In CPU time per step, which other processes disturb less: {ms(cpu[0])} "
                f"against {ms(cpu[1])}, {ratio(cpu[1] / cpu[0])}." if len(cpu) == 2 else "")
    out += ["", f"**Speed-up: {ratio(speedup)}** (target {target('W1', SPEED_UP).text()})."
            + cpu_text]
    during = w1.get("ours_during", [])
    pairs = []
    for k, run in enumerate(w1.get("baseline", [])):
        mine = [r for r, pair in zip(w1.get("ours", []), during, strict=False)
                if pair == k and _ok(r)]
        if _ok(run) and mine:
            pairs.append(step_time(run) / median([step_time(r) for r in mine]))
    if pairs:
        out += ["", f"Each of 0.1.0's runs went a step at a time; at evenly spaced steps it "
                    f"waited while one whole run of ours went ({len(during)} of our runs "
                    "inside 0.1.0's), so that the machine's load over the minutes of a 0.1.0 "
                    "run hits both alike. Our steps run back to back, as a user's loop runs "
                    "them: paced one at a time after 0.1.0's ~2 s steps, our step measured "
                    "~20% slower (`python -m benchmarks.lockstep_gap`). Speed-up within each "
                    "of 0.1.0's runs (its step over the median of ours during it): "
                    + ", ".join(ratio(p) for p in pairs) + "."]
    measured[("W1", SPEED_UP)] = (speedup, f"{ratio(speedup)} ({ms(t_ours)} vs {ms(t_theirs)} "
                                            "per step)")

    # the numbers must not change: every step's loss against 0.1.0, and the published ones
    worst, steps_compared, engines_agree = None, 0, None
    if ours and theirs:
        a, b = ours[0]["losses"], theirs[0]["losses"]
        steps_compared = min(len(a), len(b))
        worst = max_relative_difference(a, b)
        engines_agree = all(r["losses"] == ours[0]["losses"] for r in ours)
    out += ["", "Same numbers:", ""]
    same = target("W1", SAME_LOSSES)
    check_rows = [["every step's loss, ours vs 0.1.0",
                   f"max relative difference {worst:.1e} over {steps_compared} steps"
                   if worst is not None else "—", same.verdict(worst)]]
    if ours:
        losses = ours[0]["losses"]
        for step, value in published.items():
            if step < len(losses):
                check_rows.append([f"step {step} loss vs the published notebook ({value!r})",
                                   repr(losses[step]),
                                   "PASS" if losses[step] == value else "FAIL"])
        check_rows.append(["our runs agree with each other bit for bit",
                           str(engines_agree) if engines_agree is not None else "—",
                           "PASS" if engines_agree in (True, None) else "FAIL"])
    out.append(table(["check", "measured", "result"], check_rows))
    measured[("W1", SAME_LOSSES)] = (worst, f"{worst:.1e} over {steps_compared} steps"
                                            if worst is not None else "—")
    return "\n".join(out)


def w5_section(w5: dict, w1: dict, measured: Measured) -> str:
    out = ["## W5 — peak memory (RSS) of W1", "",
           "Peak RSS (Linux `VmHWM`; `ru_maxrss` would include the parent's RSS at fork) of a "
           "process that runs the notebook's training, one process per engine. The measured "
           "processes get the moons points as plain lists, so neither "
           "imports numpy or scikit-learn (importing scikit-learn alone costs ~100 MiB, the "
           "same for both engines); the notebook-as-is processes of W1 are shown too.", ""]
    if "error" in w5:
        measured[("W5", RSS_VS_010)] = (None, w5["error"])
        return "\n".join(out + [w5["error"]])
    rows, peaks = [], {}
    for key, name in (("ours", "micrograd (this repo)"), ("baseline", "micrograd 0.1.0")):
        run = w5.get(key)
        notebook_runs = [r for r in w1.get(key, []) if _ok(r)] if w1 else []
        notebook_peak = max((r["peak_rss_kib"] for r in notebook_runs), default=None)
        if not _ok(run):
            rows.append([name, "—", "—", "—", mib(notebook_peak), _error([run] if run else [])])
            continue
        peaks[key] = run["peak_rss_kib"]
        rows.append([name, str(run["steps"]), mib(run["rss_before_training_kib"]),
                     mib(run["peak_rss_kib"]), mib(notebook_peak),
                     mib(run["peak_rss_kib"] - run["rss_before_training_kib"])])
    out.append(table(["engine", "steps", "RSS before training", "peak RSS",
                      "peak RSS, notebook as is (W1)", "growth during training"], rows))
    share = peaks["ours"] / peaks["baseline"] if len(peaks) == 2 else None
    out += ["",
            f"**Peak RSS ratio: {share:.2f}**" if share is not None else "**Peak RSS ratio: —**",
            f"(target {target('W5', RSS_VS_010).text()})."]
    measured[("W5", RSS_VS_010)] = (
        share, f"{share:.2f} ({mib(peaks.get('ours'))} vs {mib(peaks.get('baseline'))})"
        if share is not None else "—")
    return "\n".join(out)


def _timed_chains(runs_by_size: dict, n: int) -> tuple[list, list]:
    """(the processes run at size n, the chains among them that finished)."""
    runs = runs_by_size.get(n, runs_by_size.get(str(n), []))  # int keys, or str from JSON
    return runs, [x for r in runs if _ok(r) for x in r["runs"] if "error" not in x]


def _chain_rows(runs_by_size: dict, sizes: list, label: str) -> tuple[list, dict]:
    rows, totals = [], {}
    for n in sizes:
        runs, timed = _timed_chains(runs_by_size, n)
        if not timed:
            rows.append([f"{n:,}", label, "—", "—", "—", "—", "—", _error(runs)])
            continue
        total = median([x["build"] + x["backward"] for x in timed])
        totals[n] = total
        rows.append([f"{n:,}", label, str(len(timed)), sec(median([x["build"] for x in timed])),
                     sec(median([x["backward"] for x in timed])),
                     spread([x["build"] + x["backward"] for x in timed], sec),
                     sec(median([x["free"] for x in timed])), f"{timed[0]['grad']:.6g}"])
    return rows, totals


def _cpu_total(runs_by_size: dict, n: int) -> float | None:
    """Median CPU seconds of build + backward at size n (None if not recorded)."""
    cpu = [x["cpu_build"] + x["cpu_backward"] for x in _timed_chains(runs_by_size, n)[1]
           if "cpu_build" in x]
    return median(cpu) if cpu else None


def w4_section(w4: dict, measured: Measured) -> str:
    small, big = w4["sizes"]
    out = ["## W4 — scalar chains, build and backward", "",
           "A chain cycling through `x * 0.9999`, `x + 0.001`, `x.relu()`; each size in a fresh "
           "process, median over repeats. The target compares build + backward with Python's "
           "cyclic garbage collector on, as a user runs it; the rows with it off are a "
           "diagnostic of how much of the growth is the collector's.", ""]
    rows, totals = _chain_rows(w4["runs"], [small, big], "on")
    off_rows, off_totals = _chain_rows(w4.get("gc_off", {}), [small, big], "off")
    out.append(table(["ops", "cyclic gc", "runs", "build", "backward", "build + backward",
                      "free (not counted)", "d x_n / d x_0"], rows + off_rows))
    growth = totals[big] / totals[small] if len(totals) == 2 else None
    off_growth = off_totals[big] / off_totals[small] if len(off_totals) == 2 else None
    cpu = {n: _cpu_total(w4["runs"], n) for n in (small, big)}
    cpu_growth = cpu[big] / cpu[small] if None not in cpu.values() else None
    out += ["", f"**{big:,} ops take {ratio(growth)} the time of {small:,}** "
            f"(target {target('W4', GROWTH).text()}; 10× would be perfectly linear); "
            f"with the cyclic gc off: {ratio(off_growth)}. In CPU time (not disturbed by "
            f"other processes on a shared machine): {ratio(cpu_growth)}."]
    base = w4.get("baseline")
    if base:
        if _ok(base):
            first = base["runs"][0]
            what = (first.get("error")
                    or f"build {sec(first['build'])}, backward {sec(first.get('backward'))}")
            out += ["", f"micrograd 0.1.0 on {small:,} ops: {what} "
                        "(its topological sort is recursive)."]
        else:
            out += ["", f"micrograd 0.1.0 on {small:,} ops: {base.get('error')}."]
    measured[("W4", GROWTH)] = (growth, f"{ratio(growth)} (cyclic gc off: {ratio(off_growth)})")
    return "\n".join(out)


def _tensor_entries(runs: list[dict], key: str) -> tuple[list[dict], str]:
    """(workload `key`'s results from the processes that ran it, why there are none)."""
    if not runs:
        return [], "not run"
    good = [r for r in runs if _ok(r)]
    entries = [r[key] for r in good if key in r and "error" not in r[key]]
    if not entries:
        errors = [r[key]["error"] for r in good if key in r and "error" in r[key]]
        return [], (f"error: {errors[0]}" if errors else _error(runs))
    return entries, ""


def _tensor_median(runs: list[dict], key: str) -> float | None:
    """Median over processes of each process's seconds per step (itself a median)."""
    entries, _ = _tensor_entries(runs, key)
    return median([e["seconds_per_step"] for e in entries]) if entries else None


def _peak(runs: list[dict], key: str) -> float | None:
    """Median over processes of workload `key`'s peak RSS in KiB (None: not measured)."""
    peaks = [e["peak_rss_kib"] for e in _tensor_entries(runs, key)[0] if "peak_rss_kib" in e]
    return median(peaks) if peaks else None


def _first_entry(runs: list[dict], key: str) -> dict | None:
    entries, _ = _tensor_entries(runs, key)
    return entries[0] if entries else None


def tensor_sections(tensor: dict, measured: Measured) -> str:
    runs = {key: tensor.get(key, []) for key in (*TENSOR_CONFIGS, OPENBLAS_ONE)}
    threads_n = next((r.get("threads") for r in runs["torch/default"] if _ok(r)), "default")
    ours_n = next((r.get("threads") for r in runs["micrograd/default"] if _ok(r)), "default")
    out = ["## W2 — the moons problem on the Tensor engine", "",
           "MLP 2-16-16-1 as Linear/ReLU layers, float64, full batch, hinge + 1e-4·L2, SGD with "
           "the demo's decay, starting from the notebook's initial weights; 100 steps per block, "
           "median over blocks, then the median over processes (its range over processes in "
           "brackets). PyTorch runs the same code. Each library runs with one "
           "thread (numpy's BLAS via threadpoolctl / `torch.set_num_threads(1)`) and with its "
           "default; the target compares each at its best. micrograd also runs with "
           "OPENBLAS_NUM_THREADS=1 in its environment, the bar its default thread policy must "
           "not be slower than.", ""]
    header = ["workload", "micrograd, 1 thread", f"micrograd, default ({ours_n} max)",
              "PyTorch, 1 thread", f"PyTorch, {threads_n} threads",
              "micrograd, OPENBLAS_NUM_THREADS=1", "ours / PyTorch (each at its best)",
              "result"]

    peak_texts: list[str] = []

    def row_for(key: str, workload: str) -> list:
        medians = {name: _tensor_median(r, key) for name, r in runs.items()}
        ours = [medians[k] for k in TENSOR_CONFIGS[:2] if medians[k]]
        theirs = [medians[k] for k in TENSOR_CONFIGS[2:] if medians[k]]
        share = min(ours) / min(theirs) if ours and theirs else None
        cells, why_not = [], ""
        for name in (*TENSOR_CONFIGS, OPENBLAS_ONE):
            entries, why = _tensor_entries(runs[name], key)
            cells.append(spread([e["seconds_per_step"] for e in entries]) if entries else why)
            why_not = why_not or why
        measured[(workload, TIME)] = (share, f"{ratio(share)} of PyTorch's time"
                                      if share is not None else why_not or "—")
        policy = (medians["micrograd/default"] / medians[OPENBLAS_ONE]
                  if medians["micrograd/default"] and medians[OPENBLAS_ONE] else None)
        work = [e.get("multi_threaded_work") for e in _tensor_entries(runs["micrograd/default"],
                                                                       key)[0]]
        measured[(workload, POLICY)] = (policy, ratio(policy) + same_code_note(work))
        ours_peak, their_peak = (_peak(runs[k], key) for k in ("micrograd/1", "torch/1"))
        if ours_peak and their_peak:
            text = f"{ratio(ours_peak / their_peak)} ({mib(ours_peak)} vs {mib(their_peak)})"
            measured[(workload, RSS)] = (ours_peak / their_peak, text)
            peak_texts.append(f"{workload}: {text}")
        return [workload, *cells, ratio(share), target(workload, TIME).verdict(share)]

    out.append(table(header, [row_for("w2", "W2")]))
    ours_entry = _first_entry(runs["micrograd/1"], "w2")
    torch_entry = _first_entry(runs["torch/1"], "w2")
    if ours_entry and torch_entry:
        worst = max_relative_difference(ours_entry["losses"], torch_entry["losses"])
        out += ["", f"Losses, ours vs PyTorch (float64, same initial weights): max relative "
                    f"difference {worst:.1e} over {len(ours_entry['losses'])} steps; "
                    f"step 0: {ours_entry['losses'][0]!r} (the notebook's: 0.8958441028683222)."]
    elif torch_entry:
        out += ["", f"PyTorch's loss at step 0: {torch_entry['losses'][0]!r} (the notebook's: "
                    "0.8958441028683222)."]
    out += ["", "## W3 — digits MLP 64-128-10 training step, float32", "",
            "scikit-learn's 8×8 digits, Linear-ReLU-Linear, cross-entropy, backward, SGD step, "
            "the same initial weights in both; median over blocks, then over processes (range "
            "in brackets). Ratios < 1 mean ours is faster.", ""]
    out.append(table(header, [row_for(f"w3_{batch}", f"W3 batch {batch:,}")
                              for batch in (32, 128, 1797)]))
    firsts = []
    for batch in (32, 128, 1797):
        a = _first_entry(runs["micrograd/1"], f"w3_{batch}")
        b = _first_entry(runs["torch/1"], f"w3_{batch}")
        if a and b:
            firsts.append(abs(a["first_loss"] - b["first_loss"]) / abs(b["first_loss"]))
    if firsts:
        out += ["", f"First-step loss, ours vs PyTorch (float32): max relative difference "
                    f"{max(firsts):.1e}."]
    out += ["", "Peak RSS, ours / PyTorch's (Linux `VmHWM`, median over the one-thread "
                "processes, imports included; the high-water mark is reset before each workload, "
                "so each has its own peak): " + ("; ".join(peak_texts) or "not measured") + "."]
    return "\n".join(out)


def blas_section(context: dict) -> str:
    """numpy's BLAS in this run: sgemm peak on one thread, products on one thread and on the
    default, the cost of switching (benchmarks/blas_threads.py)."""
    blas = context.get("blas") or {}
    out = ["## BLAS threads on this machine", ""]
    if "sizes" not in blas:
        return "\n".join(out + [f"Not measured: {blas.get('error', 'not run')}."])
    n = blas["default_threads"]
    out += [f"`python -m benchmarks.blas_threads` in this run (load average "
            f"{', '.join(f'{x:.2f}' for x in blas.get('load') or [])} when it finished): "
            f"single-thread sgemm peak **{blas['sgemm_peak_flops'] / 1e9:,.1f} GFLOP/s** "
            f"(float32 2048×2048×2048); switching BLAS between 1 and {n} threads costs "
            f"{blas['switch_s'] * 1e6:,.2f} µs through threadpoolctl (the policy calls "
            "OpenBLAS's setter directly, and only around products of at least its MIN_FLOPS). "
            "Median time of one float32 product, interleaved:", ""]
    rows = [[f"{r['m']}×{r['k']}×{r['n']}", f"{r['flops']:,}", f"{r['one_thread_s'] * 1e6:,.1f} µs",
             f"{r['default_s'] * 1e6:,.1f} µs", ratio(r["default_s"] / r["one_thread_s"])]
            for r in blas["sizes"]]
    out.append(table(["m×k×n", "flops", "1 thread", f"{n} threads", f"{n} threads / 1"],
                     rows))
    return "\n".join(out)


def blas_that_ran(machine: dict) -> str:
    """'openblas 0.3.31, kernel SkylakeX, 2 threads', as threadpoolctl saw it."""
    blas = machine.get("blas_runtime")
    if not isinstance(blas, list):
        return str(blas or "?")
    return "; ".join(f"{b['internal_api']} {b['version']}, kernel {b['architecture']}, "
                     f"{b['num_threads']} threads" for b in blas) or "none found"


def machine_section(context: dict) -> str:
    m = context.get("machine", {})
    rows = [
        ["CPU", m.get("cpu", "?")], ["cores", str(m.get("cores", "?"))],
        ["Python", m.get("python", "?")], ["OS", m.get("platform", "?")],
        ["numpy", m.get("numpy", "?")], ["numpy BLAS (build)", m.get("numpy_blas_build", "?")],
        ["BLAS that ran (threadpoolctl)", blas_that_ran(m)],
        ["PyTorch",
         f"{m.get('torch', '?')} (default threads: {m.get('torch_default_threads', '?')})"],
        ["baseline", context.get("baseline_note", "?")],
        ["commit", context.get("git", "?")],
    ]
    return "## Machine\n\n" + table(["", ""], rows)


NOISY_LOAD = 1.5  # a 1-minute load average above this marks a noisy run (the suite adds ~1)


def run_conditions(context: dict) -> list[str]:
    """What ran and how loaded the machine was: the BLAS kernel, the load average at the start
    and the end, the CPU the other processes took, and whether the run counts as noisy."""
    m = context.get("machine", {})
    unset = context.get("blas_env_unset") or {}
    env_note = ("unset for the benchmark processes (the environment had "
                + ", ".join(f"{k}={v}" for k, v in unset.items()) + ")") if unset else "not set"
    loads = {when: context.get(f"load_{when}") for when in ("before", "after")}
    others = context.get("others_cores")
    lines = [f"- BLAS that ran (threadpoolctl, in a benchmark process): **{blas_that_ran(m)}**; "
             f"OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE {env_note}.",
             f"- Load average (1, 5, 15 min) at the start: {loads['before'] or 'unknown'}; at "
             f"the end: {loads['after'] or 'unknown'}"
             + (f"; the other processes on the machine used {others:.2f} of its "
                f"{m.get('cores', '?')} cores on average during the run (all CPU time less "
                "the suite's own)." if others is not None else ".")]
    durations = context.get("durations") or {}
    if durations:
        lines.append("- Time taken: " + "; ".join(f"{label} {seconds / 60:.1f} min"
                                                  for label, seconds in durations.items()) + ".")
    noisy = [f"load average {load.split()[0]} at the {when} (> {NOISY_LOAD})"
             for when, load in (("start", loads["before"]), ("end", loads["after"]))
             if load and load != "unknown" and float(load.split()[0]) > NOISY_LOAD]
    if others is not None and others > NOISY_LOAD - 1:
        noisy.append(f"other processes took {others:.2f} cores on average (> {NOISY_LOAD - 1}: "
                     "the suite itself keeps about one busy)")
    if noisy:
        lines.append(f"- **Noisy run**: {'; '.join(noisy)}. Times are inflated and ratios less "
                     "certain than on a quiet machine; rerun when the machine is quiet before "
                     "trusting a verdict near its bound.")
    else:
        lines.append(f"- Quiet run: load average at most {NOISY_LOAD} at the start and the end, "
                     "and the other processes took under half a core.")
    return lines


def render(context: dict, results: dict, plan, published: dict) -> str:
    measured: Measured = {}
    sections = []
    if "W1" in results:
        sections.append(w1_section(results["W1"], published, measured))
    if "tensor" in results:
        sections.append(tensor_sections(results["tensor"], measured))
    if "W4" in results:
        sections.append(w4_section(results["W4"], measured))
    if "W5" in results:
        sections.append(w5_section(results["W5"], results.get("W1", {}), measured))
    for group in ("torch_steps", "torch_steps_w8", "torch_steps_big"):
        if group in results:
            sections.append(torch_steps_section(results[group], measured, context.get("machine")))
    seconds = context["seconds"]
    head = ["# Benchmarks", "",
            f"Written by `{context['command']}` on {context['date']} in {seconds:.0f} s "
            f"({seconds / 60:.1f} min). Every ratio compares numbers measured in this one run; "
            "times are medians, with their range over processes or runs in brackets.", "",
            *run_conditions(context)]
    if plan.quick:
        head += ["", "**Quick run** (CI smoke test): tiny step counts, so the numbers below are "
                     "noisy and say nothing about the targets; run `make bench` for real numbers."]
    head += ["", "## Targets", "",
             "As issue 19 sets them (`benchmarks/targets.py`), every one in every run:", "",
             table(["workload", "measure", "target", "measured", "result"],
                   target_rows(measured))]
    return "\n\n".join(["\n".join(head), *sections, blas_section(context),
                        machine_section(context)]) + "\n"


def write(path: Path, generated: str, whole: bool) -> None:
    """Write the report, keeping the hand-written part of an existing one; unless the run
    was `whole`, also the sections (and target rows) of workloads that this run did not
    measure (`--only`), marked as kept."""
    kept = f"{HAND_WRITTEN_MARKER}\n\n## Where the time went\n\n(not written yet)\n"
    if path.exists():
        old = path.read_text()
        if HAND_WRITTEN_MARKER in old:
            kept = old[old.index(HAND_WRITTEN_MARKER):]
            old = old[:old.index(HAND_WRITTEN_MARKER)]
        if not whole:
            generated = keep_unmeasured_sections(old, generated)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(generated + "\n" + kept)


def _chunks(text: str) -> list[tuple[str, str]]:
    """`text` cut before each '## ' heading: (key, chunk), the key being the heading's first
    word ('W1', 'Targets', 'Machine'; 'W6,' -> 'W6'), '' for what precedes the first."""
    chunks: list[tuple[str, list[str]]] = [("", [])]
    for line in text.rstrip("\n").split("\n"):
        if line.startswith("## "):
            chunks.append((line[3:].split()[0].rstrip(",") if line[3:].split() else "", []))
        chunks[-1][1].append(line)
    return [(key, "\n".join(lines).rstrip("\n")) for key, lines in chunks]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _family(workload: str) -> str:
    """'W3 batch 128' -> 'W3', 'W10-poly' -> 'W10'."""
    return workload.split()[0].split("-")[0]


def keep_unmeasured_sections(old: str, new: str) -> str:
    """`new`, with the workload sections of `old` that `new` lacks, and `old`'s rows in
    place of the target rows that `new` did not measure."""
    old_chunks, new_chunks = _chunks(old), _chunks(new)
    new_keys = {key for key, _ in new_chunks}
    new_rows = [line for line in dict(new_chunks).get("Targets", "").split("\n")
                if line.startswith("| W")]
    measured = {_family(_cells(line)[0]) for line in new_rows if NOT_MEASURED not in line}
    measured |= {key for key in new_keys if key.startswith("W")}
    old_rows = {tuple(_cells(line)[:2]): line
                for line in dict(old_chunks).get("Targets", "").split("\n")
                if line.startswith("| W") and _family(_cells(line)[0]) not in measured}
    old_sections = [(key, chunk) for key, chunk in old_chunks
                    if key.startswith("W") and key not in new_keys
                    and not _section_workloads(chunk) & measured]
    if not old_sections and not old_rows:
        return new
    note = f"*Kept from the run of {_run_date(old)}: the run above did not measure this workload.*"
    head: list[tuple[str, str]] = []
    sections: list[tuple[str, str]] = []
    tail: list[tuple[str, str]] = []
    for key, chunk in new_chunks:
        if key == "Targets":
            chunk = "\n".join(old_rows.get(tuple(_cells(line)[:2]), line)
                              if line.startswith("| W") and NOT_MEASURED in line else line
                              for line in chunk.split("\n"))
        (sections if key.startswith("W") else tail if sections else head).append((key, chunk))
    for key, chunk in old_sections:
        if "*Kept from the run of" not in chunk:
            heading, _, body = chunk.partition("\n")
            chunk = f"{heading}\n\n{note}\n{body}"
        sections.append((key, chunk))
    sections.sort(key=lambda pair: int(pair[0][1:]))  # W1 ... W10, measured or kept
    return "\n\n".join(chunk for _, chunk in head + sections + tail) + "\n"


def _section_workloads(chunk: str) -> set[str]:
    """The workloads a section heading names: '## W6, W7 — ...' -> {'W6', 'W7'}."""
    heading = chunk.split("\n", 1)[0][3:].split("—")[0]
    return {word.strip(",") for word in heading.split() if word.strip(",").startswith("W")}


def _run_date(text: str) -> str:
    marker = " on "
    for line in text.split("\n"):
        if line.startswith("Written by") and marker in line:
            return line.split(marker, 1)[1].split(" in ")[0]
    return "an earlier run"
