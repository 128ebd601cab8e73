# Payload: start a long-running process and forget it.
import subprocess

_sleeper = subprocess.Popen(["sleep", "317"])
with open(r"{record}", "a") as _f:
    _f.write(f"{_sleeper.pid}\n")
