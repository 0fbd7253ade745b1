"""bench/measure.py: the peak memory of a process tree counts each address space once;
bench/bench_peers.py: a failed run at 10x is reported beside the rounds' figures."""

from __future__ import annotations

import ctypes
import importlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
CLONE_VM = 0x100


def load_measure() -> ModuleType:
    spec = importlib.util.spec_from_file_location("measure", BENCH / "measure.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def measure() -> ModuleType:
    return load_measure()


@contextmanager
def vm_sharing_child() -> Iterator[int]:
    """A child of this process in this process's address space (as a JVM's posix_spawn
    child is until its exec): it runs libc's pause() on a stack of its own."""
    libc = ctypes.CDLL(None, use_errno=True)
    stack = ctypes.create_string_buffer(1 << 16)
    top = ctypes.c_void_p(ctypes.addressof(stack) + len(stack) - 64)
    pause = ctypes.cast(libc.pause, ctypes.c_void_p)
    libc.clone.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    pid = libc.clone(pause, top, CLONE_VM | signal.SIGCHLD, None)
    assert pid > 0, os.strerror(ctypes.get_errno())
    try:
        yield pid
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def figures_with_a_vm_sharing_child(measure: ModuleType) -> dict[str, object]:
    """Run in a process of its own (see __main__), whose one child is the VM-sharing one:
    the test process has other children (the Spark JVM, background jobs)."""
    me = os.getpid()
    with vm_sharing_child() as child:
        return {"shared": measure.same_address_space(child, me), "own_rss": measure._rss_bytes(me),
                "child_rss": measure._rss_bytes(child), "tree_rss": measure.tree_rss(me)}


def test_a_child_in_its_parents_address_space_counts_once() -> None:
    run = subprocess.run([sys.executable, __file__], capture_output=True, text=True, check=True)
    figures = json.loads(run.stdout)
    assert figures["shared"]
    assert figures["child_rss"] == pytest.approx(figures["own_rss"], rel=0.05)
    assert figures["tree_rss"] < 1.5 * figures["own_rss"]


def test_a_child_of_its_own_counts(measure: ModuleType) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; b = bytearray(200 << 20); sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        while measure._rss_bytes(child.pid) < 200 << 20:
            assert child.poll() is None
        assert not measure.same_address_space(child.pid, os.getpid())
        assert measure.tree_rss(os.getpid()) >= measure._rss_bytes(os.getpid()) + (200 << 20)
    finally:
        child.communicate()


def test_a_failed_ten_x_run_is_reported_beside_the_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    peers = importlib.import_module("bench_peers")
    step = peers.Step(10.0, 100.0)
    names = [f"land {peers.FULL}", f"build {peers.FULL}", f"land + build {peers.FULL}", f"land + build {peers.MORE}",
             peers.NOTHING]
    report = peers.Report(
        "2026-12-06", {"events": 1_000_000, "keys": 100_000, "rounds": 1, "peers": [], "ten_x": True},
        {"cores": 2, "cpu": "test", "ram_gib": 24, "load_1m_at_start": 0.0, "load_1m_at_end": 0.0}, {},
        [peers.Round(peers.Ours(dict.fromkeys(names, step), {}, {}), None, None)],
        ten_x_failure="cdc build failed (exit 1):\nthe JVM ran out of memory")
    text = peers.render(report)
    assert ("| 10M events, land + build | ≤ 10 \N{MULTIPLICATION SIGN} the 1M time | failed (below) | 10.0 s "
            "| failed (below) | | failed (below) |") in text
    assert "The 10M run failed:\n\n```\ncdc build failed (exit 1):\nthe JVM ran out of memory\n```" in text


if __name__ == "__main__":
    print(json.dumps(figures_with_a_vm_sharing_child(load_measure())))
