# Payload: a small, bounded fork bomb: 5 children that fork 5 each (30 processes), all asleep.
import os
import time

for _ in range(5):
    if os.fork() == 0:
        for _ in range(5):
            if os.fork() == 0:
                with open(r"{record}", "a") as _f:
                    _f.write(f"{os.getpid()}\n")
                time.sleep(300)
                os._exit(0)
        with open(r"{record}", "a") as _f:
            _f.write(f"{os.getpid()}\n")
        time.sleep(300)
        os._exit(0)
time.sleep(0.3)
