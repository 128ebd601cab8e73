"""Recurrent layers, as torch.nn: RNNCell, LSTMCell, GRUCell (one time step) and RNN, LSTM,
GRU (a whole sequence, several layers, either direction).

A step is written with the ops a learner already knows -- two `linear`s, the gates'
sigmoid/tanh, products and sums -- so its backward is theirs, through time (BPTT is just
backprop over the unrolled graph). The parameters, their names, shapes, gate order (LSTM:
input, forget, cell, output; GRU: reset, update, new) and their initialisation
(U(-1/sqrt(hidden), 1/sqrt(hidden)) in registration order) are torch's, so a seeded
script starts from the same weights and a state_dict loads either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from micrograd._validate import check_positive_int
from micrograd.tensors import Tensor
from micrograd.tensors import functional as F
from micrograd.tensors.nn import init
from micrograd.tensors.nn.layers import _dtype, _empty
from micrograd.tensors.nn.module import Module
from micrograd.tensors.ops.shape import cat, stack

State = Any  # a hidden state: h, or (h, c) for an LSTM

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(activation: Callable[[Tensor], Tensor]) -> Callable[..., Tensor]:
    def step(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
             b_hh: Tensor | None) -> Tensor:
        return activation(F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh))

    return step


def _lstm_step(x: Tensor, state: tuple[Tensor, Tensor], w_ih: Tensor, w_hh: Tensor,
               b_ih: Tensor | None, b_hh: Tensor | None) -> tuple[Tensor, Tensor]:
    h, c = state
    i, f, g, o = (F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)).chunk(4, -1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c.tanh(), c


def _gru_step(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Tensor | None,
              b_hh: Tensor | None) -> Tensor:
    x_r, x_z, x_n = F.linear(x, w_ih, b_ih).chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r, z = (x_r + h_r).sigmoid(), (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h


_STEPS: dict[str, Callable[..., Any]] = {
    "RNN_TANH": _rnn_step(Tensor.tanh), "RNN_RELU": _rnn_step(Tensor.relu),
    "LSTM": _lstm_step, "GRU": _gru_step}


def _mode(cls_name: str, nonlinearity: str) -> str:
    if cls_name not in ("RNN", "RNNCell"):
        return cls_name.removesuffix("Cell")
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                         "'relu'.")
    return "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


def _reset(module: Module, hidden_size: int, rng: Any = None) -> None:
    """torch's init: every parameter U(-1/sqrt(hidden), 1/sqrt(hidden)), in order."""
    bound = 1 / math.sqrt(hidden_size)
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound, generator=rng)


class _CellBase(Module):
    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = check_positive_int("input_size", input_size)
        self.hidden_size = check_positive_int("hidden_size", hidden_size)
        self.bias = bias
        self._mode = _mode(type(self).__name__, nonlinearity)
        self.nonlinearity = nonlinearity
        kind = _dtype(dtype, device)
        rows = _GATES[self._mode] * self.hidden_size
        self.weight_ih = _empty((rows, self.input_size), kind)
        self.weight_hh = _empty((rows, self.hidden_size), kind)
        if bias:
            self.bias_ih = _empty((rows,), kind)
            self.bias_hh = _empty((rows,), kind)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset(self, self.hidden_size)

    def _check(self, input: Tensor) -> tuple[Tensor, bool]:
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        batched = input.dim() == 2
        return (input if batched else input.unsqueeze(0)), batched

    def _zeros(self, x: Tensor) -> Tensor:
        return x.new_zeros((x.shape[0], self.hidden_size))

    def _step(self, x: Tensor, state: State) -> Any:
        return _STEPS[self._mode](x, state, self.weight_ih, self.weight_hh, self.bias_ih,
                                  self.bias_hh)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if self._mode == "RNN_RELU":
            text += ", nonlinearity=relu"
        return text


class RNNCell(_CellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu): one step of an Elman RNN."""

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, batched = self._check(input)
        h = self._zeros(x) if hx is None else (hx if batched else hx.unsqueeze(0))
        out = self._step(x, h)
        return out if batched else out.squeeze(0)


class GRUCell(_CellBase):
    """One GRU step: reset and update gates r, z; n = tanh(W_in x + r (W_hn h)); h' = (1 - z) n
    + z h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, device=device, dtype=dtype)

    forward = RNNCell.forward


class LSTMCell(_CellBase):
    """One LSTM step: (h, c) -> (h', c') with input, forget, cell and output gates."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__(input_size, hidden_size, bias, device=device, dtype=dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, Tensor]:
        x, batched = self._check(input)
        if hx is None:
            state = (self._zeros(x), self._zeros(x))
        else:
            state = hx if batched else (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = self._step(x, state)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class _RNNBase(Module):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.input_size = check_positive_int("input_size", input_size)
        self.hidden_size = check_positive_int("hidden_size", hidden_size)
        self.num_layers = check_positive_int("num_layers", num_layers)
        if isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if proj_size:
            raise NotImplementedError("LSTM(proj_size=) is not supported by micrograd.torch "
                                      "(yet), see docs/torch.md")
        self.mode = _mode(type(self).__name__, nonlinearity)
        self.nonlinearity = nonlinearity
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, 0
        kind = _dtype(dtype, device)
        rows = _GATES[self.mode] * self.hidden_size
        directions = 2 if bidirectional else 1
        self._names: list[list[str]] = []
        for layer in range(self.num_layers):
            width = self.input_size if layer == 0 else self.hidden_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                names = [f"weight_ih{suffix}", f"weight_hh{suffix}"]
                setattr(self, names[0], _empty((rows, width), kind))
                setattr(self, names[1], _empty((rows, self.hidden_size), kind))
                if bias:
                    names += [f"bias_ih{suffix}", f"bias_hh{suffix}"]
                    setattr(self, names[2], _empty((rows,), kind))
                    setattr(self, names[3], _empty((rows,), kind))
                self._names.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset(self, self.hidden_size)

    def flatten_parameters(self) -> None:
        """torch's cuDNN memory layout step: nothing to do on the CPU."""

    def _weights(self, layer: int, direction: int) -> list[Tensor | None]:
        names = self._names[layer * (2 if self.bidirectional else 1) + direction]
        weights = [getattr(self, name) for name in names]
        return weights if self.bias else [*weights, None, None]

    def _initial(self, x: Tensor, hx: Any, batched: bool) -> list[State]:
        """The initial state of each (layer, direction), shaped (batch, hidden)."""
        count = self.num_layers * (2 if self.bidirectional else 1)
        shape = (count, x.shape[1], self.hidden_size)
        lstm = self.mode == "LSTM"
        if hx is None:
            parts = [x.new_zeros(shape)] * (2 if lstm else 1)
        else:
            parts = [p if batched else p.unsqueeze(1) for p in (hx if lstm else (hx,))]
            for p in parts:
                if tuple(p.shape) != shape:
                    raise RuntimeError(f"Expected hidden size {shape}, got {tuple(p.shape)}")
        if lstm:
            return [(parts[0][k], parts[1][k]) for k in range(count)]
        return [parts[0][k] for k in range(count)]

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1)
        if batched and self.batch_first:
            x = x.transpose(0, 1)  # (time, batch, features) from here on
        states = self._initial(x, hx, batched)
        step = _STEPS[self.mode]
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                weights = self._weights(layer, direction)
                state = states[layer * directions + direction]
                steps = range(x.shape[0])
                out: list[Tensor] = []
                for t in (reversed(steps) if direction else steps):
                    state = step(x[t], state, *weights)
                    out.append(state[0] if self.mode == "LSTM" else state)
                if direction:
                    out.reverse()
                outputs.append(stack(out, 0))
                finals.append(state)
            x = outputs[0] if directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        if batched and self.batch_first:
            x = x.transpose(0, 1)
        if self.mode == "LSTM":
            h_n, c_n = stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
            final: Any = (h_n, c_n) if batched else (h_n.squeeze(1), c_n.squeeze(1))
        else:
            h_n = stack(finals, 0)
            final = h_n if batched else h_n.squeeze(1)
        return (x if batched else x.squeeze(1)), final

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text


class RNN(_RNNBase):
    """A multi-layer Elman RNN over a sequence: returns (output, h_n)."""


class GRU(_RNNBase):
    """A multi-layer GRU over a sequence: returns (output, h_n)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "nonlinearity" in kwargs:
            raise TypeError("GRU.__init__() got an unexpected keyword argument 'nonlinearity'")
        super().__init__(*args[:2], *_without_nonlinearity(args[2:]), **kwargs)


class LSTM(_RNNBase):
    """A multi-layer LSTM over a sequence: returns (output, (h_n, c_n))."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "nonlinearity" in kwargs:
            raise TypeError("LSTM.__init__() got an unexpected keyword argument 'nonlinearity'")
        super().__init__(*args[:2], *_without_nonlinearity(args[2:]), **kwargs)


def _without_nonlinearity(rest: tuple) -> tuple:
    """GRU/LSTM's positional arguments after (input, hidden): torch's order has no
    nonlinearity, so it is put back in RNN's place."""
    return (rest[0], "tanh", *rest[1:]) if rest else ()
