"""The child process: a scratch folder, a clean environment, hard limits, a private channel,
and nothing left running afterwards.

This is isolation against accidents (and pranks), not a security sandbox: the child runs as
the same user, with the same network access; see docs/checker.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHILD_PROGRAM = Path(__file__).with_name("child.py")
OUTPUT_CAP = 16 * 1024 * 1024      # bytes of the learner's stdout/stderr kept (RLIMIT_FSIZE)
OUTPUT_SHOWN = 4000                # characters of it put in the report
MAX_REPORT_LINE = 1024 * 1024      # one report on the channel, at most
MAX_CHANNEL = 32 * 1024 * 1024     # everything on the channel, at most
NPROC_HEADROOM = 64                # processes the child may add to the user's count
RUN_TOKEN = "MICROGRAD_CHECK_RUN"  # in the child's environment: finds its descendants
ENV_ALLOWED = ("PATH", "LANG", "LANGUAGE", "TZ")
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
NAMESPACE = True  # ask for a PID namespace (as root on Linux); tests turn it off for the fallback
_ACTIVE_CHILDREN: set[int] = set()  # children of running checks (threads): never reaped here
# held while a check starts its child and while one looks for processes to kill: a child
# being started by another thread is, for a moment, an unknown process in its own session
_SPAWN_LOCK = threading.Lock()


class Untrusted(Exception):
    """A report that can't be the child's own: malformed, forged, duplicated, too big."""


class ChildGone(Exception):
    """The child exited or stopped answering before it reported."""


@dataclass
class Limits:
    """Soft = hard limits for the child (it can only lower them)."""

    memory_mb: int = 1024
    cpu_seconds: float = 30.0
    output_bytes: int = OUTPUT_CAP

    def as_rlimits(self) -> dict[str, int]:
        limits = {"RLIMIT_AS": self.memory_mb * 1024 * 1024,
                  "RLIMIT_CPU": math.ceil(self.cpu_seconds) + 1,
                  "RLIMIT_FSIZE": self.output_bytes, "RLIMIT_CORE": 0}
        if hasattr(os, "getuid"):  # root ignores RLIMIT_NPROC (see docs/checker.md)
            limits["RLIMIT_NPROC"] = user_process_count() + NPROC_HEADROOM
        return limits


def user_process_count() -> int:
    uid, count = os.getuid(), 0
    for entry in _proc_pids():
        try:
            if os.stat(f"/proc/{entry}").st_uid == uid:
                count += len(os.listdir(f"/proc/{entry}/task"))
        except OSError:
            continue
    return count


def _prctl(option: int, value: int) -> bool:
    """prctl(option, value) on Linux; False where there is no such call or it failed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(option, value, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Orphans of the child's descendants are re-parented to this process, not to init, so
    they can be found and killed (Linux only; elsewhere the process group is the net)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def become_undumpable() -> bool:
    """No core dump, and /proc/<this pid>/environ, mem, fd/ closed to same-user processes
    without CAP_SYS_PTRACE (the checked file's code can't read the checker's environment)."""
    return _prctl(PR_SET_DUMPABLE, 0)


def clean_environment(home: Path, token: str) -> dict[str, str]:
    """An allowlist: PATH, locale, and the settings the checker chooses itself."""
    env = {k: v for k, v in os.environ.items() if k in ENV_ALLOWED or k.startswith("LC_")}
    env.update(HOME=str(home), TMPDIR=str(home), PYTHONHASHSEED="0",
               PYTHONDONTWRITEBYTECODE="1", MPLBACKEND="Agg", OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1", **{RUN_TOKEN: token})
    return env


@dataclass
class Sandbox:
    """One child process and its scratch folder; use as a context manager."""

    limits: Limits
    program: Path = CHILD_PROGRAM  # the child's program (ninja_child.py for --ninja)
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="micrograd-check-")))
    process: subprocess.Popen[bytes] | None = None
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    answered: dict[str, str] = field(default_factory=dict)  # nonce -> request id
    spoiled: set[str] = field(default_factory=set)           # ids whose report was duplicated
    abandoned: set[str] = field(default_factory=set)         # nonces of untrusted requests
    ignored_forks: int = 0
    read_only: list[str] = field(default_factory=list)  # the learner's folder: not writable
    namespaced: bool = False      # the child runs as process 1 of its own PID namespace
    child_pid: int | None = None  # the pid the child reports as its own (1 in a namespace)
    _output_fd: int | None = None
    _started: float = 0.0
    _buffer: bytes = b""
    _received: int = 0
    _requests: int | None = None
    _reports: int | None = None

    @property
    def work(self) -> Path:
        """HOME, cwd and sys.path root of the child: the learner's files are copied here."""
        path = self.folder / "work"
        path.mkdir(exist_ok=True)
        return path

    @property
    def output_file(self) -> Path:
        return self.folder / "output.txt"

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, seconds: float = 10.0) -> None:
        """Start the child in its own session, with the limits, on the private channel."""
        become_subreaper()
        become_undumpable()
        request_read, self._requests = os.pipe()
        self._reports, report_write = os.pipe()
        self._started = time.time()
        try:
            with open(self.output_file, "wb") as output:
                # read back through this descriptor, never by path: the learner's code may
                # replace the file with a FIFO or a symlink to /proc/self/environ
                self._output_fd = os.open(self.output_file,
                                          os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with _SPAWN_LOCK:
                    self.process = subprocess.Popen(
                        [sys.executable, "-I", "-B", "-u", str(self.program),
                         str(request_read), str(report_write)],
                        cwd=self.work, env=clean_environment(self.work, self.token),
                        stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT,
                        start_new_session=True, pass_fds=(request_read, report_write))
                    _ACTIVE_CHILDREN.add(self.process.pid)
        finally:
            os.close(request_read)
            os.close(report_write)
        ready = self.ask({"do": "start", "limits": self.limits.as_rlimits(),
                          "namespace": NAMESPACE, "read_only": self.read_only}, seconds,
                         "start")
        self.namespaced = ready.get("namespace") is True

    def ask(self, request: dict[str, Any], seconds: float, request_id: str) -> dict[str, Any]:
        """Send one request; return the one report for it (raises Untrusted or ChildGone)."""
        nonce = secrets.token_hex(12)
        line = json.dumps(dict(request, id=request_id, nonce=nonce)) + "\n"
        if self._requests is None:
            raise ChildGone("the child was not started")
        try:
            os.write(self._requests, line.encode())
        except OSError:
            raise ChildGone("the child has exited") from None
        deadline = time.monotonic() + max(seconds, 0.0)
        while True:
            try:
                message = self._next_message(deadline)
            except Untrusted:
                self.abandoned.add(nonce)
                raise
            if message.get("nonce") == nonce and message.get("id") == request_id:
                self.answered[nonce] = request_id
                return message
            if message.get("nonce") in self.answered:  # a second report for an earlier probe
                self.spoiled.add(self.answered[message["nonce"]])
                continue
            if message.get("nonce") in self.abandoned:  # the real report of an untrusted one
                continue
            self.abandoned.add(nonce)
            raise Untrusted("a report that does not answer the request (forged or malformed)")

    def _next_message(self, deadline: float) -> dict[str, Any]:
        """The next report line from the original child; a fork's reports are skipped."""
        reports = self._reports
        if reports is None:
            raise ChildGone("the channel is closed")
        while True:
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise ChildGone("no report in time")
                ready, _, _ = select.select([reports], [], [], min(remaining, 0.25))
                if not ready:
                    continue
                chunk = os.read(reports, 1 << 16)
                if not chunk:
                    raise ChildGone("the child exited")
                self._received += len(chunk)
                if self._received > MAX_CHANNEL:
                    raise Untrusted("the child wrote more than the channel allows")
                self._buffer += chunk
                if b"\n" not in self._buffer and len(self._buffer) > MAX_REPORT_LINE:
                    raise Untrusted("a report line too long")
            line, _, self._buffer = self._buffer.partition(b"\n")
            if len(line) > MAX_REPORT_LINE:
                raise Untrusted("a report line too long")
            try:
                message = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):
                raise Untrusted("a report line that is not JSON") from None
            if not isinstance(message, dict) or not isinstance(message.get("nonce"), str) \
                    or not isinstance(message.get("id"), str):
                raise Untrusted("a report without id and nonce")
            if self.child_pid is None and self.process is not None:
                # the first report ("ready") comes before any learner code runs: its pid is
                # the child's own (1 when it is process 1 of a PID namespace)
                self.child_pid = message.get("pid")
            if message.get("pid") != self.child_pid:
                self.ignored_forks += 1  # a copy made by os.fork(): not the child we started
                continue
            return message

    def drain(self, seconds: float = 0.5) -> None:
        """After the last request: read what is left, so a late duplicate is still seen."""
        if self._requests is None:
            return
        with contextlib.suppress(OSError):
            os.write(self._requests, (json.dumps({"do": "stop", "id": "stop", "nonce": ""})
                                      + "\n").encode())
        deadline = time.monotonic() + seconds
        while True:
            try:
                message = self._next_message(deadline)
            except (ChildGone, Untrusted):
                return
            if message.get("nonce") in self.answered:
                self.spoiled.add(self.answered[message["nonce"]])

    def learner_output(self) -> str:
        """The first few thousand characters the learner's code printed; notes a cut."""
        if self._output_fd is None:
            return ""
        try:
            size = os.fstat(self._output_fd).st_size
            text = os.pread(self._output_fd, OUTPUT_SHOWN * 4, 0).decode(
                "utf-8", "replace")[:OUTPUT_SHOWN]
        except OSError:
            return ""
        if size >= self.limits.output_bytes:
            text += f"\n[output cut: the file printed {size} bytes or more; the cap is " \
                    f"{self.limits.output_bytes} bytes]"
        elif size > len(text.encode()):
            text += f"\n[{size} bytes printed; the first {OUTPUT_SHOWN} characters are shown]"
        return text

    def close(self) -> None:
        """Kill the child and every process it started (however it escaped), remove files."""
        for fd in (self._requests, self._reports):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._requests = self._reports = None
        if self.process is not None:
            kill_descendants(self.process, self.token, self._started)
            _ACTIVE_CHILDREN.discard(self.process.pid)
        if self._output_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._output_fd)
            self._output_fd = None
        shutil.rmtree(self.folder, ignore_errors=True)


# ------------------------------------------------------------------------------------------
# Finding and killing every descendant
# ------------------------------------------------------------------------------------------

def _proc_pids() -> list[str]:
    try:
        return [entry for entry in os.listdir("/proc") if entry.isdigit()]
    except OSError:
        return []


def _stat(pid: str) -> tuple[str, int, int, int] | None:
    """(state, parent pid, session id, start time in clock ticks) from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            text = file.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2:].split()
    try:
        return fields[0], int(fields[1]), int(fields[3]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _boot_ticks(when: float) -> int:
    """A wall-clock time as /proc's start times count: clock ticks since boot."""
    try:
        with open("/proc/uptime", "rb") as file:
            uptime = float(file.read().split()[0])
        return int((uptime - (time.time() - when)) * os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return 0


def _has_token(pid: str, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return marker in file.read()
    except OSError:
        return False


def descendants(root: int, token: str, started: float = 0.0) -> set[int]:
    """Live processes that came from the child: its session, anything whose environment
    carries this run's token (a setsid daemon keeps it), orphans re-parented to this process
    (its subreaper) in a session of their own since the child started (a double fork with an
    empty environment keeps neither), and all their children."""
    marker = f"{RUN_TOKEN}={token}".encode()
    me, my_session = os.getpid(), os.getsid(0)
    since = _boot_ticks(started) - 1 if started else None
    table = {}
    for pid in _proc_pids():
        stat = _stat(pid)
        if stat is not None and stat[0] not in ("Z", "X"):
            table[int(pid)] = stat
    found = {pid for pid, (_, _, sid, _) in table.items() if sid == root or pid == root}
    found |= {pid for pid in table if pid not in found and _has_token(str(pid), marker)}
    if since is not None:
        found |= {pid for pid, (_, ppid, sid, start) in table.items()
                  if ppid == me and sid != my_session and start >= since
                  and pid not in _ACTIVE_CHILDREN}
    found.discard(os.getpid())
    grew = True
    while grew:
        extra = {pid for pid, (_, ppid, _, _) in table.items()
                 if ppid in found and pid not in found}
        found |= extra
        grew = bool(extra)
    return found


def kill_descendants(process: subprocess.Popen[bytes], token: str, started: float = 0.0,
                     rounds: int = 200) -> None:
    """SIGKILL the child's process group and every descendant until none is left; reap the
    ones re-parented to us (we are their subreaper)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    for _ in range(rounds):
        with _SPAWN_LOCK:
            alive = descendants(process.pid, token, started) \
                if sys.platform.startswith("linux") else set()
            for pid in alive:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
        _reap_orphans(process.pid)
        if not alive:
            break
        time.sleep(0.005)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)
    _reap_orphans(process.pid)


def _reap_orphans(child_pid: int) -> None:
    """waitpid() the zombies that are our children (orphans we adopted), not the child itself
    (subprocess reaps that one)."""
    me = os.getpid()
    for pid in _proc_pids():
        stat = _stat(pid)
        if stat and stat[1] == me and stat[0] == "Z" and int(pid) != child_pid \
                and int(pid) not in _ACTIVE_CHILDREN:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(pid), os.WNOHANG)
