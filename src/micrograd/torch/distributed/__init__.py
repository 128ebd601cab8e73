"""torch.distributed: importable, never available. Scripts that check `is_available()` or
`is_initialized()` (or an env variable such as RANK) take their single-process branch; a
call that needs a process group is a clear error."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from micrograd.torch import _facade

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group",
           "get_rank", "get_world_size", "barrier", "all_reduce", "broadcast", "ReduceOp"]


def is_available() -> bool:
    """False: micrograd runs in one process."""
    return False


def is_initialized() -> bool:
    """False: there is never a process group."""
    return False


def _no_process_group(call: str) -> NoReturn:
    raise RuntimeError(f"torch.distributed.{call} is not supported by micrograd.torch: it "
                       "runs in a single process (torch.distributed.is_available() is "
                       "False); run the script without torchrun / DDP")


def _needs_process_group(name: str) -> Callable[..., NoReturn]:
    """A torch.distributed function that needs a process group: always the clear error."""

    def refuse(*args: Any, **kwargs: Any) -> NoReturn:
        _no_process_group(f"{name}()")

    refuse.__name__ = refuse.__qualname__ = name
    return refuse


init_process_group = _needs_process_group("init_process_group")
destroy_process_group = _needs_process_group("destroy_process_group")
get_rank = _needs_process_group("get_rank")
get_world_size = _needs_process_group("get_world_size")
barrier = _needs_process_group("barrier")
all_reduce = _needs_process_group("all_reduce")
broadcast = _needs_process_group("broadcast")


class ReduceOp:
    """The reduction names, so `dist.ReduceOp.SUM` can be spelled in a script."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"


__getattr__ = _facade.module_getattr(__name__, [])
