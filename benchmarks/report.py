"""Turn the suite's raw results into docs/benchmarks.md: a table per workload and a verdict
per target. Everything after HAND_WRITTEN_MARKER in an existing report is kept as is."""

from __future__ import annotations

from pathlib import Path

from benchmarks.common import median
from benchmarks.report_format import mib, ms, ratio, sec, table, verdict
from benchmarks.report_torch_steps import torch_steps_section

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


def w1_section(w1: dict, targets: dict, published: dict, summary: list) -> str:
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
    out += ["", f"**Speed-up: {ratio(speedup)}** (target ≥ {targets['W1']:.0f}×)."]
    summary.append(["W1", f"≥ {targets['W1']:.0f}× faster than micrograd 0.1.0",
                    f"{ratio(speedup)} ({ms(t_ours)} vs {ms(t_theirs)} per step)",
                    verdict(speedup, targets["W1"], True)])

    # the numbers must not change: every step's loss against 0.1.0, and the published ones
    worst, steps_compared, engines_agree = None, 0, None
    if ours and theirs:
        a, b = ours[0]["losses"], theirs[0]["losses"]
        steps_compared = min(len(a), len(b))
        worst = max_relative_difference(a, b)
        engines_agree = all(r["losses"] == ours[0]["losses"] for r in ours)
    out += ["", "Same numbers:", ""]
    check_rows = [["every step's loss, ours vs 0.1.0",
                   f"max relative difference {worst:.1e} over {steps_compared} steps"
                   if worst is not None else "—",
                   verdict(worst, targets["W1_loss_rtol"], False)]]
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
    summary.append(["W1", f"same loss at every step (relative ≤ {targets['W1_loss_rtol']:.0e})",
                    f"{worst:.1e} over {steps_compared} steps" if worst is not None else "—",
                    verdict(worst, targets["W1_loss_rtol"], False)])
    return "\n".join(out)


def w5_section(w5: dict, w1: dict, targets: dict, summary: list) -> str:
    out = ["## W5 — peak memory (RSS) of W1", "",
           "Peak RSS (Linux `VmHWM`; `ru_maxrss` would include the parent's RSS at fork) of a "
           "process that runs the notebook's training, one process per engine. The measured "
           "processes get the moons points as plain lists, so neither "
           "imports numpy or scikit-learn (importing scikit-learn alone costs ~100 MiB, the "
           "same for both engines); the notebook-as-is processes of W1 are shown too.", ""]
    if "error" in w5:
        summary.append(["W5", "≤ 1/3 of 0.1.0's peak RSS", w5["error"], "n/a"])
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
            f"(target ≤ {targets['W5']:.2f})."]
    summary.append(["W5", "≤ 1/3 of micrograd 0.1.0's peak RSS",
                    f"{share:.2f} ({mib(peaks.get('ours'))} vs {mib(peaks.get('baseline'))})"
                    if share is not None else "—", verdict(share, targets["W5"], False)])
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
                     sec(median([x["backward"] for x in timed])), sec(total),
                     sec(median([x["free"] for x in timed])), f"{timed[0]['grad']:.6g}"])
    return rows, totals


def _cpu_total(runs_by_size: dict, n: int) -> float | None:
    """Median CPU seconds of build + backward at size n (None if not recorded)."""
    cpu = [x["cpu_build"] + x["cpu_backward"] for x in _timed_chains(runs_by_size, n)[1]
           if "cpu_build" in x]
    return median(cpu) if cpu else None


def w4_section(w4: dict, targets: dict, summary: list) -> str:
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
            f"(target ≤ {targets['W4']:.0f}×; 10× would be perfectly linear); "
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
    summary.append(["W4", f"{big:,} ops ≤ {targets['W4']:.0f}× the time of {small:,}",
                    f"{ratio(growth)} (cyclic gc off: {ratio(off_growth)})",
                    verdict(growth, targets["W4"], False)])
    return "\n".join(out)


def _tensor_medians(runs: list[dict], key: str) -> tuple[float | None, dict | None, str]:
    if not runs:
        return None, None, "not run"
    good = [r for r in runs if _ok(r)]
    entries = [r[key] for r in good if key in r and "error" not in r[key]]
    if not entries:
        errors = [r[key]["error"] for r in good if key in r and "error" in r[key]]
        return None, None, (f"error: {errors[0]}" if errors else _error(runs))
    return median([e["seconds_per_step"] for e in entries]), entries[0], ""


def tensor_sections(tensor: dict, targets: dict, summary: list) -> str:
    runs = {key: tensor.get(key, []) for key in
            ("micrograd/1", "micrograd/default", "torch/1", "torch/default")}
    threads_n = next((r.get("threads") for r in runs["torch/default"] if _ok(r)), "default")
    ours_n = next((r.get("threads") for r in runs["micrograd/default"] if _ok(r)), "default")
    out = ["## W2 — the moons problem on the Tensor engine", "",
           "MLP 2-16-16-1 as Linear/ReLU layers, float64, full batch, hinge + 1e-4·L2, SGD with "
           "the demo's decay, starting from the notebook's initial weights; 100 steps per block, "
           "median over blocks and rounds. PyTorch runs the same code. Each library runs with one "
           "thread (numpy's BLAS via threadpoolctl / `torch.set_num_threads(1)`) and with its "
           "default; the target compares each at its best.", ""]
    header = ["workload", "micrograd, 1 thread", f"micrograd, {ours_n} threads",
              "PyTorch, 1 thread", f"PyTorch, {threads_n} threads",
              "ours / PyTorch (each at its best)", "result"]

    def row_for(key: str, label: str, target: float, target_text: str) -> list:
        medians = {name: _tensor_medians(r, key) for name, r in runs.items()}
        ours = [medians[k][0] for k in ("micrograd/1", "micrograd/default") if medians[k][0]]
        theirs = [medians[k][0] for k in ("torch/1", "torch/default") if medians[k][0]]
        share = min(ours) / min(theirs) if ours and theirs else None
        cells = [ms(t) if t is not None else why for t, _, why in medians.values()]
        summary.append([key.split("_")[0].upper(), f"{label}: {target_text}",
                        f"{ratio(share)} of PyTorch's time" if share is not None
                        else medians["micrograd/1"][2] or medians["micrograd/default"][2] or "—",
                        verdict(share, target, False)])
        return [label, *cells, ratio(share), verdict(share, target, False)]

    out.append(table(header, [row_for("w2", "moons, batch 100", targets["W2"], "≤ 0.5× PyTorch")]))
    _, ours_entry, _ = _tensor_medians(runs["micrograd/1"], "w2")
    _, torch_entry, _ = _tensor_medians(runs["torch/1"], "w2")
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
            "the same initial weights in both; median over blocks and rounds. Ratios < 1 mean "
            "ours is faster.", ""]
    rows = []
    for batch in (32, 128, 1797):
        full = batch == 1797
        rows.append(row_for(f"w3_{batch}", f"batch {batch:,}",
                            targets["W3_full"] if full else targets["W3_small"],
                            f"≤ {targets['W3_full'] if full else targets['W3_small']:g}× PyTorch"))
    out.append(table(header, rows))
    firsts = []
    for batch in (32, 128, 1797):
        _, a, _ = _tensor_medians(runs["micrograd/1"], f"w3_{batch}")
        _, b, _ = _tensor_medians(runs["torch/1"], f"w3_{batch}")
        if a and b:
            firsts.append(abs(a["first_loss"] - b["first_loss"]) / abs(b["first_loss"]))
    if firsts:
        out += ["", f"First-step loss, ours vs PyTorch (float32): max relative difference "
                    f"{max(firsts):.1e}."]
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
            "OpenBLAS's setter directly, and only around products of at least 2·10^8 flops). "
            "Median time of one float32 product, interleaved:", ""]
    rows = [[f"{r['m']}×{r['k']}×{r['n']}", f"{r['flops']:,}", f"{r['one_thread_s'] * 1e6:,.1f} µs",
             f"{r['default_s'] * 1e6:,.1f} µs", ratio(r["default_s"] / r["one_thread_s"])]
            for r in blas["sizes"]]
    out.append(table(["m×k×n", "flops", "1 thread", f"{n} threads", f"{n} threads / 1"],
                     rows))
    return "\n".join(out)


def machine_section(context: dict) -> str:
    m = context.get("machine", {})
    blas = m.get("blas_runtime")
    if isinstance(blas, list):
        blas = "; ".join(f"{b['internal_api']} {b['version']}, kernel {b['architecture']}, "
                         f"{b['num_threads']} threads" for b in blas) or "none found"
    unset = context.get("blas_env_unset") or {}
    rows = [
        ["CPU", m.get("cpu", "?")], ["cores", str(m.get("cores", "?"))],
        ["Python", m.get("python", "?")], ["OS", m.get("platform", "?")],
        ["numpy", m.get("numpy", "?")], ["numpy BLAS (build)", m.get("numpy_blas_build", "?")],
        ["BLAS that ran (threadpoolctl)", str(blas)],
        ["OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE",
         ("unset for the benchmark processes (were: "
          + ", ".join(f"{k}={v}" for k, v in unset.items()) + ")")
         if unset else "not set"],
        ["PyTorch",
         f"{m.get('torch', '?')} (default threads: {m.get('torch_default_threads', '?')})"],
        ["baseline", context.get("baseline_note", "?")],
        ["load average before / after",
         f"{context.get('load_before')} / {context.get('load_after')}"],
        ["commit", context.get("git", "?")],
    ]
    return "## Machine\n\n" + table(["", ""], rows)


def render(context: dict, results: dict, plan, targets: dict, published: dict) -> str:
    summary: list = []
    sections = []
    if "W1" in results:
        sections.append(w1_section(results["W1"], targets, published, summary))
    if "tensor" in results:
        sections.append(tensor_sections(results["tensor"], targets, summary))
    if "W4" in results:
        sections.append(w4_section(results["W4"], targets, summary))
    if "W5" in results:
        sections.append(w5_section(results["W5"], results.get("W1", {}), targets, summary))
    for group in ("torch_steps", "torch_steps_w8", "torch_steps_big"):
        if group in results:
            sections.append(torch_steps_section(results[group], targets, summary,
                                                context.get("machine")))
    head = ["# Benchmarks", "",
            f"Written by `{context['command']}` on {context['date']} in "
            f"{context['seconds']:.0f} s. Every ratio compares numbers measured in this one run."]
    if plan.quick:
        head += ["", "**Quick run** (CI smoke test): tiny step counts, so the numbers below are "
                     "noisy and say nothing about the targets; run `make bench` for real numbers."]
    head += ["", "## Targets", "", table(["workload", "target", "measured", "result"], summary)]
    return "\n\n".join(["\n".join(head), *sections, blas_section(context),
                        machine_section(context)]) + "\n"


def write(path: Path, generated: str) -> None:
    """Write the report, keeping the hand-written part of an existing one, and the sections
    (and target rows) of workloads that this run did not measure (`--only`), marked as kept."""
    kept = f"{HAND_WRITTEN_MARKER}\n\n## Where the time went\n\n(not written yet)\n"
    if path.exists():
        old = path.read_text()
        if HAND_WRITTEN_MARKER in old:
            kept = old[old.index(HAND_WRITTEN_MARKER):]
            old = old[:old.index(HAND_WRITTEN_MARKER)]
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


def _row_workload(line: str) -> str:
    return line.strip("|").split("|")[0].strip()


def keep_unmeasured_sections(old: str, new: str) -> str:
    """`new`, plus the workload sections and target rows of `old` that `new` lacks."""
    old_chunks, new_chunks = _chunks(old), _chunks(new)
    new_keys = {key for key, _ in new_chunks}
    new_workloads = {key for key in new_keys if key.startswith("W")}
    # target rows are per workload; W6/W7 share one section, so look at the rows too
    new_targets = dict(new_chunks).get("Targets", "")
    measured = new_workloads | {_row_workload(line) for line in new_targets.split("\n")
                                if line.startswith("| W")}
    old_sections = [(key, chunk) for key, chunk in old_chunks
                    if key.startswith("W") and key not in new_keys
                    and not _section_workloads(chunk) & measured]
    old_rows = [line for line in dict(old_chunks).get("Targets", "").split("\n")
                if line.startswith("| W") and _row_workload(line) not in measured]
    if not old_sections and not old_rows:
        return new
    when = _run_date(old)
    note = f"*Kept from the run of {when}: the run above did not measure this workload.*"
    head: list[tuple[str, str]] = []
    sections: list[tuple[str, str]] = []
    tail: list[tuple[str, str]] = []
    for key, chunk in new_chunks:
        if key == "Targets" and old_rows:
            lines = chunk.split("\n")
            rows = [line for line in lines if line.startswith("| W")] + old_rows
            rows.sort(key=_row_workload)  # stable: a workload's rows keep their order
            first = next(i for i, line in enumerate(lines) if line.startswith("| W"))
            last = max(i for i, line in enumerate(lines) if line.startswith("| W"))
            chunk = "\n".join(lines[:first] + rows + lines[last + 1:])
        (sections if key.startswith("W") else tail if sections else head).append((key, chunk))
    for key, chunk in old_sections:
        if "*Kept from the run of" not in chunk:
            heading, _, body = chunk.partition("\n")
            chunk = f"{heading}\n\n{note}\n{body}"
        sections.append((key, chunk))
    sections.sort(key=lambda pair: pair[0])  # W1 ... W7, measured or kept
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
