"""One process at a time on a CDC_HOME: its embedded Derby metastore admits one JVM.

The lock is an exclusive `flock` on `$CDC_HOME/.cdc.lock`, which holds the pid of its
holder. The OS frees it when the holder's file closes, also when the process is killed.
"""

from __future__ import annotations

import fcntl
import os
import sys
from pathlib import Path
from typing import TextIO

from cdclake import paths

_held: dict[Path, TextIO] = {}


class HomeBusyError(Exception):
    """Another process holds the lock on the CDC_HOME."""


def _holder(handle: TextIO) -> str:
    handle.seek(0)
    return handle.read().strip() or "unknown"


def acquire(home: Path, wait: bool = False) -> TextIO:
    """Lock `home` (creating it); the lock lasts while the returned file is open.

    Raises HomeBusyError when another process holds it, unless `wait`: then says once
    whom it waits for and blocks until the lock is free.
    """
    home.mkdir(parents=True, exist_ok=True)
    handle = paths.lock_file(home).open("a+", encoding="ascii")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(handle)
        if not wait:
            handle.close()
            raise HomeBusyError(f"another cdc process (pid {holder}) is using CDC_HOME {home}; "
                                "wait for it or run with --wait") from None
        print(f"waiting for pid {holder} to release CDC_HOME {home} ...", file=sys.stderr, flush=True)
        fcntl.flock(handle, fcntl.LOCK_EX)
    handle.truncate(0)
    handle.write(f"{os.getpid()}\n")
    handle.flush()
    return handle


def hold(home: Path, wait: bool = False) -> None:
    """Lock `home` for the rest of this process's life (a no-op when held already)."""
    if home not in _held:
        _held[home] = acquire(home, wait)
