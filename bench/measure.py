"""Run a command and measure it: wall time and peak memory of its whole process tree.

Peak memory is the largest sum of resident set sizes (RSS) of the process and all its
descendants (a JVM started by a Python script counts), polled from /proc every 0.2 s: a
peak shorter than that can be missed, and pages shared between processes count once per
process. A child that still shares its parent's address space (a JVM's `posix_spawn` of
a Python worker, between the clone and the exec) is the parent's memory, not its own, and
counts once: summed, a 1.9 GB JVM caught in that instant counted twice. Linux only.
"""

from __future__ import annotations

import ctypes
import os
import platform
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

POLL_SECONDS = 0.2
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
_LIBC = ctypes.CDLL(None, use_errno=True)
_SYS_KCMP = {"x86_64": 312, "aarch64": 272}.get(platform.machine())
_KCMP_VM = 1


@dataclass(frozen=True)
class Measured:
    seconds: float
    peak_bytes: int
    stdout: str

    @property
    def peak_mib(self) -> float:
        return self.peak_bytes / 2**20


def _parents() -> dict[int, int]:
    """pid -> parent pid of every process now alive."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:  # it ended since the listing
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses
        parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return parents


def _rss_bytes(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES
    except OSError:
        return 0


def tree_rss(root: int) -> int:
    """The summed RSS of `root` and all its descendants now alive."""
    children: dict[int, list[int]] = {}
    for pid, parent in _parents().items():
        children.setdefault(parent, []).append(pid)
    total = _rss_bytes(root)
    pending = [root]
    while pending:
        parent = pending.pop()
        for pid in children.get(parent, []):
            if not same_address_space(pid, parent):
                total += _rss_bytes(pid)
            pending.append(pid)
    return total


def same_address_space(pid: int, other: int) -> bool:
    """Whether two live processes share one address space (kcmp(2) KCMP_VM); False where
    that cannot be told (another architecture, a process that ended)."""
    return _SYS_KCMP is not None and _LIBC.syscall(_SYS_KCMP, pid, other, _KCMP_VM, 0, 0) == 0


def _ended(process: subprocess.Popen[str]) -> bool:
    """Wait up to one poll interval; True as soon as the process has ended."""
    try:
        process.wait(timeout=POLL_SECONDS)
    except subprocess.TimeoutExpired:
        return False
    return True


def run_measured(cmd: Sequence[str], env: dict[str, str], cwd: Path) -> Measured:
    """Run `cmd` to its end; a non-zero exit stops the benchmark with the tail of its output."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        process = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err, text=True)
        peak = tree_rss(process.pid)
        while not _ended(process):
            peak = max(peak, tree_rss(process.pid))
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        stdout = out.read()
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed (exit {process.returncode}):\n"
                             f"{stdout[-2000:]}\n{err.read()[-3000:]}")
    return Measured(seconds, peak, stdout)
