"""Ports on 127.0.0.1 for the servers the tests start (the Kafka broker, MariaDB,
PostgreSQL, `cdc docs --serve`)."""

from __future__ import annotations

import random
import socket
import threading
from pathlib import Path

# Linux's range of the ports it gives outgoing connections and binds of port 0
EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
LINUX_DEFAULT_RANGE = (32768, 60999)

_given: set[int] = set()
_lock = threading.Lock()


def _ephemeral_range() -> tuple[int, int]:
    try:
        low, high = map(int, EPHEMERAL_RANGE.read_text().split())
    except (OSError, ValueError):
        return LINUX_DEFAULT_RANGE
    return low, high


def free_port() -> int:
    """A port nothing listens on, outside the ephemeral range and given once per process.
    A server binds its port seconds after this probe: a port from the ephemeral range
    (a probe's bind of port 0) could be taken meanwhile by an outgoing connection of the
    jobs running beside it, and was (`cdc docs --serve` failed with "Address already in
    use" on port 43911 in the suite of 3762408)."""
    low, high = _ephemeral_range()
    candidates = [*range(1024, low), *range(high + 1, 65536)]
    with _lock:
        for port in random.sample(candidates, len(candidates)):
            if port in _given:
                continue
            with socket.socket() as probe:
                try:
                    probe.bind(("127.0.0.1", port))
                except OSError:
                    continue
            _given.add(port)
            return port
    raise RuntimeError(f"no free port on 127.0.0.1 outside the ephemeral range {low}-{high}")
