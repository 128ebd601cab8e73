# Payload: a small, bounded fork bomb: 5 children that fork 5 each (30 processes), all asleep.
import os
import time


def _id(pid):
    """pid and start time: the test finds the process by them, even from outside a namespace."""
    with open(f"/proc/{pid}/stat") as _s:
        return f"{pid} {_s.read().rpartition(')')[2].split()[19]}"


def _wait_for_records(count, seconds=20.0):
    """Until every process has written its pid (the test counts them), at most `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(r"{record}") as _f:
                if len(_f.read().splitlines()) >= count:
                    return
        except OSError:
            pass
        time.sleep(0.05)

for _ in range(5):
    if os.fork() == 0:
        for _ in range(5):
            if os.fork() == 0:
                with open(r"{record}", "a") as _f:
                    _f.write(f"{_id(os.getpid())}\n")
                time.sleep(300)
                os._exit(0)
        with open(r"{record}", "a") as _f:
            _f.write(f"{_id(os.getpid())}\n")
        time.sleep(300)
        os._exit(0)
_wait_for_records(30)
