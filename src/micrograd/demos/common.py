"""What every demo shares, whichever engine it trains on: the run record, the step line."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from micrograd._validate import check_positive_int

INSTALL_HINT = "pip install 'micrograd[demo]'"

# Called after every step with (step, loss, accuracy); the CLI uses it for the progress bar.
StepCallback = Callable[[int, float, float], None] | None


@dataclass
class TrainingRun:
    """What a demo's training produced: one loss and one accuracy (0..1) per step, and the model.

    The contract of every `train_*` function, on either engine: `train_x(steps, seed,
    on_step=None) -> TrainingRun`. `predict` maps an (m, 2) array of points to m scores
    without building a graph (for the decision-boundary picture), where it applies.
    """

    name: str
    model: Any
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    X: Any = None
    y: Any = None
    predict: Callable[[Any], Any] | None = None


def record(run: TrainingRun, k: int, loss: float, accuracy: float, on_step: StepCallback) -> None:
    """Append step k's numbers to the run and tell the caller."""
    run.losses.append(loss)
    run.accuracies.append(accuracy)
    if on_step is not None:
        on_step(k, loss, accuracy)


def check_steps(steps: Any) -> int:
    """steps as an int, or ValueError: 'steps must be a positive integer, got 0'."""
    return check_positive_int("steps", steps)


def training_steps(optimizer: Any, steps: int, step_loss: Callable[[int], Any],
                   schedule: Any = None) -> Iterator[tuple[int, Any]]:
    """The loop every demo trains with, on either engine. For k = 0 .. steps-1:
    result = step_loss(k) (the loss, or a tuple whose first item is the loss), zero the
    gradients, loss.backward(), optimizer.step(), then schedule.step(); yields (k, result)."""
    for k in range(steps):
        result = step_loss(k)
        loss = result[0] if isinstance(result, tuple) else result
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if schedule is not None:
            schedule.step()
        yield k, result


@contextlib.contextmanager
def blas_threads(n: int | None) -> Iterator[None]:
    """numpy's BLAS limited to n threads inside the block (small matrices train faster on
    one: no spinning workers); the caller's setting after it. None, or no threadpoolctl
    installed: left as it is (only slower)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        n = None
    if n is None:
        yield
        return
    with threadpool_limits(limits=n, user_api="blas"):
        yield


def batches_forever(loader: Iterable[Any]) -> Iterator[Any]:
    """The loader's batches, epoch after epoch (each epoch starts when the last ends)."""
    while True:
        yield from loader


def format_step(k: int, loss: float, accuracy: float, width: int = 3) -> str:
    """One summary line: 'step  99  loss 0.010978  accuracy 100.0%'."""
    return f"step {k:>{width}}  loss {loss:.6f}  accuracy {accuracy * 100:5.1f}%"


def moons_plots(run: TrainingRun, out: str, stem: str = "moons",
                engine_note: str = "") -> list[str]:
    """The decision boundary and the loss curve of a moons run, as PNGs in `out`."""
    import os

    from micrograd.viz import plots

    if run.predict is None:
        raise ValueError(f"the {run.name} run has no predict function to draw a boundary with")
    os.makedirs(out, exist_ok=True)
    boundary = plots.save_decision_boundary(
        run.predict, run.X, run.y, os.path.join(out, f"{stem}_decision_boundary.png"
                                                if stem == "moons" else f"{stem}_boundary.png"),
        title=f"moons{engine_note}: accuracy {run.accuracies[-1] * 100:.1f}% "
              f"after {len(run.losses)} steps",
    )
    curve = plots.save_loss_curve(
        run.losses, os.path.join(out, f"{stem}_loss.png"), accuracies=run.accuracies,
        title=f"moons{engine_note}: hinge loss + L2 (log scale) and accuracy",
    )
    return [boundary, curve]


class ProgressBar:
    """The progress of a demo that trains for more than a few seconds (mnist, names, gpt).

    On a terminal, with tqdm installed: tqdm's bar on stderr. Piped or redirected: no bar
    (tqdm's disable=None), so logs hold plain lines only. Either way a `step k/n  loss x`
    line on stdout at step 1, every tenth of the run and at the end."""

    def __init__(self, name: str, total: int):
        self.total = total
        self.bar: Any = None
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=name, unit="step", file=sys.stderr, disable=None,
                        leave=False)

    def __call__(self, step: int, loss: float) -> None:
        """Step `step` (1-based) ended with minibatch loss `loss`."""
        if self.bar is not None:
            if step % 20 == 0 or step == self.total:
                self.bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
            self.bar.update(1)
        if step % max(1, self.total // 10) == 0 or step == self.total or step == 1:
            self.write(f"step {step:>{len(str(self.total))}}/{self.total}  loss {loss:.4f}")

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
