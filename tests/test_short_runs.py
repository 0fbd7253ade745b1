"""Which `cdc` commands start their JVM with the C1 compiler alone (cdclake.runtime's
SHORT_RUN_JAVA_OPTIONS): a `cdc land` of few bytes, and a `cdc build` that goes on from the
last one with few new bytes; every other command, and any command when the environment
sets CDC_DRIVER_JAVA_OPTIONS, keeps those of the profile. Decided before Spark starts, so
checked here without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cdclake import build_record, cli
from cdclake.runtime import SHORT_BUILD_BYTES, SHORT_LAND_BYTES, SHORT_RUN_JAVA_OPTIONS, prefer_short_run

OPTIONS = "CDC_DRIVER_JAVA_OPTIONS"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A state folder whose bronze holds landing batches 1-3, of 1,000 bytes each, the
    last whole build having checked batch 1; CDC_DRIVER_JAVA_OPTIONS unset."""
    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    monkeypatch.setenv(OPTIONS, "")  # so that the variable the tests set is removed after them
    monkeypatch.delenv(OPTIONS)
    for batch in (1, 2, 3):
        add_batch(tmp_path, batch, 1_000)
    build_record.record(1, build_record.project_digest())
    return tmp_path


def add_batch(home: Path, batch: int, size: int) -> None:
    """A landing batch folder in bronze with a file of `size` bytes (sparse: no disk used)."""
    folder = home / "warehouse" / "bronze.db" / "kafka_messages" / f"landing_batch_id={batch}"
    folder.mkdir(parents=True)
    with (folder / "part-00000.snappy.parquet").open("wb") as file:
        file.truncate(size)


def chosen(*argv: str) -> str | None:
    """The JVM options `cdc argv` gives its session (None: the profile's)."""
    cli.choose_jvm(cli.parse_args(list(argv)))
    return os.environ.get(OPTIONS)


def test_a_build_of_few_new_bytes_runs_on_c1_alone(home: Path):
    assert build_record.new_bytes([], False) == 2_000  # batches 2 and 3, after the checked one
    assert chosen("build") == SHORT_RUN_JAVA_OPTIONS
    assert "-XX:TieredStopAtLevel=1" in SHORT_RUN_JAVA_OPTIONS.split()


def test_a_build_of_many_new_bytes_keeps_the_profiles_options(home: Path):
    add_batch(home, 4, SHORT_BUILD_BYTES)
    assert build_record.new_bytes([], False) == SHORT_BUILD_BYTES + 2_000
    assert chosen("build") is None


@pytest.mark.parametrize("argv", [["build", "--full-check"], ["build", "--full-refresh"], ["build", "-s", "gold"]])
def test_a_build_that_may_read_every_batch_keeps_the_profiles_options(home: Path, argv: list[str]):
    assert build_record.new_bytes(argv[1:], "--full-check" in argv) is None
    assert chosen(*argv) is None


def test_the_first_build_keeps_the_profiles_options(home: Path):
    # it creates every table: C2 pays off there (the samples' full refresh 105 s against 110-118 s)
    (home / "warehouse" / "bronze.db" / "kafka_messages" / "_cdc_build_record.json").unlink()
    assert build_record.new_bytes([], False) is None
    assert chosen("build") is None


def test_a_landing_of_few_bytes_runs_on_c1_alone_and_of_many_keeps_the_profiles(home: Path, tmp_path: Path):
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_text("{}\n")
    with large.open("wb") as file:
        file.truncate(SHORT_LAND_BYTES + 1)
    assert chosen("land", str(small)) == SHORT_RUN_JAVA_OPTIONS
    os.environ.pop(OPTIONS)
    assert chosen("land", str(small), str(large)) is None


@pytest.mark.parametrize("argv", [["sql", "select 1"], ["status"], ["dbt", "parse"]])
def test_other_commands_keep_the_profiles_options(home: Path, argv: list[str]):
    assert chosen(*argv) is None


def test_options_the_environment_sets_are_kept(home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(OPTIONS, "-XX:+UseG1GC")
    assert chosen("build") == "-XX:+UseG1GC"
    assert not prefer_short_run(0, SHORT_BUILD_BYTES)
    monkeypatch.delenv(OPTIONS)
    assert not prefer_short_run(SHORT_BUILD_BYTES + 1, SHORT_BUILD_BYTES) and OPTIONS not in os.environ
    assert prefer_short_run(SHORT_BUILD_BYTES, SHORT_BUILD_BYTES) and os.environ[OPTIONS] == SHORT_RUN_JAVA_OPTIONS
