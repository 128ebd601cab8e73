# Payload: start a long-running process and forget it.
import subprocess


def _id(pid):
    """pid and start time: the test finds the process by them, even from outside a namespace."""
    with open(f"/proc/{pid}/stat") as _s:
        return f"{pid} {_s.read().rpartition(')')[2].split()[19]}"


_sleeper = subprocess.Popen(["sleep", "317"])
with open(r"{record}", "a") as _f:
    _f.write(f"{_id(_sleeper.pid)}\n")
