# Payload: a daemon in its own session (setsid), and a double-forked Python daemon.
import os
import subprocess
import time

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
time.sleep(0.2)
