"""bench/measure.py: the peak memory of a process tree counts each address space once."""

from __future__ import annotations

import ctypes
import importlib.util
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
CLONE_VM = 0x100


@pytest.fixture(scope="module")
def measure() -> ModuleType:
    spec = importlib.util.spec_from_file_location("measure", BENCH / "measure.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture
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


def test_a_child_in_its_parents_address_space_counts_once(measure: ModuleType,
                                                           vm_sharing_child: int) -> None:
    me = os.getpid()
    assert measure.same_address_space(vm_sharing_child, me)
    alone = measure._rss_bytes(me)
    assert measure._rss_bytes(vm_sharing_child) == pytest.approx(alone, rel=0.05)
    assert measure.tree_rss(me) < 1.5 * alone


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
