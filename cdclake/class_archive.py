"""A class-data-sharing archive of Spark's classes: every `cdc` process starts faster.

A JVM that starts Spark loads and verifies thousands of classes from pyspark's 279 jars;
on 2 cores that is about 5 of the 13 seconds `cdc sql "select 1"` took (8 s with the
archive), and a cold `cdc build` loads thousands more. `make setup` runs this module
once (`python -m cdclake.class_archive`): a training session with
`-XX:ArchiveClassesAtExit` lands a sample and builds it (about 62 s on 2 cores), and its
JVM writes the classes it loaded into an archive beside the Python environment; every
later session maps them from there with `-XX:SharedArchiveFile`. Without the archive (a
plain `pip install`) nothing changes but the start-up time. The JVM checks the archive
against its own version and class path and ignores one that does not match (a
reinstalled pyspark, another JDK): run the module again then.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from cdclake import paths

# unified-logging tags of class data sharing: a mismatched archive is ignored in silence
_QUIET = "-Xlog:cds=off -Xlog:cds+dynamic=off"

# set for the training session only: where its JVM writes the archive
_TRAINING_ENV = "CDC_CLASS_ARCHIVE_TRAINING"

# what the training session does: what `cdc land` and `cdc build` do, over a bundled
# sample of Canal JSON with DDL (bronze's Parquet, the decoders, the Python UDFs, Delta's
# writes and MERGEs); then end the JVM (it exits when its stdin closes) and wait while it
# writes the archive. The build leaves out the data tests: the training took 69 s instead
# of 80, and the tests' user home (a sequence of `cdc` commands) ran as fast with that
# archive (90 s against 94 s with one trained on the tests too). A session that only
# started Spark and wrote a table left out thousands of the classes a build loads
# (Delta's, Catalyst's rules, Janino's): a cold `cdc build` of four samples took 9% longer
# with that archive (92 s against 84 s, means of 4 alternating runs each; 2 of the 4 with
# an archive trained on the demo).
_TRAINING = """
from pyspark import SparkContext
from cdclake.cli import main
from cdclake.runtime import get_session
spark = get_session()
assert main(["land", "samples/canal_inventory.ndjson", "--topic", "demo.canal.inventory"]) == 0
assert main(["build", "--exclude", "resource_type:test"]) == 0
jvm = SparkContext._gateway.proc
spark.stop()
jvm.stdin.close()
jvm.wait()
"""


def archive_path() -> Path:
    """Where the archive of this Python environment lives."""
    return Path(sys.prefix) / "share" / "cdc-lakehouse" / "spark-classes.jsa"


def java_options() -> str:
    """The JVM options that use the archive, or "" when there is none (in the training
    session: the options that write it)."""
    training_to = os.environ.get(_TRAINING_ENV)
    if training_to:
        return f"{shlex.quote(f'-XX:ArchiveClassesAtExit={training_to}')} {_QUIET}"
    archive = archive_path()
    if not archive.is_file():
        return ""
    return f"{shlex.quote(f'-XX:SharedArchiveFile={archive}')} {_QUIET}"


def training_env(home: Path, partial: Path) -> dict[str, str]:
    """The training session's environment: its state, dbt's target and logs in `home`, the
    archive written to `partial`, its JVM on C1 alone (the compiler changes no class it
    loads) unless the environment sets CDC_DRIVER_JAVA_OPTIONS."""
    from cdclake.runtime import SHORT_RUN_JAVA_OPTIONS  # runtime imports this module

    return {**os.environ, "CDC_HOME": str(home), "DBT_TARGET_PATH": str(home / "dbt-target"),
            "DBT_LOG_PATH": str(home / "dbt-logs"), _TRAINING_ENV: str(partial),
            "CDC_DRIVER_JAVA_OPTIONS": os.environ.get("CDC_DRIVER_JAVA_OPTIONS", SHORT_RUN_JAVA_OPTIONS)}


def create() -> Path:
    """Write the archive (replacing one there): a training session (training_env) with its
    state in a temporary folder; the JVM writes the archive when it exits."""
    target = archive_path()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    home = Path(tempfile.mkdtemp(prefix="cdc-class-archive-"))
    env = training_env(home, partial)
    try:
        done = subprocess.run([sys.executable, "-c", _TRAINING], cwd=paths.PROJECT_DIR, env=env,
                              capture_output=True, text=True, timeout=900)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    if done.returncode != 0 or not partial.is_file():
        raise RuntimeError(f"the training session wrote no archive (exit {done.returncode}):\n"
                           f"{done.stderr[-3000:]}")
    partial.replace(target)
    return target


def main() -> int:
    target = create()
    print(f"class archive: {target} ({target.stat().st_size // 2**20} MiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
