# Payload (issue 20): fork(); setsid(); fork(); execve(python, ..., {}): its own session, an
# empty environment (no run token), its parent gone. Also from inside a probe's __add__.
import os
import sys
import time


def _id(pid):
    """pid and start time: the test finds the process by them, even from outside a namespace."""
    with open(f"/proc/{pid}/stat") as _s:
        return f"{pid} {_s.read().rpartition(')')[2].split()[19]}"


def _escape():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(r"{record}", "a") as _f:
                _f.write(f"{_id(os.getpid())}\n")
            os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(316)"], {})
        os._exit(0)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            with open(r"{record}") as _f:
                if len(_f.read().splitlines()) >= _escape.count:
                    return
        except OSError:
            pass
        time.sleep(0.05)


_escape.count = 1
_escape()
_plain_add = Value.__add__


def _add_that_escapes(self, other):
    if _escape.count == 1:
        _escape.count = 2
        _escape()
    return _plain_add(self, other)


Value.__add__ = _add_that_escapes
