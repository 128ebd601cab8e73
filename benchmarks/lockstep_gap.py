"""Does pacing W1 in lockstep slow our step down? `python -m benchmarks.lockstep_gap [ROUNDS]`.

The suite paces our notebook and micrograd 0.1.0's step by step (`suite.run_lockstep`), so
our process waits ~2 s (one 0.1.0 step) before each of its own steps. This runs our notebook
(`moons_notebook --lockstep`, the micrograd first on PYTHONPATH) paced against partners that
only wait 0.25 s per step in different ways -- sleeping, spinning on a core, or walking a
96 MB buffer as a big heap would -- and against no partner (paced, with no gap), rounds
interleaved, and prints our CPU and wall time per step (steps 5 on: the first ones warm up).
If any gap costs our step time, the suite charges a user something a training loop that runs
its steps back to back never pays: a fixed cost per step, which weighs on our ~16 ms step and
not on 0.1.0's ~2 s one.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from benchmarks.common import ROOT

STEPS = 40
GAP = 0.25  # seconds the partner takes per step
MODES = ("no partner", "sleep", "spin", "walk memory")


def partner() -> None:
    """The partner process: `ready`, then per line read, GAP seconds of its mode and `done`."""
    mode = sys.argv[2]
    heap = bytearray(96 * 2**20) if mode == "walk memory" else None
    print("ready", flush=True)
    while sys.stdin.readline():
        end = time.perf_counter() + GAP
        if heap is not None:
            zeros = bytes(len(heap) // 64)
            while time.perf_counter() < end:
                heap[::64] = zeros  # a cache line each: evicts what the caches held
        elif mode == "spin":
            while time.perf_counter() < end:
                pass
        else:
            time.sleep(GAP)
        print("done", flush=True)


def _start(command: list[str]) -> subprocess.Popen:
    process = subprocess.Popen(command, cwd=ROOT, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def _step(process: subprocess.Popen) -> None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("\n")
    process.stdin.flush()
    assert process.stdout.readline().strip() == "done"


def paced_run(mode: str) -> tuple[float, float]:
    """Our notebook paced against a partner in `mode`: (CPU ms, wall ms) per step, mean."""
    processes = [_start([sys.executable, "-m", "benchmarks.moons_notebook", str(STEPS),
                         "--lockstep"])]
    if mode != "no partner":
        processes.append(_start([sys.executable, "-m", "benchmarks.lockstep_gap", "--partner",
                                 mode]))
    for _ in range(STEPS):
        for process in processes:
            _step(process)
    for process in processes[1:]:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
    ours = processes[0]
    assert ours.stdin is not None and ours.stdout is not None
    ours.stdin.close()
    result = json.loads(ours.stdout.read().strip().splitlines()[-1])
    ours.wait()
    return (statistics.mean(result["cpu_seconds"][5:]) * 1e3,
            statistics.mean(result["seconds"][5:]) * 1e3)


def main(rounds: int) -> None:
    times: dict[str, list[tuple[float, float]]] = {mode: [] for mode in MODES}
    for _ in range(rounds):
        for mode in MODES:
            times[mode].append(paced_run(mode))
    for mode, runs in times.items():
        cpu, wall = sorted(c for c, _ in runs), sorted(w for _, w in runs)
        print(f"partner {mode:<12} our step, CPU {statistics.median(cpu):6.2f} ms "
              f"[{cpu[0]:.2f}-{cpu[-1]:.2f}], wall {statistics.median(wall):6.2f} ms "
              f"[{wall[0]:.2f}-{wall[-1]:.2f}] (median over {rounds} runs)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--partner"]:
        partner()
    else:
        main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
