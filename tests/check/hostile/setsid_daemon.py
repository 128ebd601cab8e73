# Payload: a daemon in its own session (setsid), and a double-forked Python daemon.
import os
import subprocess
import time


def _wait_for_records(count, seconds=20.0):
    """Until every process has written its pid (the test counts them), at most `seconds`."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with open(r"{record}") as _f:
                if len(_f.read().split()) >= count:
                    return
        except OSError:
            pass
        time.sleep(0.05)

_daemon = subprocess.Popen(["setsid", "sleep", "318"], start_new_session=True)
with open(r"{record}", "a") as _f:
    _f.write(f"{_daemon.pid}\n")
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(r"{record}", "a") as _f:
            _f.write(f"{os.getpid()}\n")
        time.sleep(300)
    os._exit(0)
_wait_for_records(2)
