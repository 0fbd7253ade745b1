"""The embedded Spark session: one per process, with the project's UDFs registered.

The settings are the `server_side_parameters` of the `local` target in
`profiles/profiles.yml`: one source for `cdc`, the dbt plugin and dbt-spark itself.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cdclake import build_record, class_archive, home_lock, jars, paths

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_session: SparkSession | None = None


class MovedHomeError(RuntimeError):
    """The state folder was moved or copied: its metastore names the folders of another."""


def _profile() -> dict:
    """The project's dbt profile, rendered, with `$CDC_HOME` absolute."""
    import jinja2
    import yaml

    home = str(paths.cdc_home())

    def env_var(name: str, default: str | None = None) -> str:
        if name == "CDC_HOME":
            return home
        value = os.environ.get(name, default)
        if value is None:
            raise KeyError(f"profiles.yml needs the environment variable {name}")
        return value

    text = (paths.PROFILES_DIR / "profiles.yml").read_text(encoding="utf-8")
    env = jinja2.Environment()
    env.filters["as_number"] = lambda value: value
    return yaml.safe_load(env.from_string(text).render(env_var=env_var))["cdc_lakehouse"]


def target_method(target: str | None = None) -> str:
    """dbt-spark connection method of `target` (default: the profile's default target)."""
    profile = _profile()
    return str(profile["outputs"][target or profile["target"]]["method"])


def spark_settings(target: str = "local") -> dict[str, str]:
    """The profile's `server_side_parameters` for `target`, with `$CDC_HOME` absolute."""
    outputs = _profile()["outputs"][target]
    return {str(k): str(v) for k, v in outputs.get("server_side_parameters", {}).items()}


def driver_heap() -> str:
    """The JVM heap of the embedded session: CDC_DRIVER_MEMORY, else the profile's default."""
    return spark_settings()["spark.driver.memory"]


def session_settings() -> dict[str, str]:
    """The settings of the embedded session: the profile's, the project's jars on the
    driver's class path and its Spark plugin (cdclake.jars), and JVM options for the log
    settings in conf/log4j2.properties and for the class archive (cdclake.class_archive).

    The log settings are a system property rather than SPARK_CONF_DIR: a folder with
    files on the class path would keep the JVM from using the archive."""
    settings = spark_settings()
    class_paths = [settings.get("spark.driver.extraClassPath", ""), jars.class_path()]
    settings["spark.driver.extraClassPath"] = ":".join(path for path in class_paths if path)
    plugin = jars.plugin_class()
    if plugin:
        settings["spark.plugins"] = ",".join(p for p in (settings.get("spark.plugins"), plugin) if p)
    log4j = shlex.quote(f"-Dlog4j2.configurationFile={paths.PROJECT_DIR / 'conf' / 'log4j2.properties'}")
    options = [settings.get("spark.driver.extraJavaOptions", ""), log4j, class_archive.java_options()]
    settings["spark.driver.extraJavaOptions"] = " ".join(option for option in options if option)
    return settings


def _check_not_moved(session: SparkSession) -> None:
    """Raise MovedHomeError when the metastore puts bronze's folder outside this home's
    warehouse. The metastore keeps the absolute folder of every database and table: a
    state folder moved or copied elsewhere would read and write the tables of the old
    place (or create them there again), not its own."""
    from urllib.parse import unquote, urlparse

    recorded = Path(unquote(urlparse(session.catalog.getDatabase("bronze").locationUri).path))
    expected = paths.database_dir("bronze")
    if os.path.realpath(recorded) != os.path.realpath(expected):
        raise MovedHomeError(
            f"CDC_HOME {paths.cdc_home()} was moved or copied: its metastore keeps the tables in "
            f"{recorded.parent}, not in {expected.parent}, and would read and write them there. "
            "Move it back, or land the records again into a new CDC_HOME")


# The environment the session's JVM starts with (unless already set). glibc's malloc
# serves a large block from its heap rather than from a mapping of its own once a block
# that size has been freed (its threshold rises up to 32 MB), and keeps what a freed block
# leaves in its heap: the megabyte buffers of file reads (profiles.yml,
# jdk.nio.maxCachedBufferSize) stayed in the JVM's memory after they were freed. With a
# fixed threshold of 1 MB, each is mapped and unmapped: a build of 1M Canal events peaked
# at 1,998 MB instead of 2,188 MB (the cap alone: 2,195 MB; neither: 2,210 MB).
JVM_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": str(1 << 20)}

# JVM options (CDC_DRIVER_JAVA_OPTIONS) for a process that runs a build or two and ends: the
# profile's parallel collector and the C1 compiler alone. A cold JVM spends most of its CPU
# compiling Spark's code, and C2's compilations pay off only in a process that runs long
# (the class archive's training: 61-63 s and 71-74 CPU-s instead of 69 s and 106). C1
# alone also shrinks the code cache to 48 MB, which a whole build can fill (the JVM then
# fails with "Out of space in CodeCache for method handle intrinsic"): it keeps the 240 MB
# it has with both compilers.
SHORT_RUN_JAVA_OPTIONS = "-XX:+UseParallelGC -XX:TieredStopAtLevel=1 -XX:ReservedCodeCacheSize=240m"

# The most new input with which `cdc land` (the files it lands) and a `cdc build` that goes
# on from the last one (bronze's files in the landing batches after it:
# build_record.new_bytes) start their JVM with SHORT_RUN_JAVA_OPTIONS, unless the
# environment sets CDC_DRIVER_JAVA_OPTIONS. Cold processes on 2 cores, the profile's default
# against C1 alone, onto the 1M Canal events of bench/bench_canal.py landed as canal_json
# (96 MB of bronze, 673 MB of files), then more events on the same keys:
#   cdc land of 1% more (6 MB of files):   18.9 s, 34 CPU-s against 12.7 s, 17 CPU-s
#   cdc land of 30% more (190 MB):         22.8 s, 42 CPU-s against 23.3 s, 39 CPU-s
#   cdc land of all 1M (673 MB):           39.2 s against 56.0 s, 90 CPU-s
#   cdc build of 1% more (0.8 MB):         104-106 s, 195-200 CPU-s against 92-102 s, 125-140
#   cdc build of 10% more (7.8 MB):        131.4 s, 249 CPU-s against 130.4 s, 203 CPU-s
#   the first cdc build of all 1M:         230.5 s, 415 CPU-s against 407.0 s, 674 CPU-s
# C2 compiles on a core that the build leaves idle, and its code decodes faster: a build
# that creates the tables keeps the default (a full refresh of the 12 formats' samples, 233
# kB: 105 s against 110-118 s with C1; `cdc demo` 131-135 s against 152-153 s).
SHORT_LAND_BYTES = 64 << 20
SHORT_BUILD_BYTES = 4 << 20


def prefer_short_run(work_bytes: int, limit: int) -> bool:
    """Before the session starts: give its JVM SHORT_RUN_JAVA_OPTIONS when the command's
    new input, `work_bytes`, is at most `limit` and CDC_DRIVER_JAVA_OPTIONS is unset (the
    profile's default then applies, as it does to a command with more). True when it did."""
    if "CDC_DRIVER_JAVA_OPTIONS" in os.environ or work_bytes > limit:
        return False
    os.environ["CDC_DRIVER_JAVA_OPTIONS"] = SHORT_RUN_JAVA_OPTIONS
    return True


# How Spark runs a query's expressions and operators: in Java code it generates for the
# query (compiled by Janino, then by the JVM) or in its interpreted expressions. The code
# costs its compilation at every new query and repays it over many rows; a build runs some
# 650 queries, so a small lake is built faster without it. Whole-stage code generation off
# (a public setting) gave half the gain; the rest comes from Spark's factory mode
# NO_CODEGEN, an internal setting (its own tests use it) that Spark has read since 2.4.
# Measured with both off against Spark's defaults, on 2 cores:
#   four samples (230 kB of bronze), a first build in a process of C1 alone:
#     69.5 s and 95 CPU-s against 78.4 s and 109 (3 runs each)
#   100k Canal events of bench/bench_canal.py (10 MB of bronze): the first build 95.5 s
#     against 100.4 s; a build of 1% more 72-75 s against 80-86 s
#   1M Canal events (96 MB of bronze): a build of 1% more 102-105 s against 88-92 s (slower)
#   tests/test_untyped_lake.py in a new test session: 96-102 s against 115-117 s
# and, in one warm session, each `dbt build` again from a copy of the lake before it (2-3
# runs each):
#   300k Canal events (28 MB of bronze), a build of 1% more: 21.3-26.2 s against 19.0-22.8 s
#   the tests' examples lake (69k messages of 12 formats in 24 MB of bronze, large ones
#     among them: Debezium schemas, three 10 MB strings): its first build 60.4 s against
#     64.5 s (in a new process 131.6 s against 139.3 s), its second 52.5-55.4 s against
#     63.5-64.2 s, its third 38.3-38.5 s against 42.5 s
# What the code repays grows with the rows a build reads: bronze's messages tell it, its
# bytes do not (the examples lake's are few and large). Between 100k messages (faster
# without the code) and 300k (a little slower), a lake of at most SMALL_LAKE_MESSAGES
# messages in bronze is built and queried without generated code, unless the profile sets
# either setting (its choice then holds). Decided when the session starts and again before
# each dbt run (cdclake.dbt_invoke): `cdc run` and the tests' session go on with a lake that
# grows or is reset. A landing's work grows with the bytes it parses: it runs without
# generated code while bronze's files and the files it lands hold at most
# SMALL_LANDING_BYTES (cdclake.landing): the tests' examples lake, 130 MB of files into an
# empty lake, landed in 35.4 s interpreted and in 25.0 s on generated code; 300k Canal
# events (202 MB) into an empty lake in 21.1 s against 19.3 s.
SMALL_LAKE_MESSAGES = 200_000
SMALL_LANDING_BYTES = 16 << 20
FACTORY_MODE = "spark.sql.codegen.factoryMode"
INTERPRETED = {"spark.sql.codegen.wholeStage": "false", FACTORY_MODE: "NO_CODEGEN"}
GENERATED = {"spark.sql.codegen.wholeStage": "true", FACTORY_MODE: "FALLBACK"}


def codegen_settings(small: bool, profile: dict[str, str]) -> dict[str, str]:
    """The code generation settings for a small lake (`small`: INTERPRETED) or a larger one
    (GENERATED); none when `profile` (the profile's settings) sets either."""
    if profile.keys() & INTERPRETED.keys():
        return {}
    return INTERPRETED if small else GENERATED


# Spark's interpreted objects cannot build the catalog's `Table` (its namespace, an array of
# strings, reaches the constructor as an array of objects): `spark.catalog.listTables()`
# failed on a small lake with EXPRESSION_DECODING_FAILED ("argument type mismatch"). The
# catalog's other listings and look-ups work interpreted.
def _list_tables_on_generated_code(session: SparkSession) -> None:
    """Make `session.catalog.listTables` run with Spark's default factory mode (generated
    code, interpreted when it fails) for its call when the session runs interpreted, and
    set the session's mode back after it."""
    catalog = session.catalog
    list_tables = catalog.listTables

    @functools.wraps(list_tables)
    def listed(*args: Any, **kwargs: Any) -> Any:
        mode = session.conf.get(FACTORY_MODE, None)
        if mode != INTERPRETED[FACTORY_MODE]:
            return list_tables(*args, **kwargs)
        session.conf.set(FACTORY_MODE, GENERATED[FACTORY_MODE])
        try:
            return list_tables(*args, **kwargs)
        finally:
            session.conf.set(FACTORY_MODE, mode)

    catalog.listTables = listed  # type: ignore[method-assign]


def fit_codegen(session: SparkSession, landing: int = 0) -> None:
    """Give `session` the code generation settings for the lake as it is now (at most
    SMALL_LAKE_MESSAGES in bronze is small), or, while a landing of `landing` bytes of
    files runs, for that landing (at most SMALL_LANDING_BYTES of files in bronze with its
    files is small)."""
    if landing:
        small = build_record.landed_bytes() + landing <= SMALL_LANDING_BYTES
    else:
        small = build_record.landed_messages(stop_above=SMALL_LAKE_MESSAGES) <= SMALL_LAKE_MESSAGES
    for key, value in codegen_settings(small, spark_settings()).items():
        session.conf.set(key, value)


def get_session() -> SparkSession:
    """Create (once) the embedded session and register the project's UDFs.

    First locks `$CDC_HOME` for this process (cdclake.home_lock): raises HomeBusyError
    when another process uses it. Then, holding the lock, removes what a killed build
    left behind (cdclake.recovery): its temporary files before the JVM starts, its table
    folders after, so that building again recovers it.
    """
    global _session
    if _session is not None:
        return _session
    home_lock.hold(paths.cdc_home())
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    for name, value in JVM_ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    from pyspark.sql import SparkSession

    from cdclake.landing import ensure_bronze
    from cdclake.recovery import empty_scratch_dir, remove_orphan_table_folders
    from udfs import register_all

    empty_scratch_dir()

    builder = SparkSession.builder.enableHiveSupport()
    for key, value in session_settings().items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    for schema in ("bronze", "silver", "gold"):
        if not session.catalog.databaseExists(schema):
            session.sql(f"create database {schema}")
    _check_not_moved(session)
    remove_orphan_table_folders(session, paths.warehouse_dir())
    # an empty lake builds too (every model empty): the bronze table exists from the start
    ensure_bronze(session)
    register_all(session)
    fit_codegen(session)
    _list_tables_on_generated_code(session)
    _session = session
    return session
