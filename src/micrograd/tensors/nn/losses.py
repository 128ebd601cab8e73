"""Loss modules, as torch.nn has them: each calls its functional form."""

from __future__ import annotations

from typing import Any

from micrograd.tensors import Tensor
from micrograd.tensors.nn import functional as NF
from micrograd.tensors.nn.module import Module

_REDUCTIONS = ("mean", "sum", "none")


class _Loss(Module):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
        self.reduction = reduction


class MSELoss(_Loss):
    """mean (input - target)^2."""

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """mean |input - target|."""

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_Loss):
    """-input[n, target[n]] for log-probabilities input (after log_softmax)."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class CrossEntropyLoss(_Loss):
    """-log softmax(input)[target] for logits input and integer class targets."""

    def __init__(self, weight: Tensor | None = None, ignore_index: int = -100,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                                self.label_smoothing)


class BCELoss(_Loss):
    """-(y log x + (1 - y) log(1 - x)) for probabilities x."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """BCELoss of sigmoid(input), computed without overflow."""

    def __init__(self, weight: Tensor | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def forward(self, input: Tensor, target: Any) -> Tensor:
        return NF.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                   self.pos_weight)
