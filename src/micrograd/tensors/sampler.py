"""Samplers, as torch.utils.data.sampler: the order in which a DataLoader visits samples.

Each draws from torch's random stream exactly when and as torch's does (lazily, inside
`__iter__`), so a seeded script that mixes samplers with other random calls sees torch's
numbers: RandomSampler without a generator seeds a fresh generator from one 64-bit draw of
the global stream; with replacement it takes `randint(n, (32,))` blocks, without it
`randperm(n)` per pass (and one more, cut to the remainder, at the end).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sized
from typing import Any

from micrograd.tensors import random as streams
from micrograd.tensors.nn.init import random_int64

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler"]


class Sampler:
    """Base class: define __iter__ (indices) and, usually, __len__."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


def _check_generator(generator: Any) -> None:
    if generator is not None and not isinstance(generator, streams.Generator):
        raise TypeError("a sampler's generator must be a torch.Generator, got "
                        f"{type(generator).__name__}")


def _fresh_or(generator: streams.Generator | None) -> streams.Generator:
    """The caller's generator, else torch's per-epoch one seeded from the global stream."""
    if generator is not None:
        return generator
    return streams.Generator().manual_seed(random_int64(None))


class RandomSampler(Sampler):
    """Samples in a random order: a permutation per pass, or with replacement
    `num_samples` independent draws."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        _check_generator(generator)
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={replacement}")
        if not isinstance(self.num_samples, int) or isinstance(self.num_samples, bool) \
                or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = _fresh_or(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from streams.randint(0, n, (32,), generator=generator).tolist()
            yield from streams.randint(0, n, (self.num_samples % 32,),
                                       generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from streams.randperm(n, generator=generator).tolist()
            yield from streams.randperm(n, generator=generator).tolist()[
                :self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a fresh permutation every pass)."""

    def __init__(self, indices: Iterable[int], generator: Any = None) -> None:
        self.indices = list(indices)
        _check_generator(generator)
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = streams.randperm(len(self.indices), generator=self.generator).tolist()
        for i in order:
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of `batch_size` (the last one shorter
    unless `drop_last`)."""

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got "
                             f"drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        if self.drop_last:
            for full in zip(*[indices] * self.batch_size, strict=False):
                yield [*full]
            return
        batch = [*itertools.islice(indices, self.batch_size)]
        while batch:
            yield batch
            batch = [*itertools.islice(indices, self.batch_size)]

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
