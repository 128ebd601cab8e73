"""Confining the checker's child before the learner's code runs (standard library only).

Loaded by path under a private name by child.py (like childlib.py), so a learner's module of
the same name can't replace it. As root on Linux: process 1 of a new PID and mount namespace
with its own /proc and the learner's folder read-only, and no capabilities; everywhere: hard
resource limits that the learner's code can only lower.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
from typing import Any

PR_CAPBSET_DROP = 24                  # linux/prctl.h
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
LINUX_CAPABILITY_VERSION_3 = 0x20080522
LAST_CAPABILITY = 63                  # drop every bounding-set bit the kernel knows
CLONE_NEWNS, CLONE_NEWPID = 0x00020000, 0x20000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18


def _libc() -> Any:
    import ctypes
    return ctypes.CDLL(None, use_errno=True)


def enter_pid_namespace(read_only: list[str]) -> bool:
    """As root on Linux: run the rest of this program as process 1 of a new PID namespace,
    with its own /proc and the learner's folder mounted read-only. Every process the learner's
    code starts stays inside (a double fork and setsid can't leave it); when process 1 dies,
    or this process (then process 1 gets SIGKILL), the kernel kills them all. The learner's
    code sees no process outside: not the checker's environ, nothing to signal or trace.

    This process stays outside, waits, and exits as process 1 did. False (nothing changed)
    where namespaces are not available."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    try:
        libc = _libc()
        if libc.unshare(CLONE_NEWPID | CLONE_NEWNS) != 0:
            return False
    except (OSError, AttributeError):
        return False
    pid = os.fork()
    if pid == 0:  # process 1 of the namespace
        # (getppid() is 0 here: the parent is outside the namespace. Should the outside
        # process die before this line, the checker's process-group kill still reaches us.)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None)  # nothing leaks to the host
        libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None)
        for folder in read_only:
            path = os.fsencode(folder)
            if libc.mount(path, path, None, MS_BIND | MS_REC, None) == 0:
                libc.mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
        return True
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    if os.WIFSIGNALED(status):  # die of the same signal, so the checker sees what happened
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status))


def drop_capabilities() -> bool:
    """As root, give up every capability for good: the effective, permitted and inheritable
    sets (capset), the bounding set (an exec can't regain them) and no new privileges. The
    learner's code then can't raise its hard limits (CAP_SYS_RESOURCE), remount the folder
    it may not write, override file permissions, or trace and signal other users' processes.
    True if they are gone. Root still ignores RLIMIT_NPROC (the kernel exempts uid 0)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return False
    import ctypes

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    try:
        libc = _libc()
        for capability in range(LAST_CAPABILITY + 1):
            libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)
        libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        header, data = Header(LINUX_CAPABILITY_VERSION_3, 0), (Data * 2)()
        return bool(libc.capset(ctypes.byref(header), data) == 0)
    except (OSError, AttributeError):
        return False


def apply_limits(limits: dict[str, Any]) -> None:
    """soft = hard: the learner's file cannot raise them again (only lower them)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the output cap a write fails instead
    for name, value in limits.items():
        kind = getattr(resource, name)
        _, hard = resource.getrlimit(kind)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(kind, (value, value))
    drop_capabilities()
