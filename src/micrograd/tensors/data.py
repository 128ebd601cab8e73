"""Minibatches, as torch.utils.data: Dataset, TensorDataset, Subset, random_split and a
DataLoader with torch's samplers (`tensors.sampler`) and collation.

The random draws are torch's, in torch's order: every epoch a DataLoader draws a 64-bit
"base seed" from its generator (the global one by default) when iterated, and a shuffling
loader's RandomSampler without a generator then seeds a fresh generator from the global
stream and takes `randperm(n)` from it. So a seeded script visits its batches in torch's
order, and what it draws afterwards is what torch draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from micrograd._validate import check_positive_int
from micrograd.tensors import random as streams
from micrograd.tensors.function import Tensor, leaf
from micrograd.tensors.nn.init import _random_fill, random_int64
from micrograd.tensors.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader",
           "default_collate"]


class Dataset:
    """Base class: define __len__ and __getitem__(i) returning one sample."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__")


class TensorDataset(Dataset):
    """Rows of equally long arrays/tensors: dataset[i] is (x[i], y[i], ...)."""

    def __init__(self, *tensors: Any):
        if not tensors:
            raise ValueError("TensorDataset needs at least one array")
        self.columns = tuple(c._array if isinstance(c, Tensor) else np.asarray(c) for c in tensors)
        if any(c.ndim == 0 for c in self.columns):
            raise ValueError("TensorDataset needs arrays with a first dimension, got a 0-d one")
        lengths = {len(c) for c in self.columns}
        if len(lengths) != 1:
            shapes = ", ".join(str(c.shape) for c in self.columns)
            raise ValueError(f"TensorDataset arrays must have the same length, got shapes {shapes}")

    @property
    def tensors(self) -> tuple[Tensor, ...]:
        return tuple(leaf(c) for c in self.columns)

    def __len__(self) -> int:
        return len(self.columns[0])

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(leaf(np.asarray(c[index])) for c in self.columns)


class Subset(Dataset):
    """The samples of `dataset` at `indices`, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = [int(i) for i in indices]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, (list, np.ndarray)):
            return self.dataset[[self.indices[int(i)] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def _permutation(n: int, generator: Any) -> np.ndarray:
    """`torch.randperm(n, generator=generator)` (None: the global stream), drawn by nn.init's
    one random helper; a numpy Generator gives numpy's permutation instead."""
    return _random_fill(np.empty(n, dtype=np.int64), "permutation", 0.0, 0.0, generator)


def random_split(dataset: Any, lengths: Sequence[int | float],
                 generator: Any = None) -> list[Subset]:
    """Split into non-overlapping random Subsets of the given lengths (or fractions that
    sum to 1, the remainder spread one by one from the first, as torch does)."""
    n = len(dataset)
    if all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        counts = [math.floor(n * frac) for frac in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
    elif all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0
             for x in lengths):
        counts = [int(x) for x in lengths]
    else:
        raise ValueError(f"lengths must be non-negative ints or fractions summing to 1, "
                         f"got {list(lengths)}")
    if sum(counts) != n:
        raise ValueError(f"sum of input lengths ({sum(counts)}) does not equal the length "
                         f"of the input dataset ({n})")
    order = _permutation(n, generator).tolist()
    out, start = [], 0
    for length in counts:
        out.append(Subset(dataset, order[start:start + length]))
        start += length
    return out


def default_collate(samples: Sequence[Any]) -> Any:
    """Stack a list of samples into a batch, keeping the samples' structure, as torch's:
    tuples and lists become lists of columns, dicts go key by key, tensors/arrays/numbers
    are stacked (Python floats as float64, ints as int64)."""
    first = samples[0]
    if isinstance(first, Mapping):
        return {key: default_collate([s[key] for s in samples]) for key in first}
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(list(col)) for col in zip(*samples, strict=True)))
    if isinstance(first, (tuple, list)):
        if any(len(s) != len(first) for s in samples):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate([s[i] for s in samples]) for i in range(len(first))]
    if isinstance(first, str):
        return list(samples)
    if isinstance(first, float) and not isinstance(first, np.generic):
        return leaf(np.asarray(samples, dtype=np.float64))  # torch: Python floats -> float64
    arrays = [s._array if isinstance(s, Tensor) else np.asarray(s) for s in samples]
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise RuntimeError("stack expects each sample to have the same shape, got "
                           f"{sorted(shapes)}")
    return leaf(np.stack(arrays))


class _NumpyShuffle(Sampler):
    """A new numpy permutation every pass: the older micrograd option (`seed=` or a numpy
    Generator) -- reproducible, but not torch's order."""

    def __init__(self, data_source: Any, generator: np.random.Generator) -> None:
        self.data_source = data_source
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        return iter(_permutation(len(self.data_source), self.generator).tolist())

    def __len__(self) -> int:
        return len(self.data_source)


class DataLoader:
    """Iterate over a dataset in minibatches of `batch_size` samples, as torch's.

    The indices come from `batch_sampler` if given, else from `sampler` grouped by a
    BatchSampler(batch_size, drop_last); the default sampler is a RandomSampler(generator=
    generator) when shuffle=True, else a SequentialSampler. So a seeded script visits its
    batches in torch's order, and what it draws afterwards is what torch draws. A numpy
    Generator, or `seed=` (a private numpy generator), are accepted too: reproducible
    orders, but not torch's. A TensorDataset is sliced with one fancy index per column per
    batch; any other dataset is read sample by sample and collated (`collate_fn`).
    """

    def __init__(self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable[[list[Any]], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Any = None, generator: Any = None, *,
                 seed: int | None = None, **ignored: Any):
        if batch_size is not None:
            check_positive_int("batch_size", batch_size)
        if not isinstance(generator, np.random.Generator):  # else numpy's numbers
            streams.resolve_stream(generator)  # the generator= check of every random function
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with "
                                 "batch_size, shuffle, sampler, and drop_last")
            batch_size = None
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if isinstance(dataset, tuple):
            dataset = TensorDataset(*dataset)
        if generator is None and seed is not None:
            generator = np.random.default_rng(seed)
        if sampler is None:
            if not shuffle:
                sampler = SequentialSampler(dataset)
            elif isinstance(generator, np.random.Generator):
                sampler = _NumpyShuffle(dataset, generator)
            else:
                sampler = RandomSampler(dataset, generator=generator)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers  # accepted; batches are made in this process
        self.collate_fn = collate_fn
        self.generator = generator

    @property
    def _index_sampler(self) -> Any:
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __iter__(self) -> Iterator[Any]:
        indices = iter(self._index_sampler)
        # torch draws a base seed for worker processes as the iterator is made (from the
        # loader's generator, else the global one); we make no workers, but draw it so
        # that the stream stays torch's.
        if not isinstance(self.generator, np.random.Generator):
            random_int64(self.generator)
        return self._batches(indices)

    def _batches(self, indices: Iterator[Any]) -> Iterator[Any]:
        if self.batch_sampler is None:  # torch: samples one by one, not collated
            for i in indices:
                sample = self.dataset[i]
                yield sample if self.collate_fn is None else self.collate_fn(sample)
            return
        fast = isinstance(self.dataset, TensorDataset) and self.collate_fn is None
        for rows in indices:
            if fast:
                yield list(self.dataset[np.asarray(rows, dtype=np.int64)])  # as collated
            else:
                yield (self.collate_fn or default_collate)([self.dataset[i] for i in rows])
