"""The driver: runs every workload in subprocesses and writes the markdown report.

    python -m benchmarks            every workload W1-W10 (about 25 minutes on a quiet
                                    2-core machine; W8 needs ~7.5 GB free), rewrites
                                    docs/benchmarks.md whole (its hand-written part kept)
    python -m benchmarks --quick    smoke run for CI (about a minute), writes
                                    out/benchmarks-quick.md unless --output says otherwise

    python -m benchmarks --only W6,W7
                                    just those workloads; the other sections of the report
                                    are kept from its last run, marked as kept
    python -m benchmarks --render out/bench-scratch/last-run.json
                                    the report again from a run's saved raw results

Ratios are always between numbers measured in this same run. Runs of the engines being
compared are interleaved, so a machine that gets busier halfway hurts both alike.
W6/W7 (the lecture steps through micrograd.torch) start from the same weights as PyTorch:
if their step-0 losses disagree, the report says FAIL and the command exits with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchmarks import report
from benchmarks.common import BLAS_ENV_VARS, ROOT, SRC
from benchmarks.targets import LOSS_RTOL

BASELINE_VERSION = "0.1.0"
BASELINE_DIR = ROOT / ".baselines" / f"micrograd-{BASELINE_VERSION}"

RAW_RESULTS = ROOT / "out" / "bench-scratch" / "last-run.json"  # every run's, before its report

# Published in micrograd's demo notebook (demo.ipynb): the loss at step 0 and step 99.
NOTEBOOK_LOSSES = {0: 0.8958441028683222, 99: 0.010978370135492717}

WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8", "W9", "W10")
# workloads through micrograd.torch, by report section (a rerun replaces a section whole)
TORCH_STEP_GROUPS = {"torch_steps": ("W6", "W7"), "torch_steps_w8": ("W8",),
                     "torch_steps_big": ("W9", "W10-linear", "W10-mlp", "W10-poly")}


@dataclass
class Plan:
    """How much to run: the full suite or the --quick smoke run."""

    quick: bool
    w1_steps: int
    w1_runs: int
    w1_baseline_steps: int
    w1_baseline_runs: int
    w4_sizes: tuple[int, int]
    w4_repeats: int
    tensor_rounds: int
    torch_step_rounds: dict[str, int]  # W6-W10: interleaved rounds of processes
    torch_steps: dict[str, int]  # W6-W10: timed steps per process

    @classmethod
    def make(cls, quick: bool) -> Plan:
        if quick:
            return cls(True, 3, 1, 2, 1, (1_000, 10_000), 1, 1,
                       {"W6": 1, "W7": 1, "W8": 0, "W9": 1, "W10": 1},
                       {"W6": 3, "W7": 2, "W8": 1, "W9": 2, "W10": 20})
        # W2/W3 steps take well under a millisecond on a shared machine: 5 rounds of
        # interleaved subprocesses, so one noisy round does not decide the median
        # W4 per-round ratios spread from 9x to 18x on this 2-core machine: 7 repeats
        # W6 (~0.3 ms) and W7 (~20 ms): 5 interleaved rounds of a few hundred ms each;
        # W8 (~20 s of CPU a step, 7.4 GB; a process ~1 min on a quiet machine, measured):
        # one round of its five processes, two timed steps after one warm-up step each;
        # W9 (~0.3 s): 3 rounds of 15 steps; W10 (~0.03-0.3 ms): 3 rounds of 3,000 steps.
        # In all about 23 minutes on a quiet 2-core machine, W1 and W5's 0.1.0 runs 8 of them.
        return cls(False, 100, 6, 100, 2, (100_000, 1_000_000), 7, 5,
                   {"W6": 5, "W7": 5, "W8": 1, "W9": 3, "W10": 3},
                   {"W6": 300, "W7": 30, "W8": 2, "W9": 15, "W10": 3000})


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- subprocesses ------------------------------------------------------------------------

def bench_env(engine_dir: Path) -> dict:
    """The environment of a benchmark subprocess: `engine_dir`'s micrograd first on the path.

    OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE (set on some machines, slowing numpy down) are
    removed together, for benchmark subprocesses only; the report says so.
    """
    env = {k: v for k, v in os.environ.items() if k not in BLAS_ENV_VARS}
    env["PYTHONPATH"] = os.pathsep.join([str(engine_dir), str(ROOT)])
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONSTARTUP", None)
    return env


def run_json(module: str, args: list, engine_dir: Path, timeout: float,
             env_extra: dict | None = None) -> dict:
    """Run `python -m benchmarks.<module> args` and return the JSON object it prints."""
    command = [sys.executable, "-m", f"benchmarks.{module}", *map(str, args)]
    try:
        done = subprocess.run(
            command, cwd=ROOT, env={**bench_env(engine_dir), **(env_extra or {})},
            capture_output=True, text=True, timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["(no output)"]
        return {"error": f"exit {done.returncode}: {tail[0]}"}
    try:
        return json.loads(done.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return {"error": f"no JSON in output: {done.stdout[-200:]!r}"}


def ensure_baseline(quick: bool) -> tuple[Path | None, str]:
    """micrograd 0.1.0 from PyPI in a folder of its own (it shares our import name)."""
    if (BASELINE_DIR / "micrograd" / "engine.py").exists():
        return (BASELINE_DIR,
                f"micrograd {BASELINE_VERSION} from PyPI (cached in {_rel(BASELINE_DIR)})")
    log(f"installing micrograd=={BASELINE_VERSION} into {_rel(BASELINE_DIR)}")
    command = [
        sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--no-deps", "--target", str(BASELINE_DIR), f"micrograd=={BASELINE_VERSION}",
    ]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60 if quick else 300)
    except subprocess.TimeoutExpired:
        return None, f"micrograd {BASELINE_VERSION} not available: pip install timed out"
    if done.returncode != 0 or not (BASELINE_DIR / "micrograd" / "engine.py").exists():
        reason = (done.stderr.strip().splitlines() or ["pip failed"])[-1]
        return None, f"micrograd {BASELINE_VERSION} not available: {reason}"
    return (BASELINE_DIR,
            f"micrograd {BASELINE_VERSION} from PyPI (installed into {_rel(BASELINE_DIR)})")


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


# --- the workloads -----------------------------------------------------------------------

def run_w1(plan: Plan, baseline: Path | None) -> dict:
    """The notebook, ours and 0.1.0. Each of 0.1.0's `w1_baseline_runs` runs is paced a step
    at a time (`--lockstep`); at evenly spaced steps it waits while one whole run of ours
    goes, its steps back to back as a user's loop runs them. Our `w1_runs` runs are spread
    that way over 0.1.0's (the rest, if any, after), so a change in the machine's load hits
    both alike. Ours are not paced step by step: a ~2 s idle gap before each of our ~16 ms
    steps cost our step ~20% (benchmarks/lockstep_gap.py), which no user's loop pays."""
    ours: list[dict] = []
    theirs: list[dict] = []
    pairs = plan.w1_baseline_runs if baseline is not None else 0
    per_pair = -(-plan.w1_runs // pairs) if pairs else 0  # ceil: spread all of ours
    during: list[int] = []  # which of 0.1.0's runs each of ours ran inside

    def run_ours(note: str) -> None:
        log(f"W1 moons notebook, ours, {plan.w1_steps} steps, run {len(ours) + 1}{note}")
        ours.append(run_json("moons_notebook", [plan.w1_steps], SRC, 900))

    for i in range(pairs):
        log(f"W1 moons notebook, micrograd {BASELINE_VERSION} ({plan.w1_baseline_steps} "
            f"steps) paced, run {i + 1}/{pairs}")
        starts = {plan.w1_baseline_steps * j // per_pair for j in range(per_pair)}

        def between(step: int, pair: int = i, starts: set = starts) -> None:
            if step in starts and len(ours) < plan.w1_runs:
                run_ours(f", during 0.1.0's run {pair + 1}")
                during.append(pair)

        theirs += run_lockstep("moons_notebook", [(plan.w1_baseline_steps, baseline)], 3600,
                               between)
    while len(ours) < plan.w1_runs:
        run_ours("")
    return {"ours": ours, "baseline": theirs, "ours_during": during}


def _line(process: subprocess.Popen, go: bool = False) -> str:
    """The next line `process` prints, after sending it a go (an empty line) if `go`."""
    assert process.stdin is not None and process.stdout is not None
    if go:
        process.stdin.write("\n")
        process.stdin.flush()
    return process.stdout.readline().strip()


def run_lockstep(module: str, runs: list[tuple[int, Path | None]], timeout: float,
                 between: Callable[[int], None] | None = None) -> list[dict]:
    """Run `python -m benchmarks.<module> STEPS --lockstep`, one process per (steps, engine
    dir), pacing them a step each in turn (see moons_notebook.py); each one's JSON object.
    `between(k)`, if given, runs before the k-th round of steps, while every process waits."""
    deadline = time.monotonic() + timeout
    processes = [subprocess.Popen(
        [sys.executable, "-m", f"benchmarks.{module}", str(steps), "--lockstep"], cwd=ROOT,
        env=bench_env(engine_dir or SRC), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True) for steps, engine_dir in runs]
    remaining = [steps for steps, _ in runs]
    failed: dict[int, str] = {}
    try:
        for i, process in enumerate(processes):  # both set up before either is timed
            if _line(process) != "ready":
                failed[i] = "did not start"
        round_ = 0
        while any(n > 0 for i, n in enumerate(remaining) if i not in failed):
            if between is not None:
                between(round_)
            round_ += 1
            if time.monotonic() > deadline:
                failed.update((i, f"timed out after {timeout:.0f} s")
                              for i, n in enumerate(remaining) if n > 0 and i not in failed)
                break
            for i, process in enumerate(processes):
                if remaining[i] <= 0 or i in failed:
                    continue
                if _line(process, go=True) != "done":
                    failed[i] = "stopped in the middle of a step"
                remaining[i] -= 1
    except (BrokenPipeError, OSError) as error:
        failed.update((i, f"lost: {error}") for i in range(len(processes)) if i not in failed)
    results = []
    for i, process in enumerate(processes):
        if i in failed:
            process.kill()
        # not communicate(): it reads the pipe's file descriptor, missing what readline()
        # has already buffered (the JSON can arrive in one read with the last "done")
        assert process.stdin and process.stdout and process.stderr
        process.stdin.close()
        out, err = process.stdout.read(), process.stderr.read()
        process.wait()
        if i in failed or process.returncode != 0:
            tail = (err.strip().splitlines() or [failed.get(i, "(no output)")])[-1]
            results.append({"error": f"{failed.get(i, f'exit {process.returncode}')}: {tail}"})
            continue
        try:
            results.append(json.loads(out.strip().splitlines()[-1]))
        except (json.JSONDecodeError, IndexError):
            results.append({"error": f"no JSON in output: {out[-200:]!r}"})
    return results


def run_w5(plan: Plan, baseline: Path | None, scratch: Path) -> dict:
    data = scratch / "moons.json"
    made = run_json("moons_data", [data], SRC, 300)
    if "error" in made:
        return {"error": "could not make the moons data (needs numpy, scikit-learn): "
                         f"{made['error']}"}
    log(f"W5 peak RSS, ours, {plan.w1_steps} steps")
    result = {"ours": run_json("moons_notebook", [plan.w1_steps, data], SRC, 900)}
    if baseline is not None:
        log(f"W5 peak RSS, micrograd {BASELINE_VERSION}, {plan.w1_baseline_steps} steps")
        result["baseline"] = run_json("moons_notebook", [plan.w1_baseline_steps, data],
                                      baseline, 3600)
    return result


def run_w4(plan: Plan, baseline: Path | None) -> dict:
    small, big = plan.w4_sizes
    runs: dict[int, list] = {small: [], big: []}
    gc_off: dict[int, list] = {small: [], big: []}
    for _ in range(plan.w4_repeats):  # fresh process per size; sizes interleaved
        for n in (small, big):
            log(f"W4 chain of {n:,} ops")
            runs[n].append(run_json("chain", [n], SRC, 900))
            log(f"W4 chain of {n:,} ops, cyclic gc off (diagnostic)")
            gc_off[n].append(run_json("chain", ["--gc-off", n], SRC, 900))
    result = {"sizes": [small, big], "runs": runs, "gc_off": gc_off}
    if baseline is not None:
        log(f"W4 chain of {small:,} ops, micrograd {BASELINE_VERSION}")
        result["baseline"] = run_json("chain", [small], baseline, 600)
    return result


# micrograd's default thread policy and its bar, OPENBLAS_NUM_THREADS=1 ("env1"): run one
# right after the other in every round, so that their ratio sees the same load
POLICY_PAIR = (("micrograd", "default"), ("micrograd", "env1"))


def _threads_setting(threads: str) -> tuple[str, dict | None]:
    """A configuration's threads ("1", "default" or "env1") as (the workload script's
    argument, environment to add): "env1" is the default with OPENBLAS_NUM_THREADS=1."""
    if threads == "env1":
        return "default", {"OPENBLAS_NUM_THREADS": "1"}
    return threads, None


def run_tensor(plan: Plan) -> dict:
    """W2/W3: each engine and thread setting in its own process, rounds interleaved; micrograd
    also with OPENBLAS_NUM_THREADS=1 ("env1"), the bar of its thread policy on W3."""
    configs = [("micrograd", "1"), *POLICY_PAIR, ("torch", "1"), ("torch", "default")]
    if plan.quick:  # the smoke run exercises the code paths once: one thread each
        configs = [("micrograd", "1"), ("torch", "1")]
    results: dict[str, list] = {f"{e}/{t}": [] for e, t in configs}
    for round_ in range(plan.tensor_rounds):
        for engine, threads in configs:
            key = f"{engine}/{threads}"
            previous = results[key]
            if previous and not previous[0].get("available", True):
                continue  # not installed: asking again will not change that
            log(f"W2/W3 {engine}, threads={threads}, round {round_ + 1}/{plan.tensor_rounds}")
            threads_arg, env = _threads_setting(threads)
            previous.append(run_json("tensor_workloads", [engine, threads_arg, int(plan.quick)],
                                     SRC, 1200, env))
    return results


def run_torch_steps(plan: Plan, workloads: tuple[str, ...], one_thread: bool = False) -> dict:
    """W6-W10: each (engine, threads) in its own process per workload, rounds interleaved.
    W8, W9 and W10 also run micrograd with OPENBLAS_NUM_THREADS=1, the bar for its thread
    policy."""
    configs = [("micrograd", "1"), *POLICY_PAIR, ("torch", "1"), ("torch", "default")]
    if {"W6", "W7"} & set(workloads):  # the issue checks the policy on W3, W8, W9, W10
        configs.remove(("micrograd", "env1"))
    if plan.quick or one_thread:  # the smoke run exercises the code paths once
        configs = [("micrograd", "1"), ("torch", "1")]
    results: dict[str, dict[str, list]] = {
        w: {f"{e}/{t}": [] for e, t in configs} for w in workloads}
    rounds = max(plan.torch_step_rounds[w.split("-")[0]] for w in workloads)
    for round_ in range(rounds):
        for workload in workloads:
            family = workload.split("-")[0]
            if round_ >= plan.torch_step_rounds[family]:
                continue
            for engine, threads in configs:
                log(f"{workload} {engine}, threads={threads}, "
                    f"round {round_ + 1}/{plan.torch_step_rounds[family]}")
                threads_arg, env = _threads_setting(threads)
                if family == "W8" and not _enough_memory(W8_MEMORY_GIB):
                    results[workload][f"{engine}/{threads}"].append(
                        {"error": f"not run: needs about {W8_MEMORY_GIB:g} GiB of memory "
                                  f"free, {_available_gib():.1f} GiB were after 5 minutes"})
                    continue
                results[workload][f"{engine}/{threads}"].append(run_json(
                    "torch_steps", ["--json", "--engine", engine, "--threads", threads_arg,
                                    "--workload", workload, "--steps", plan.torch_steps[family]],
                    SRC, 3600, env))
    return results


W8_MEMORY_GIB = 8.0  # a W8 process peaks at ~7.4 GB (micrograd) and ~6.8 GB (PyTorch)


def _available_gib() -> float:
    """MemAvailable from /proc/meminfo in GiB (infinity where there is none to read)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return float("inf")


def _enough_memory(gib: float, wait_s: float = 300) -> bool:
    """Whether `gib` GiB are free, waiting up to `wait_s` seconds for them: on a shared
    machine a process that cannot get them would push everyone's into swap or the OOM
    killer, so the suite records it as not run instead."""
    deadline = time.monotonic() + wait_s
    while _available_gib() < gib:
        if time.monotonic() > deadline:
            return False
        log(f"waiting for {gib:g} GiB of free memory ({_available_gib():.1f} GiB now)")
        time.sleep(15)
    return True


def loss_mismatches(torch_steps: dict, rtol: float) -> list[str]:
    """Step-0 losses (with dropout: eval-mode losses) of micrograd and PyTorch that differ
    by more than `rtol` (same weights)."""
    problems = []
    for workload, runs in torch_steps.items():
        firsts = {key.split("/")[0]: run.get("check_loss", run["first_losses"][0])
                  if workload == "W8" else run["first_losses"][0]
                  for key, key_runs in runs.items() for run in key_runs[:1]
                  if run and "first_losses" in run}
        if len(firsts) == 2:
            ours, theirs = firsts["micrograd"], firsts["torch"]
            if abs(ours - theirs) > rtol * abs(theirs):
                problems.append(f"{workload}: step-0 loss {ours!r} on micrograd, {theirs!r} on "
                                f"PyTorch, from the same weights (tolerance {rtol:.0e} relative)")
    return problems


# --- main --------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="tiny step counts (CI smoke run)")
    parser.add_argument("--output", type=Path, help="where to write the markdown report")
    parser.add_argument(
        "--only", default=",".join(WORKLOADS),
        help="comma-separated workloads to run (default: all); the sections of the others "
             "are kept from the existing report",
    )
    parser.add_argument(
        "--one-thread", action="store_true",
        help="W6-W10: only each engine's one-thread processes (W8's take a minute or more "
             "and ~7.5 GB each: for a machine that cannot spare that five times over)")
    parser.add_argument(
        "--render", type=Path, metavar="RAW.json",
        help="run nothing: write the report again from a run's raw results (every run saves "
             f"them as {RAW_RESULTS.relative_to(ROOT)} before writing its report)")
    args = parser.parse_args(argv)
    if args.render:
        raw = json.loads(args.render.read_text())
        plan = Plan.make(raw["context"]["quick"])
        output = args.output or default_output(plan.quick)
        return finish(raw["context"], raw["results"], plan, output, raw["whole"])
    plan = Plan.make(args.quick)
    only = {w.strip().upper() for w in args.only.split(",") if w.strip()}
    unknown = only - set(WORKLOADS)
    if unknown or not only:
        parser.error(f"--only takes workloads among {','.join(WORKLOADS)}, got {args.only!r}")
    output = args.output or default_output(args.quick)
    scratch = RAW_RESULTS.parent
    scratch.mkdir(parents=True, exist_ok=True)

    started = time.perf_counter()
    cpu_at_start = _cpu_seconds()
    context = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python -m benchmarks" + (" --quick" if args.quick else "")
                   + ("" if only == set(WORKLOADS) else f" --only {','.join(sorted(only))}")
                   + (" --one-thread" if args.one_thread else ""),
        "quick": args.quick,
        "load_before": _loadavg(),
        "blas_env_unset": {k: os.environ[k] for k in BLAS_ENV_VARS if k in os.environ},
        "git": _git_describe(),
    }
    if context["blas_env_unset"]:
        log(f"note: {', '.join(context['blas_env_unset'])} set here; removed from every "
            "benchmark process (run as `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE ...`)")
    log("machine")
    context["machine"] = run_json("machine", [], SRC, 300)
    log("BLAS: single-thread sgemm peak, thread counts by product size")
    context["blas"] = run_json("blas_threads", ["--json", *(["--quick"] if args.quick else [])],
                               SRC, 600)
    context["machine"]["sgemm_peak_flops"] = context["blas"].get("sgemm_peak_flops")
    baseline, context["baseline_note"] = ensure_baseline(args.quick)

    results: dict = {}
    durations: dict[str, float] = {}  # wall seconds of each part, for the next run's budget

    def run(key: str, label: str, measure: Callable[[], dict]) -> None:
        t0 = time.perf_counter()
        results[key] = measure()
        durations[label] = time.perf_counter() - t0

    if "W1" in only:
        run("W1", "W1", lambda: run_w1(plan, baseline))
    if "W5" in only:
        run("W5", "W5", lambda: run_w5(plan, baseline, scratch))
    if "W4" in only:
        run("W4", "W4", lambda: run_w4(plan, baseline))
    if only & {"W2", "W3"}:
        run("tensor", "W2, W3", lambda: run_tensor(plan))
    for group, members in TORCH_STEP_GROUPS.items():
        # the whole group, as W2 and W3: they share a report section, replaced whole
        if only & {w.split("-")[0] for w in members}:
            chosen = tuple(w for w in members if plan.torch_step_rounds[w.split("-")[0]])
            if chosen:
                label = ", ".join(dict.fromkeys(w.split("-")[0] for w in chosen))
                run(group, label, lambda c=chosen: run_torch_steps(plan, c, args.one_thread))
    context["durations"] = durations
    context["load_after"] = _loadavg()
    context["seconds"] = time.perf_counter() - started
    cpu_at_end = _cpu_seconds()
    if cpu_at_start and cpu_at_end:  # (all processes', the suite's own)
        others = (cpu_at_end[0] - cpu_at_start[0]) - (cpu_at_end[1] - cpu_at_start[1])
        context["others_cores"] = max(0.0, others / context["seconds"])
    whole = only == set(WORKLOADS)
    # saved first: a report that fails to render can be written again without a rerun
    RAW_RESULTS.write_text(json.dumps({"context": context, "results": results, "whole": whole}))
    return finish(context, results, plan, output, whole)


def default_output(quick: bool) -> Path:
    return ROOT / "out" / "benchmarks-quick.md" if quick else ROOT / "docs" / "benchmarks.md"


def finish(context: dict, results: dict, plan: Plan, output: Path, whole: bool) -> int:
    """Write the report; 1 if micrograd's and PyTorch's step-0 losses disagree, else 0."""
    text = report.render(context, results, plan, NOTEBOOK_LOSSES)
    report.write(output, text, whole=whole)
    log(f"wrote {_rel(output)}, a run of {context['seconds']:.0f} s")
    mismatches = [problem for group in TORCH_STEP_GROUPS for problem in
                  loss_mismatches(results.get(group, {}), LOSS_RTOL)]
    for problem in mismatches:
        log(f"!!! LOSS MISMATCH !!! {problem}")
    return 1 if mismatches else 0


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _cpu_seconds() -> tuple[float, float] | None:
    """(CPU seconds every process on the machine has used since boot, from /proc/stat; CPU
    seconds of this process and its finished children), None where /proc is missing. Over
    a run, the first's growth less the second's is what the other processes took."""
    import resource

    try:
        with open("/proc/stat") as f:
            user, nice, system, _idle, _iowait, irq, softirq, steal = (
                int(x) for x in f.readline().split()[1:9])
    except (OSError, ValueError):
        return None
    busy = (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
    own = sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))
    return busy, own


def _git_describe() -> str:
    try:
        done = subprocess.run(
            ["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True,
            timeout=10,
        )
        return done.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
