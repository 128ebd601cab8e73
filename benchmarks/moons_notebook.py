"""W1 and W5: the micrograd demo notebook's training code, timed step by step.

Run as `python -m benchmarks.moons_notebook STEPS [DATA.json] [--lockstep]` under whichever
`micrograd` is first on PYTHONPATH: ours or micrograd 0.1.0. The notebook's own code (its
loss function, `map(Value, xrow)`, `sum(losses)`, `p*p`) is kept as published; only its
`print` is replaced by recording the loss and the time of each step.

With DATA.json (the same moons points as plain lists, made by the driver) the process never
imports numpy or scikit-learn: W5 uses that to measure the training's memory rather than
the ~100 MB that importing scikit-learn costs both engines alike.
With --lockstep the driver paces this process step by step: it prints "ready" once set up
and "done" after each step, and starts a step only when a line arrives on stdin (outside the
timed part). The suite paces 0.1.0's run so, and runs whole runs of ours while it waits, so
the two never run at the same time and a change in the machine's load hits both alike.
Prints one JSON object (the last line): losses, accuracies, seconds (wall and CPU) per step,
RSS before training and peak.
"""

import json
import random
import sys
import time

from benchmarks.common import current_rss_kib, emit, engine_origin, peak_rss_kib, ru_maxrss_kib

arguments = [a for a in sys.argv[1:] if a != "--lockstep"]
lockstep = len(arguments) < len(sys.argv) - 1
steps = int(arguments[0])
data_file = arguments[1] if len(arguments) > 1 else None


def say(word: str) -> None:
    """Tell the driver pacing this process (--lockstep) where it is; wait for its go."""
    if lockstep:
        print(word, flush=True)
        if word != "done" or len(losses) < steps:
            sys.stdin.readline()


from micrograd.engine import Value  # noqa: E402  (after the argument parsing, as a script)
from micrograd.nn import MLP  # noqa: E402

if data_file is None:
    # --- the notebook's setup ----------------------------------------------------------
    import numpy as np
    from sklearn.datasets import make_moons

    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1  # make y be -1 or 1
else:
    # --- the same points as lists: no numpy in this process ----------------------------
    random.seed(1337)
    with open(data_file) as f:
        data = json.load(f)
    X, y = data["X"], data["y"]

# --- the notebook, from here on ----------------------------------------------------------
model = MLP(2, [16, 16, 1])  # 2-layer neural network


def loss(batch_size=None):
    # inline DataLoader :)
    if batch_size is None:
        Xb, yb = X, y
    else:
        ri = np.random.permutation(X.shape[0])[:batch_size]
        Xb, yb = X[ri], y[ri]
    inputs = [list(map(Value, xrow)) for xrow in Xb]

    # forward the model to get scores
    scores = list(map(model, inputs))

    # svm "max-margin" loss
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(yb, scores, strict=True)]
    data_loss = sum(losses) * (1.0 / len(losses))
    # L2 regularization
    alpha = 1e-4
    reg_loss = alpha * sum(p * p for p in model.parameters())
    total_loss = data_loss + reg_loss

    # also get accuracy
    accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores, strict=True)]
    return total_loss, sum(accuracy) / len(accuracy)


rss_before_training = current_rss_kib()
losses, accuracies, seconds = [], [], []
cpu_seconds = []  # CPU time of each step: what other processes on the machine disturb least
starts = []  # perf_counter() at each step's start: system-wide on Linux, so runs compare
say("ready")
for k in range(steps):
    t0, cpu0 = time.perf_counter(), time.process_time()

    # forward
    total_loss, acc = loss()

    # backward
    model.zero_grad()
    total_loss.backward()

    # update (sgd)
    learning_rate = 1.0 - 0.9 * k / 100
    for p in model.parameters():
        p.data -= learning_rate * p.grad

    seconds.append(time.perf_counter() - t0)
    cpu_seconds.append(time.process_time() - cpu0)
    starts.append(t0)
    losses.append(total_loss.data)
    accuracies.append(float(acc))
    # (the notebook prints here: step k, total_loss.data, acc*100)
    say("done")
# --- end of the notebook -----------------------------------------------------------------

emit(
    {
        "engine": engine_origin(),
        "steps": steps,
        "losses": losses,
        "accuracies": accuracies,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "step_starts": starts,
        "rss_before_training_kib": rss_before_training,
        "peak_rss_kib": peak_rss_kib(),
        "ru_maxrss_kib": ru_maxrss_kib(),
    }
)
