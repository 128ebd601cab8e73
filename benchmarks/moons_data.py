"""Write the moons notebook's 100 points as plain JSON lists.

Usage: `python -m benchmarks.moons_data PATH`.

A subprocess of its own, so the driver never imports scikit-learn (whose ~100 MiB would be
counted in the peak RSS of every process the driver starts afterwards).
"""

import json
import sys

import numpy as np
from sklearn.datasets import make_moons

from benchmarks.common import emit

if __name__ == "__main__":
    np.random.seed(1337)  # the notebook's seed and call, so the same points
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    with open(sys.argv[1], "w") as f:
        json.dump({"X": X.tolist(), "y": [int(v) for v in y]}, f)
    emit({"points": len(y)})
