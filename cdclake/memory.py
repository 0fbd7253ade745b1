"""When the embedded Spark runs out of memory: one line that says so and what to change.

The JVM runs every task of the embedded session. A task that exhausts the heap ends the
whole JVM, with Spark's exit code for that (SparkExitCode.OOM); the command's call fails
with an error that names no cause (the context shut down while the JVM exits, or no
connection once it has), and Python prints a traceback of hundreds of lines. A heap too
small for Spark to start fails with Spark's advice to set spark.driver.memory, which `cdc`
users set as CDC_DRIVER_MEMORY.
"""

from __future__ import annotations

import re
import subprocess
import sys

# SparkUncaughtExceptionHandler's exit code after an OutOfMemoryError
OOM_EXIT_CODE = 52
# how long a JVM that no longer answers may take to run its shutdown hooks and exit
EXIT_WAIT_S = 30.0
# what an error of the JVM says when its heap was too small: Spark's words when the heap is
# below what it needs to start (UnifiedMemoryManager), and the error itself, which a failed
# job reports while the JVM, about to exit, still answers
OUT_OF_MEMORY_WORDS = ("Please increase heap size", "java.lang.OutOfMemoryError")


def out_of_memory(error: BaseException | None) -> bool:
    """True when the command failed (raising `error`, or None when it returned a failure)
    because the Spark JVM's heap was too small."""
    if error is not None and any(words in _text(error) for words in OUT_OF_MEMORY_WORDS):
        return True
    return _jvm_exit_code() == OOM_EXIT_CODE


def end_jvm() -> None:
    """End this process's Spark JVM, of no use once out of memory, and what listens to it,
    so that nothing either prints comes after the command's own last line: the JVM logs
    its dying tasks' errors while it exits, and pyspark's accumulator server prints a
    traceback when the JVM's connection to it closes."""
    from pyspark import SparkContext

    proc = _jvm_process()
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    context = SparkContext._active_spark_context
    server = getattr(context, "_accumulatorServer", None)
    if server is not None:
        server.shutdown()  # returns once its handler has seen the connection close


def advice(heap: str) -> str:
    """What to tell the user whose command ran out of memory with a heap of `heap`."""
    return (f"Spark ran out of memory: its heap is {heap} (CDC_DRIVER_MEMORY). Run the command again "
            f"with a larger heap, e.g. CDC_DRIVER_MEMORY={doubled(heap)}")


def doubled(heap: str) -> str:
    """Twice a JVM memory size (`512m` -> `1024m`); `heap` itself when it is not one."""
    size = re.fullmatch(r"(\d+)([kmgtKMGT]?)", heap.strip())
    return f"{2 * int(size.group(1))}{size.group(2)}" if size else heap


def _text(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # a Py4JJavaError of a JVM that has gone cannot print itself
        return ""


def _jvm_exit_code() -> int | None:
    """The exit code of this process's Spark JVM; None while it runs and answers, or when
    this process started none."""
    proc = _jvm_process()
    if proc is None:
        return None
    if proc.poll() is None:
        if not _jvm_exiting():
            return None
        try:
            proc.wait(timeout=EXIT_WAIT_S)
        except subprocess.TimeoutExpired:
            return None
    return int(proc.returncode)


def _jvm_exiting() -> bool:
    """True when this process's Spark JVM no longer answers, or answers with its
    SparkContext stopped: an exit (the OutOfMemoryError's) runs the JVM's shutdown hooks,
    which stop the context first, and the command's call fails (`Job 0 cancelled because
    SparkContext was shut down`, or an internal error of the stopped scheduler) while the
    JVM still answers. No `cdc` command stops its context before it ends."""
    from pyspark import SparkContext

    context = SparkContext._active_spark_context
    try:
        if context is None:
            SparkContext._gateway.jvm.java.lang.System.nanoTime()  # type: ignore[union-attr]
            return False
        return bool(context._jsc.sc().isStopped())
    except Exception:  # py4j: no connection, the JVM is on its way out
        return True


def _jvm_process() -> subprocess.Popen | None:
    """The Spark JVM this process started; None when it started none."""
    if "pyspark" not in sys.modules:
        return None
    from pyspark import SparkContext

    return getattr(SparkContext._gateway, "proc", None)
