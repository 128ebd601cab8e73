"""nn.Module and nn.Parameter, as torch.nn has them.

A Module registers what is assigned to its attributes: a `Parameter` (or any leaf Tensor
that requires grad, as this package did before it followed torch) goes to `_parameters`, a
Module to `_modules`, and `register_buffer` puts state that is saved but not trained (a
BatchNorm's running mean) in `_buffers`. Everything else -- parameters(), state_dict(),
train()/eval(), to(), repr -- walks those three dictionaries in assignment order, so names
and orders are torch's: `0.weight`, `encoder.layers.1.bias`.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, NamedTuple, NoReturn

import numpy as np

import micrograd.tensors as _tensors
from micrograd.tensors import Tensor, torch_api
from micrograd.tensors.unsupported import unsupported_name


class _ParameterType(type):
    """isinstance(t, Parameter) is True for the tensors Parameter() made."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and _PARAMETERS.get(id(obj)) is obj


# The tensors made by Parameter(), weakly (an entry goes when its tensor does, so a reused
# id() cannot match). Parameter() returns a plain Tensor, marked here, because the engine's
# ops accept exactly `Tensor` (a subclass instance fails `type(x) is Tensor` fast paths).
_PARAMETERS: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


if TYPE_CHECKING:  # to a type checker a Parameter is the Tensor it is at run time

    class Parameter(Tensor):
        def __init__(self, data: Any = None, requires_grad: bool = True) -> None: ...

else:

    class Parameter(metaclass=_ParameterType):
        """A Tensor that a Module registers as trainable: requires_grad=True by default, and
        sharing memory with the tensor it was made from (as torch.nn.Parameter)."""

        def __new__(cls, data: Any = None, requires_grad: bool = True) -> Any:
            if data is None:
                data = np.empty(0, dtype=_tensors.get_default_dtype())
            if isinstance(data, Tensor):
                param = _tensors.tensor(0.0)
                param.data = data.data  # shared, not copied
            else:
                param = _tensors.tensor(data)
            param.requires_grad = requires_grad
            _PARAMETERS[id(param)] = param
            return param


class IncompatibleKeys(NamedTuple):
    """What load_state_dict(strict=False) did not match (torch's _IncompatibleKeys)."""

    missing_keys: list[str]
    unexpected_keys: list[str]


class StateDictError(RuntimeError, KeyError):
    """load_state_dict found missing or unexpected keys or a shape mismatch.

    A RuntimeError as in torch, and a KeyError as this package raised before."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


def _is_trainable_leaf(value: Any) -> bool:
    return isinstance(value, Tensor) and value.requires_grad and value.is_leaf


class Members(list[Tensor]):
    """What parameters()/buffers() return: a list that next() also walks, front first, as
    the generator torch returns (`next(model.parameters()).dtype` is a common idiom)."""

    def __next__(self) -> Tensor:
        if not self:
            raise StopIteration
        return self.pop(0)


class Module:
    """Base class for all layers and models: subclass it, assign parameters and sub-modules
    in __init__ (after super().__init__()), and define forward()."""

    training: bool = True
    _version = 1
    # state_dict keys that torch does not report missing when loading a dict without
    # version metadata (BatchNorm's num_batches_tracked, which older files lack); torch
    # keeps the version in state_dict metadata, kept here for readers that look
    _optional_state: tuple[str, ...] = ()

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    # --- registration -----------------------------------------------------------------

    def _registry(self, kind: str) -> Any:
        """The registry dict (created on first use: subclasses written for the older
        micrograd API may not call super().__init__())."""
        found = self.__dict__.get(kind)
        if found is None:
            found = set() if kind == "_non_persistent_buffers" else OrderedDict()
            object.__setattr__(self, kind, found)
        return found

    def __setattr__(self, name: str, value: Any) -> None:
        params = self._registry("_parameters")
        buffers = self._registry("_buffers")
        modules = self._registry("_modules")
        if isinstance(value, Parameter) or (_is_trainable_leaf(value) and name not in buffers):
            self._store("_parameters", name, value)
        elif isinstance(value, Module):
            self._store("_modules", name, value)
        elif name in params:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__!r} as parameter "
                                f"{name!r} (nn.Parameter or None expected)")
            self._store("_parameters", name, None)
        elif name in modules:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__!r} as child module "
                                f"{name!r} (nn.Module or None expected)")
            self._store("_modules", name, None)
        elif name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign {type(value).__name__!r} as buffer "
                                f"{name!r} (Tensor or None expected)")
            self._store("_buffers", name, value)
        else:
            object.__setattr__(self, name, value)

    def _store(self, kind: str, name: str, value: Any) -> None:
        """Register value under name, and mirror it in the instance dict: `self.weight`
        is then an ordinary attribute read (~30 ns, where __getattr__ costs ~2 us, and a
        forward pass reads its parameters every time). Every change goes through here or
        _forget, so the mirror and the registries cannot disagree."""
        self.__dict__.pop(name, None)
        for other in ("_parameters", "_buffers", "_modules"):
            if other != kind:
                self._registry(other).pop(name, None)
        # a name already registered keeps its place, as in torch: `layer.weight *= 0.1`
        # assigns the weight again and must not move it after the bias in parameters()
        self._registry(kind)[name] = value
        object.__setattr__(self, name, value)

    def _forget(self, name: str) -> None:
        self.__dict__.pop(name, None)
        for kind in ("_parameters", "_buffers", "_modules"):
            self._registry(kind).pop(name, None)

    def __getattr__(self, name: str) -> Any:
        # only called when normal lookup fails: look in the registries
        for kind in ("_parameters", "_buffers", "_modules"):
            registry = self.__dict__.get(kind)
            if registry is not None and name in registry:
                return registry[name]
        if name in torch_api.MODULE:  # torch's own Module method that micrograd lacks
            raise unsupported_name("torch.nn.Module", name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __delattr__(self, name: str) -> None:
        for kind in ("_parameters", "_buffers", "_modules"):
            registry = self.__dict__.get(kind)
            if registry is not None and name in registry:
                self._forget(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        names = set(super().__dir__())
        for kind in ("_parameters", "_buffers", "_modules"):
            names |= set(self._registry(kind))
        return sorted(names)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None: a declared but absent parameter, like bias=False)."""
        _check_name("parameter", name, self)
        if param is not None and not isinstance(param, Tensor):
            raise TypeError(f"cannot assign {type(param).__name__!r} as parameter {name!r} "
                            "(nn.Parameter or None expected)")
        self._store("_parameters", name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add state that moves with the module and is saved (persistent=True) in its
        state_dict, but is not a parameter: not trained, not in parameters()."""
        _check_name("buffer", name, self)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign {type(tensor).__name__!r} as buffer {name!r} "
                            "(Tensor or None expected)")
        self._store("_buffers", name, tensor)
        non_persistent = self._registry("_non_persistent_buffers")
        if persistent:
            non_persistent.discard(name)
        else:
            non_persistent.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module under `name` (what attribute assignment does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str) or "." in name or name == "":
            raise KeyError(f"module name must be a non-empty string without '.', got {name!r}")
        self._store("_modules", name, module)

    register_module = add_module

    # --- walking the tree -----------------------------------------------------------------

    def _child_items(self) -> Iterator[tuple[str, Module]]:
        for name, module in self._registry("_modules").items():
            if module is not None:
                yield name, module
        # lists/tuples of modules in plain attributes: found as the older micrograd API
        # found them (torch would need nn.ModuleList); named name.0, name.1, ...
        for name, value in self.__dict__.items():
            if isinstance(value, (list, tuple)) and value and all(
                    isinstance(v, Module) for v in value):
                for i, module in enumerate(value):
                    yield f"{name}.{i}", module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """(name, module) for each direct sub-module, once each."""
        seen: set[int] = set()
        for name, module in self._child_items():
            if id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator[Module]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set[int] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """(name, module) for this module and every module under it, depth first."""
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._child_items():
            yield from module.named_modules(memo, f"{prefix}.{name}" if prefix else name,
                                            remove_duplicate)

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def _named_members(self, kind: str, prefix: str, recurse: bool
                       ) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        owners = self.named_modules(prefix=prefix) if recurse else iter([(prefix, self)])
        for owner_name, owner in owners:
            for name, value in owner._registry(kind).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (f"{owner_name}.{name}" if owner_name else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True
                         ) -> Iterator[tuple[str, Tensor]]:
        """(name, parameter) pairs, each parameter once, named as torch names them."""
        return self._named_members("_parameters", prefix, recurse)

    def parameters(self, recurse: bool = True) -> Members:
        """The parameters, in registration order: a list (len() and [i], as micrograd's
        Module gives) that is also an iterator, as torch's generator (next(m.parameters()))."""
        return Members(p for _, p in self.named_parameters(recurse=recurse))

    def named_buffers(self, prefix: str = "", recurse: bool = True
                      ) -> Iterator[tuple[str, Tensor]]:
        return self._named_members("_buffers", prefix, recurse)

    def buffers(self, recurse: bool = True) -> Members:
        return Members(b for _, b in self.named_buffers(recurse=recurse))

    def apply(self, fn: Callable[[Module], Any]) -> Module:
        """Call fn on every sub-module (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # --- calling ------------------------------------------------------------------------

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    # --- state --------------------------------------------------------------------------

    def state_dict(self, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """Parameters and persistent buffers by torch's key names; the tensors share memory
        with the module (detached unless keep_vars=True), as torch's state_dict()."""
        out: dict[str, Any] = OrderedDict() if destination is None else destination
        for owner_name, owner in self.named_modules(prefix=prefix.rstrip(".")):
            dot = f"{owner_name}." if owner_name else ""
            for name, p in owner._registry("_parameters").items():
                if p is not None:
                    out[dot + name] = p if keep_vars else p.detach()
            skip = owner._registry("_non_persistent_buffers")
            for name, b in owner._registry("_buffers").items():
                if b is not None and name not in skip:
                    out[dot + name] = b if keep_vars else b.detach()
        return out

    def load_state_dict(self, state_dict: Any, strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copy values (Tensors, numpy arrays or torch tensors) into the parameters and
        buffers in place. strict=True: missing or unexpected keys are an error; a shape
        mismatch is always one. Returns (missing_keys, unexpected_keys)."""
        if not hasattr(state_dict, "items"):
            raise TypeError(f"load_state_dict expects a dict of tensors, got "
                            f"{type(state_dict).__name__}")
        own = self.state_dict(keep_vars=True)
        optional = {f"{name}.{key}" if name else key
                    for name, module in self.named_modules()
                    for key in module._optional_state}
        missing = [k for k in own if k not in state_dict and k not in optional]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        for key, target in own.items():
            if key not in state_dict:
                continue
            value = _as_array(state_dict[key], key)
            if value.shape != target.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape "
                              f"{tuple(value.shape)} from checkpoint, the shape in current "
                              f"model is {tuple(target.shape)}.")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". (the module has "
                              "them, the state_dict is missing them; strict=False loads "
                              "the rest)")
        if errors:
            raise StateDictError(f"Error(s) in loading state_dict for {type(self).__name__}:"
                                 + "".join("\n\t" + e for e in errors))
        for key, target in own.items():
            if key in state_dict:
                value = _as_array(state_dict[key], key)
                if assign:
                    target.data = np.array(value)
                else:
                    target._array_to_change()[...] = value  # copy_, keeping the dtype
        return IncompatibleKeys(missing, unexpected)

    # --- modes, gradients, dtypes --------------------------------------------------------

    def train(self, mode: bool = True) -> Module:
        """Training mode (Dropout drops, BatchNorm uses batch statistics) for this module
        and all under it; train(False) is eval()."""
        if not isinstance(mode, bool):
            raise ValueError(f"training mode is expected to be boolean, got {mode!r}")
        for module in self.modules():
            object.__setattr__(module, "training", mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: None (torch's default), or zero-filled."""
        for p in self.parameters():
            if set_to_none or p._grad_array is None:
                p.grad = None
            else:
                p.grad = np.zeros_like(p._array)

    def to(self, *args: Any, dtype: Any = None, device: Any = None,
           non_blocking: bool = False) -> Module:
        """Convert floating parameters and buffers to a dtype, in place (the Parameter
        objects stay the same, so an optimizer made before still holds them), as
        module.to(dtype), to(device) or to(device, dtype). "cpu" changes nothing; "cuda"
        and the like raise."""
        # Tensor.to parses torch's argument forms (and refuses devices) for us: two probes
        # of different dtypes end up alike exactly when a dtype was asked for
        args = tuple(a.dtype if isinstance(a, Tensor) else a for a in args)
        single, double = (_tensors.tensor(0.0, dtype=np.dtype(kind)).to(
            *args, dtype=dtype, device=device).dtype for kind in ("float32", "float64"))
        if single != double:
            return self
        target = single
        for t in [*self.parameters(), *self.buffers()]:
            if t._array.dtype.kind == "f" and t._array.dtype != target:
                t.data = t._array.astype(target)
                t.grad = None
        return self

    def float(self) -> Module:
        return self.to(np.float32)

    def double(self) -> Module:
        return self.to(np.float64)

    def half(self) -> Module:
        return self.to(np.float16)

    def cpu(self) -> Module:
        """This module: its parameters live on the CPU already."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Always a RuntimeError: micrograd computes with numpy, on the CPU only."""
        _tensors.tensor(0.0).cuda()
        raise RuntimeError("micrograd has no CUDA")  # pragma: no cover - cuda() raises

    # --- printing -----------------------------------------------------------------------

    def extra_repr(self) -> str:
        """The settings printed inside the parentheses: override in a layer."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({name}): " + _indent(repr(module), 2)
                       for name, module in self._child_items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _indent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    return "\n".join(lines[:1] + [" " * spaces + line for line in lines[1:]])


def _check_name(kind: str, name: Any, module: Module) -> None:
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string, got {type(name).__name__}")
    if name == "" or "." in name:
        raise KeyError(f"{kind} name must be a non-empty string without '.', got {name!r}")
    if name in module.__dict__ and name not in ("_parameters", "_buffers", "_modules"):
        raise KeyError(f"attribute {name!r} already exists")


def _as_array(value: Any, key: str) -> np.ndarray:
    if isinstance(value, Tensor):
        return value._array
    if isinstance(value, (np.ndarray, np.generic, int, float, list)):
        return np.asarray(value)
    if hasattr(value, "detach") and hasattr(value, "numpy"):  # a torch.Tensor
        return np.asarray(value.detach().cpu().numpy())
    raise TypeError(f"state_dict[{key!r}] must be a tensor or an array, "
                    f"got {type(value).__name__}")
