# Payload: record the scratch folder and a child process, then run for a long time.
import os
import subprocess
import time

_sleeper = subprocess.Popen(["sleep", "319"])
with open(r"{record}", "a") as _f:
    _f.write(f"{_sleeper.pid}\n{os.getpid()}\ncwd={os.getcwd()}\n")
time.sleep(300)
