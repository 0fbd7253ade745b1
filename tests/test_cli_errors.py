"""`cdc` when things go wrong: one line on stderr, an exit code that says what happened
(0 ok, 1 build or test failed, 2 usage error, 3 CDC_HOME busy), and no Spark start for
what can be checked without it. Each command runs in its own process, as a user types it."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cdclake import build_record, cli, home_lock, memory
from process_support import BIN, PROJECT, SAMPLES, home_env, run as run_process

# failures found before the Spark session starts; a Spark start alone takes 15-20 s
FAST_SECONDS = 10


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("cli-errors-home")


def run(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.monotonic()
    done = run_process(home, *args, check=False, env=env)
    return done, time.monotonic() - started


def _busy_line(home: Path) -> str:
    return (f"error: another cdc process (pid {os.getpid()}) is using CDC_HOME {home}; "
            "wait for it or run with --wait")


def test_a_busy_home_fails_at_once_with_one_line(home):
    lock = home_lock.acquire(home)
    try:
        done, seconds = run(home, "cdc", "sql", "select 1")
    finally:
        lock.close()
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines() == [_busy_line(home)]
    assert seconds < FAST_SECONDS


def test_plain_dbt_on_a_busy_home_says_so_without_a_traceback(home):
    lock = home_lock.acquire(home)
    try:
        done, seconds = run(home, "dbt", "build", "--profiles-dir", "profiles")
    finally:
        lock.close()
    assert done.returncode != 0
    # dbt's way: "Encountered an error:", "Runtime Error", then our line
    assert _busy_line(home).removeprefix("error: ") in [line.strip() for line in done.stdout.splitlines()]
    assert "Traceback" not in done.stdout + done.stderr
    assert seconds < 30  # dbt's own start, no Spark


def test_wait_blocks_until_the_home_is_free(home):
    lock = home_lock.acquire(home)
    waiting = subprocess.Popen([str(BIN / "cdc"), "--wait", "sql", "select 1 as n"], cwd=PROJECT,
                               env=home_env(home), text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert select.select([waiting.stderr], [], [], FAST_SECONDS)[0], "no waiting line"
        assert waiting.stderr.readline() == f"waiting for pid {os.getpid()} to release CDC_HOME {home} ...\n"
        time.sleep(2)
        assert waiting.poll() is None
    finally:
        lock.close()
    out, err = waiting.communicate(timeout=600)
    assert waiting.returncode == 0, err
    assert "| n |" in out and "(1 row)" in out
    assert "waiting for" not in err


@pytest.mark.parametrize("argv, message", [
    (["land", "/nonexistent"], "no such file: /nonexistent"),
    (["land", "{dir}"], "{dir} is a directory: give the files in it (e.g. {dir}/*.jsonl)"),
    (["land", "/dev/null"], "/dev/null is not a regular file"),
    (["land", "{file}", "--format", "nope"], "unknown format 'nope'; known formats: canal_json, "),
    (["nosuchcommand"], "argument command: invalid choice: 'nosuchcommand'"),
    (["land"], "the following arguments are required: FILE"),
])
def test_argument_errors_are_one_line_and_fast(home, tmp_path, argv, message):
    records = tmp_path / "records.jsonl"
    records.write_text('{"topic": "t", "value": "v"}\n', encoding="utf-8")
    fill = {"dir": str(tmp_path), "file": str(records)}
    done, seconds = run(home, "cdc", *[arg.format(**fill) for arg in argv])
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"error: {message.format(**fill)}")
    assert seconds < FAST_SECONDS


def test_wait_goes_before_or_after_the_command_and_never_to_dbt():
    assert cli.parse_args(["build", "--wait", "-s", "gold"]).dbt_args == ["-s", "gold"]
    assert cli.parse_args(["build", "-s", "gold", "--wait"]).wait
    both = cli.parse_args(["--wait", "dbt", "test", "-s", "gold"])
    assert both.wait and both.dbt_args == ["test", "-s", "gold"]
    assert cli.parse_args(["dbt", "--wait", "debug"]).dbt_args == ["debug"]
    assert not cli.parse_args(["sql", "select 1"]).wait


def test_a_failed_dbt_command_is_one_line(monkeypatch, tmp_path, capsys):
    def fail(args):
        raise SystemExit("dbt failed: Parsing Error\n  Error reading cdc_lakehouse: models/x.yml")

    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    monkeypatch.setattr(cli, "_cmd_dbt", fail)
    assert cli.main(["dbt", "parse"]) == 1
    assert capsys.readouterr().err == \
        "error: dbt failed: Parsing Error Error reading cdc_lakehouse: models/x.yml\n"


def _spark_error(done: subprocess.CompletedProcess[str]) -> str:
    """The error line of a command that started Spark (whose JVM says a few words first)."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "SQLQueryContextLogger" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert errors == [done.stderr.splitlines()[-1]]
    return errors[0]


def test_cdc_sql_with_a_syntax_error_is_a_usage_error(home):
    done, _ = run(home, "cdc", "sql", "selec 1")
    assert _spark_error(done).startswith("error: [PARSE_SYNTAX_ERROR] Syntax error at or near 'selec'")


def test_cdc_sql_of_an_unknown_table_is_a_usage_error(lake, capsys):
    # in this process, on the session's lake: what the syntax error's process shows of a
    # query Spark rejects holds for any, and a cold JVM costs 15-30 CPU-s
    assert cli.main(["sql", "select * from gold.no_such_table"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "SQLQueryContextLogger" not in err
    assert err.startswith(
        "error: [TABLE_OR_VIEW_NOT_FOUND] The table or view `gold`.`no_such_table` cannot be found."), err
    assert err.count("\n") == 1, err


def test_a_moved_state_folder_is_refused_before_it_touches_the_old_one(home, tmp_path):
    """The metastore keeps absolute table folders: a copy of a state folder would land into
    (and build from) the original's tables. It is refused, one line, and nothing is landed."""
    if not (home / "metastore_db").is_dir():
        run(home, "cdc", "sql", "select 1")
    bronze = home / "warehouse" / "bronze.db" / "kafka_messages"
    batches = sorted(bronze.glob("landing_batch_id=*"))
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)
    done, _ = run(copy, "cdc", "land", str(SAMPLES / "canal_inventory.ndjson"), "--topic", "demo.canal.inventory")
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"error: CDC_HOME {copy} was moved or copied: its metastore keeps the tables in {home / 'warehouse'}, "
        f"not in {copy / 'warehouse'}, and would read and write them there. "
        "Move it back, or land the records again into a new CDC_HOME")
    assert sorted(bronze.glob("landing_batch_id=*")) == batches
    assert not list((copy / "warehouse" / "bronze.db" / "kafka_messages").glob("landing_batch_id=*"))


def test_cdc_build_of_an_empty_lake_builds_nothing(tmp_path):
    done, _ = run(tmp_path, "cdc", "build")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ("nothing to build: bronze.kafka_messages is empty "
                           "(land records with `cdc land` first)\n")
    # bronze has no landing batch folder: neither Spark (no metastore) nor dbt started
    assert not (tmp_path / "metastore_db").exists() and not (tmp_path / "dbt-target").exists()


def _closed_pipe() -> int:
    """The writing end of a pipe whose reader has gone (`| head` after its lines)."""
    read, write = os.pipe()
    os.close(read)
    return write


def test_output_into_a_closed_pipe_ends_the_command_without_a_traceback(tmp_path):
    """As `git log | head`: the exit code of a command SIGPIPE ended, and nothing on stderr
    (the line `cdc build` has to say stays in its buffer until the process ends)."""
    # buffered output, whatever this environment says
    env = {name: value for name, value in home_env(tmp_path).items() if name != "PYTHONUNBUFFERED"}
    pipe = _closed_pipe()
    try:
        done = subprocess.run([str(BIN / "cdc"), "build"], cwd=PROJECT, env=env, stdout=pipe,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    finally:
        os.close(pipe)
    assert done.returncode == cli.EXIT_OUTPUT_CLOSED == 141, done.stderr
    assert done.stderr == ""


def test_a_pipe_closed_while_the_command_prints_ends_it_there(tmp_path, monkeypatch):
    """A write that fails in the middle of a command's output (each line written at once)."""
    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    with open(_closed_pipe(), "w", buffering=1) as stdout:
        monkeypatch.setattr("sys.stdout", stdout)
        assert cli.main(["build"]) == cli.EXIT_OUTPUT_CLOSED


def test_another_broken_pipe_is_a_failure_of_its_own(tmp_path, monkeypatch):
    """A pipe that breaks while stdout is fine (the JVM's, a broker's) is not taken for a
    reader that went away: it fails the command as any error does."""
    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    monkeypatch.setattr(cli, "_cmd_build", broken)
    read, write = os.pipe()
    try:
        with open(write, "w", buffering=1) as stdout:
            monkeypatch.setattr("sys.stdout", stdout)
            with pytest.raises(BrokenPipeError):
                cli.main(["build"])
    finally:
        os.close(read)


def test_cdc_build_with_nothing_new_starts_no_spark(tmp_path, monkeypatch):
    """The record a whole build leaves (test_checked_batches builds one) says batch 3 was built
    and checked with this project, and bronze has no batch folder above it: `cdc build` says
    so in a moment, with no metastore, no dbt target; a batch folder above it makes it build."""
    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    bronze = tmp_path / "warehouse" / "bronze.db" / "kafka_messages"
    for batch in (1, 3):
        (bronze / f"landing_batch_id={batch}").mkdir(parents=True)
    build_record.record(3, build_record.project_digest())
    done, seconds = run(tmp_path, "cdc", "build")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("nothing to build: the last build built and checked every landing batch "
                                  "(through 3) with this project"), done.stdout
    assert seconds < FAST_SECONDS
    assert not (tmp_path / "metastore_db").exists() and not (tmp_path / "dbt-target").exists()
    assert build_record.last_landed_folder() == 3 and build_record.nothing_new(3, [], False)
    (bronze / "landing_batch_id=4").mkdir()  # what a landing (or a killed one) leaves
    assert build_record.last_landed_folder() == 4 and not build_record.nothing_new(4, [], False)


def test_cdc_docs_of_a_lake_never_built_says_to_build_first(tmp_path):
    done, _ = run(tmp_path, "cdc", "docs")
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        1, "no lake to document yet: run `cdc build` (or `cdc demo`) first")
    assert not (tmp_path / "metastore_db").exists()  # said without starting Spark


@pytest.mark.parametrize("argv, message", [
    (("status",), "no status yet: land records and run `cdc build` first"),
    (("status", "--lag"), "no lag yet: run `cdc build` once"),
])
def test_cdc_status_of_a_lake_never_built_says_to_build_first(tmp_path, argv, message):
    done, seconds = run(tmp_path, "cdc", *argv)
    assert (done.returncode, done.stderr.splitlines()[-1]) == (1, message)
    assert seconds < FAST_SECONDS
    assert not (tmp_path / "metastore_db").exists()  # said without starting Spark


def test_a_session_without_the_jars_says_how_to_fetch_them(tmp_path):
    done, seconds = run(tmp_path, "cdc", "sql", "select 1", env={"CDC_JARS": str(tmp_path / "no-jars")})
    assert (done.returncode, done.stderr.splitlines()[-1]) == (
        1, f"error: no JVM jars in {tmp_path / 'no-jars'}: run `make setup` (it fetches them with Maven "
           f"from pom.xml), or `mvn -q -B dependency:copy-dependencies -Dcdc.jars={tmp_path / 'no-jars'}` "
           "in the project")
    assert seconds < FAST_SECONDS


def _advice_line(heap: str, more: str) -> str:
    return (f"error: Spark ran out of memory: its heap is {heap} (CDC_DRIVER_MEMORY). Run the command again "
            f"with a larger heap, e.g. CDC_DRIVER_MEMORY={more}")


def test_a_landing_that_exhausts_the_heap_says_to_raise_it(tmp_path):
    # one Canal message of 200 MB: the task that reads it needs buffers of its size that a
    # 512m heap cannot hold, and the JVM exits (Spark's exit code 52). Three messages of 40
    # MB each exhausted the heap too, but a copy at a time: the collector ran nearly full
    # for 17-60 s, and once, in the whole suite, for 360 s; this one fails in 12-14 s (22-24 s
    # beside two busy loops)
    records = tmp_path / "big.jsonl"
    value = {"type": "INSERT", "database": "d", "table": "t", "pkNames": ["id"], "isDdl": False,
             "es": 1_700_000_000_000, "ts": 1_700_000_000_000, "mysqlType": {"id": "int", "txt": "longtext"},
             "data": [{"id": "1", "txt": "x" * 200_000_000}], "old": None}
    records.write_text(json.dumps({"topic": "big", "partition": 0, "offset": 0, "value": json.dumps(value)}) + "\n",
                       encoding="utf-8")
    done, _ = run(tmp_path / "home", "cdc", "land", str(records), "--format", "canal_json",
                  env={"CDC_DRIVER_MEMORY": "512m"})
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1] == _advice_line("512m", "1024m"), done.stderr[-3000:]


def test_a_call_that_fails_while_the_jvm_exits_out_of_memory_says_to_raise_the_heap(tmp_path):
    # what the landing above meets about one time in four: the JVM's exit (Spark's exit code
    # for an OutOfMemoryError, here called by a task) stops the SparkContext first, and the
    # command's call fails with "SparkContext was shut down", no OutOfMemoryError in its
    # text, while the JVM still answers
    done, _ = run(tmp_path, "cdc", "sql", "select java_method('java.lang.System', 'exit', 52)",
                  env={"CDC_DRIVER_MEMORY": "1g"})
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1] == _advice_line("1g", "2g"), done.stderr[-3000:]


def test_a_heap_too_small_for_spark_to_start_says_to_raise_it(tmp_path):
    done, _ = run(tmp_path, "cdc", "sql", "select 1", env={"CDC_DRIVER_MEMORY": "256m"})
    assert done.returncode == 1, done.stderr[-3000:]
    assert done.stderr.splitlines()[-1] == _advice_line("256m", "512m"), done.stderr[-3000:]


@pytest.mark.parametrize("heap, more", [("4g", "8g"), ("768m", "1536m"), ("2G", "4G"), ("1.5g", "1.5g")])
def test_the_advice_doubles_the_heap(heap, more):
    assert memory.doubled(heap) == more
