"""Minibatches, as torch.utils.data: TensorDataset and a DataLoader with shuffling and a seed."""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from micrograd.tensors.function import Tensor, leaf


class TensorDataset:
    """Rows of equally long arrays/tensors: dataset[i] is (x[i], y[i], ...)."""

    def __init__(self, *columns: Any):
        if not columns:
            raise ValueError("TensorDataset needs at least one array")
        self.columns = tuple(c.data if isinstance(c, Tensor) else np.asarray(c) for c in columns)
        lengths = {len(c) for c in self.columns}
        if len(lengths) != 1:
            shapes = ", ".join(str(c.shape) for c in self.columns)
            raise ValueError(f"TensorDataset arrays must have the same length, got shapes {shapes}")

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(leaf(np.asarray(c[index])) for c in self.columns)


class DataLoader:
    """Iterate over a dataset in minibatches of `batch_size` rows.

    With shuffle=True every epoch visits the rows in a new random order; `seed` makes the
    sequence of epochs reproducible. A TensorDataset (or a tuple of arrays) is sliced with
    one fancy index per column per batch; any other dataset is read row by row and stacked.
    """

    def __init__(self, dataset: Any, batch_size: int = 1, shuffle: bool = False,
                 seed: int | None = None, drop_last: bool = False):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if isinstance(dataset, tuple):
            dataset = TensorDataset(*dataset)
        self.dataset = dataset
        self.batch_size = batch_size
        self.shuffle = shuffle
        self.drop_last = drop_last
        self._rng = np.random.default_rng(seed)

    def __len__(self) -> int:
        n, b = len(self.dataset), self.batch_size
        return n // b if self.drop_last else -(-n // b)

    def __iter__(self) -> Iterator[tuple[Tensor, ...]]:
        n = len(self.dataset)
        order = self._rng.permutation(n) if self.shuffle else np.arange(n)
        stop = n - n % self.batch_size if self.drop_last else n
        for start in range(0, stop, self.batch_size):
            rows = order[start:start + self.batch_size]
            if isinstance(self.dataset, TensorDataset):
                yield self.dataset[rows]
            else:
                yield _collate([self.dataset[int(i)] for i in rows])


def _collate(samples: Sequence[Any]) -> Any:
    first = samples[0]
    if isinstance(first, (tuple, list)):
        return tuple(_collate([s[i] for s in samples]) for i in range(len(first)))
    return leaf(np.stack([s.data if isinstance(s, Tensor) else np.asarray(s) for s in samples]))
