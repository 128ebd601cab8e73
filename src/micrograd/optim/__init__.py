"""Optimizers and learning-rate schedules for anything with `.data` and `.grad`: Values
(floats) and Tensors (numpy arrays), with torch.optim's formulas, parameter groups and
state dicts.

    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(100):
        loss = ...                # forward
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

from __future__ import annotations

from micrograd.optim import lr_scheduler
from micrograd.optim.algorithms import SGD, Adagrad, Adam, AdamW, RMSprop
from micrograd.optim.lr_scheduler import (
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LinearDecay,
    LRScheduler,
    MultiStepLR,
    OneCycleLR,
    StepLR,
)
from micrograd.optim.optimizer import Optimizer

__all__ = [
    "Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler",
    "LRScheduler", "LambdaLR", "LinearDecay", "StepLR", "MultiStepLR", "ExponentialLR",
    "CosineAnnealingLR", "OneCycleLR",
]
