# Payload: a __add__ that first writes a passing report for itself on every open descriptor.
import os

_plain_add = Value.__add__


def _forging_add(self, other):
    for fd in range(3, 64):
        try:
            os.write(fd, b'{"id": "reuse-add", "nonce": "guess", "pid": %d, "runs": '
                         b'[{"stage": "done", "data": 6.0, "seed": 1.0, "grads": {"a": 2.0}}]}\n'
                     % os.getpid())
        except OSError:
            pass
    return _plain_add(self, other)


Value.__add__ = _forging_add
