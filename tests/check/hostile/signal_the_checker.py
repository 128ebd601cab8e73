# Payload (issue 20): stop, kill and trace the checker (as root, nothing but the namespace
# stops it), then write into the learner's own folder. Targets only the process that
# started it and processes carrying this test's marker in their environment, never others.
import ctypes
import os
import signal

_targets = {os.getppid()} - {0, 1}
for _entry in os.listdir("/proc"):
    try:
        with open(f"/proc/{_entry}/environ", "rb") as _f:
            if b"MICROGRAD_SIGNAL_TARGET={marker}" in _f.read():
                _targets.add(int(_entry))
    except (OSError, ValueError):
        pass
_libc = ctypes.CDLL(None, use_errno=True)
for _pid in _targets - {os.getpid()}:
    for _sig in (signal.SIGSTOP, signal.SIGKILL):
        try:
            os.kill(_pid, _sig)
        except OSError:
            pass
    _libc.ptrace(16, _pid, None, None)  # PTRACE_ATTACH
with open(r"{learner}/planted.py", "w") as _f:
    _f.write("print('planted by the checked file')\n")
