"""The registry's activation modules: torch.nn.ReLU, Tanh, Sigmoid, ... one class per
registry op that has a `torch.nn` spelling, made from its entry (micrograd/ops/table.py).

A module stores the op's parameters (softplus's beta and threshold) as attributes, shows
them in its repr as torch does, and calls the op in `forward`.
"""

from __future__ import annotations

from typing import Any

from micrograd.ops import OPS, Op
from micrograd.tensors.nn.module import Module
from micrograd.tensors.ops.registered import FUNCTIONS
from micrograd.tensors.tensor import Tensor


def module_of(entry: Op) -> type[Module]:
    """The nn.Module class for registry op `entry` (named entry.torch.module)."""
    function = FUNCTIONS[entry.name]
    names = [name for name, _ in entry.params]
    defaults = dict(entry.params)
    takes_inplace = entry.torch.inplace_arg

    def __init__(self: Module, *args: Any, **kwargs: Any) -> None:
        Module.__init__(self)
        if takes_inplace and len(args) == len(names) + 1:  # nn.LeakyReLU(0.2, True)
            args, kwargs = args[:-1], {**kwargs, "inplace": args[-1]}
        self.inplace = bool(kwargs.pop("inplace", False)) if takes_inplace else False
        if len(args) > len(names):
            raise TypeError(f"{entry.torch.module}() takes at most {len(names)} arguments "
                            f"({', '.join(names) or 'none'}), got {len(args)}")
        values = {**defaults, **dict(zip(names, args, strict=False))}
        for key, value in kwargs.items():
            if key not in defaults:
                raise TypeError(f"{entry.torch.module}() got an unexpected keyword argument "
                                f"{key!r}")
            values[key] = value
        for key, value in values.items():
            setattr(self, key, value)

    def forward(self: Module, input: Tensor) -> Tensor:
        # the gradient is the same in place or not; like torch, `inplace` is kept for repr
        return function(input, *(getattr(self, name) for name in names))

    def extra_repr(self: Module) -> str:
        shown = [f"{name}={getattr(self, name)}" for name in names]
        if getattr(self, "inplace", False):
            shown.append("inplace=True")
        return ", ".join(shown)

    cls = type(entry.torch.module, (Module,), {
        "__init__": __init__, "forward": forward, "extra_repr": extra_repr,
        "__doc__": f"torch.nn.{entry.torch.module}: {entry.doc}",
        "__module__": "micrograd.tensors.nn.activations"})
    return cls


MODULES: dict[str, type[Module]] = {entry.torch.module: module_of(entry)
                                    for entry in OPS.values() if entry.torch.module}
"""Every registry activation module by its torch.nn name."""
globals().update(MODULES)  # pickle finds a class by module and name: activations.ReLU
