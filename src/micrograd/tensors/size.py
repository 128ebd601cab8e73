"""torch.Size: a tensor's shape, a tuple of ints printed as torch prints it."""

from __future__ import annotations

import math
from typing import Any, SupportsIndex, overload


class Size(tuple):
    """The shape of a tensor (`t.shape`, `t.size()`): a tuple, so it indexes, unpacks and
    compares as one (`t.shape == (2, 3)`) and numpy takes it; printed `torch.Size([2, 3])`.
    Slicing and `+` keep it a Size, as torch's."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return math.prod(self)

    @overload
    def __getitem__(self, index: SupportsIndex) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Size: ...
    def __getitem__(self, index: Any) -> Any:
        item = tuple.__getitem__(self, index)
        return Size(item) if isinstance(index, slice) else item

    def __add__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, count: SupportsIndex) -> Size:
        return Size(tuple(self) * count)

    __rmul__ = __mul__

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))
