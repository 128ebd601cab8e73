# Payload: record the scratch folder and a child process, then run for a long time.
import os
import subprocess
import time


def _id(pid):
    """pid and start time: the test finds the process by them, even from outside a namespace."""
    with open(f"/proc/{pid}/stat") as _s:
        return f"{pid} {_s.read().rpartition(')')[2].split()[19]}"


_sleeper = subprocess.Popen(["sleep", "319"])
with open(r"{record}", "a") as _f:
    _f.write(f"{_id(_sleeper.pid)}\n{_id(os.getpid())}\ncwd={os.getcwd()}\n")
time.sleep(300)
