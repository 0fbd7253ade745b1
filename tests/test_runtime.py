"""The embedded session: ANSI mode off as under dbt, the parallel garbage collector
(CDC_DRIVER_JAVA_OPTIONS), few finished queries kept, the log settings of
conf/log4j2.properties, Spark's classes mapped from the archive `make setup` writes
(cdclake/class_archive.py), Delta Lake from the jars it fetches (pom.xml, cdclake/jars.py),
Spark's interpreted expressions for a small lake and its generated code for a larger one
(the catalog's table listing on generated code),
the project's Spark plugin it compiles (jvm/), the tests' own heap, and the temporary
files in the state folder, not in /tmp."""

from __future__ import annotations

import mmap
import os
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pytest

from cdclake import class_archive, jars, paths, runtime
from cdclake.runtime import (
    FACTORY_MODE,
    GENERATED,
    INTERPRETED,
    SHORT_RUN_JAVA_OPTIONS,
    codegen_settings,
    fit_codegen,
    get_session,
    session_settings,
)


def test_the_jvm_maps_spark_classes_from_the_archive(lake):
    archive = class_archive.archive_path()
    assert archive.is_file(), f"no class archive at {archive}: `make setup` writes it"
    jvm = get_session()._jvm
    arguments = list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
    assert f"-XX:SharedArchiveFile={archive}" in arguments
    assert "sharing" in jvm.java.lang.System.getProperty("java.vm.info")


def test_the_archive_holds_the_classes_of_a_build():
    # the training session builds, so Delta's transactions are among the archived classes
    # (their names are in the archive's symbols); the archive of a session that only
    # started Spark and wrote a Parquet table had no symbol of that name
    with class_archive.archive_path().open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as data:
        assert data.find(b"org/apache/spark/sql/delta/OptimisticTransactionImpl") >= 0


def test_the_training_session_runs_on_c1_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    # C2's compilations do not pay off in a session that builds once and ends (61-63 s and 71-74
    # CPU-s instead of 69 s and 106); options the environment sets are kept
    monkeypatch.delenv("CDC_DRIVER_JAVA_OPTIONS", raising=False)
    partial = tmp_path / "archive.partial"
    env = class_archive.training_env(tmp_path, partial)
    assert env["CDC_DRIVER_JAVA_OPTIONS"] == SHORT_RUN_JAVA_OPTIONS
    assert "-XX:TieredStopAtLevel=1" in SHORT_RUN_JAVA_OPTIONS.split()
    assert env["CDC_HOME"] == str(tmp_path)
    monkeypatch.setenv("CDC_DRIVER_JAVA_OPTIONS", "-XX:+UseG1GC")
    assert class_archive.training_env(tmp_path, partial)["CDC_DRIVER_JAVA_OPTIONS"] == "-XX:+UseG1GC"


def test_the_jvm_collects_garbage_with_the_parallel_collector(lake):
    # the profile's default (CDC_DRIVER_JAVA_OPTIONS): its collectors are PS Scavenge and PS MarkSweep
    beans = get_session()._jvm.java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
    assert sorted(str(bean.getName()) for bean in beans) == ["PS MarkSweep", "PS Scavenge"]


def test_cdc_driver_java_options_replace_the_collector(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("CDC_DRIVER_JAVA_OPTIONS", "-XX:+UseG1GC")
    options = session_settings()["spark.driver.extraJavaOptions"].split()
    assert "-XX:+UseG1GC" in options and "-XX:+UseParallelGC" not in options
    assert any(option.startswith("-Dderby.system.home=") for option in options)


def direct_buffer_bytes(jvm) -> int:
    """The memory of the JVM's direct buffers (the NIO buffer pool "direct")."""
    management = jvm.java.lang.management
    pools = management.ManagementFactory.getPlatformMXBeans(jvm.java.lang.Class.forName(
        "java.lang.management.BufferPoolMXBean"))
    return sum(int(pool.getMemoryUsed()) for pool in pools if pool.getName() == "direct")


def test_a_large_file_read_leaves_no_buffer_of_its_size_outside_the_heap(lake, tmp_path):
    # a Parquet reader reads a whole column chunk into a heap buffer, through a direct
    # buffer as large that the JDK keeps for the thread's next read (profiles.yml,
    # jdk.nio.maxCachedBufferSize); here a chunk of 24 MB, uncompressed
    session = get_session()
    jvm = session._jvm
    assert jvm.java.lang.System.getProperty("jdk.nio.maxCachedBufferSize") == "262144"
    path = str(tmp_path / "one_chunk")
    (session.range(0, 6000, 1, 1)
     .selectExpr("concat_ws('', transform(sequence(1, 64), i -> sha2(cast(id * 64 + i as string), 256))) as text")
     .write.option("compression", "none").parquet(path))
    before = direct_buffer_bytes(jvm)
    assert session.read.parquet(path).selectExpr("sum(length(text))").collect()[0][0] == 6000 * 64 * 64
    # with the JDK's default (no cap), the reading thread kept a buffer of 24 MB or more.
    # Not an absolute bound: the tests' long session holds other direct buffers (130 MB
    # when this test ran in the suite)
    assert direct_buffer_bytes(jvm) - before < 8 << 20
    # and the JVM's malloc maps such a buffer on its own, so freeing it gives it back
    # (cdclake.runtime.JVM_ENVIRONMENT)
    assert jvm.java.lang.System.getenv("MALLOC_MMAP_THRESHOLD_") == str(1 << 20)


def test_the_jvm_logs_errors_only(lake):
    jvm = get_session()._jvm
    assert str(jvm.org.apache.logging.log4j.LogManager.getRootLogger().getLevel()) == "ERROR"


def test_the_session_reads_past_an_arrays_end_as_null_as_dbt_does(lake):
    # dbt-spark turns ANSI mode off for its queries; the session starts so, so that
    # `cdc sql` and the landing see the models' semantics before dbt's first query
    session = get_session()
    assert session.sparkContext.getConf().get("spark.sql.ansi.enabled") == "false"
    assert session.sql("select element_at(array(1), 2) as past_the_end").collect()[0].past_the_end is None


def test_the_session_keeps_few_finished_queries(lake):
    # Spark keeps finished queries (their plans' text and graph) for its UI, which the
    # session does not start: by default the last 1000, which a long `cdc run` reaches
    session = get_session()
    for n in range(25):
        session.sql(f"select {n} as n").collect()
    store = session._jsparkSession.sharedState().statusStore()
    deadline = time.monotonic() + 10  # Spark notes and trims them in threads of its own
    while store.executionsCount() > 10 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert store.executionsCount() <= 10


def test_the_session_keeps_its_temporary_files_in_the_state_folder(lake):
    # the JVM's temporary folder and Spark's local folder (spill, shuffle, its session
    # folders) are the state folder's tmp (cdclake.paths.scratch_dir), emptied at every
    # session's start: nothing of a `cdc` command stays in /tmp (Hive's session made a new
    # <session id>_resources folder there per command, which nothing removed)
    session = get_session()
    session.sql("show databases").collect()  # the Hive client has started
    scratch = paths.scratch_dir()
    jvm = session._jvm
    assert Path(str(jvm.java.lang.System.getProperty("java.io.tmpdir"))) == scratch
    block_folders = jvm.org.apache.spark.SparkEnv.get().blockManager().diskBlockManager().localDirs()
    assert [Path(str(folder)).parent for folder in block_folders] == [scratch]
    assert any(scratch.glob("*_resources"))
    started = session.sparkContext.startTime / 1000
    system_tmp = Path(tempfile.gettempdir())
    assert [p.name for p in system_tmp.glob("*_resources") if p.is_dir() and p.stat().st_ctime >= started - 1] == []


def test_the_tests_session_has_a_larger_heap_than_the_commands_they_run(lake, tmp_path):
    from process_support import SESSION_HEAP_ONLY, TEST_SESSION_HEAP, home_env

    if not os.environ.get(SESSION_HEAP_ONLY):
        pytest.skip("CDC_DRIVER_MEMORY is set for the whole run")
    assert get_session().sparkContext.getConf().get("spark.driver.memory") == TEST_SESSION_HEAP
    assert "CDC_DRIVER_MEMORY" not in home_env(tmp_path)


def test_parameter_markers_are_bound_with_the_delta_extension(lake):
    # Delta's parser drops marker values unless the profile binds them the older way
    assert lake.rows("select :n + 1 as m, :s as s", n=41, s="x") == [{"m": 42, "s": "x"}]


def test_delta_tables_come_from_the_jars_setup_fetched(lake):
    session = get_session()
    class_path = session._jvm.java.lang.System.getProperty("java.class.path").split(":")
    fetched = sorted(str(jar) for jar in jars.jars_dir().glob("delta-spark_*.jar"))
    assert fetched and set(fetched) <= set(class_path)
    session.sql("create table silver.runtime_delta_check using delta as select 1 as n")
    try:
        session.sql("delete from silver.runtime_delta_check where n = 1")  # a Delta-only statement
        detail = session.sql("describe detail silver.runtime_delta_check").collect()[0]
        # deletion vectors only where a model asks for them (gold's MERGE targets)
        assert (detail.format, detail.properties.get("delta.enableDeletionVectors")) == ("delta", "false")
    finally:
        session.sql("drop table silver.runtime_delta_check")


def test_every_task_gets_one_sql_conf_from_the_plugin_and_gives_it_back(lake):
    plugin = getattr(get_session()._jvm, jars.PLUGIN_CLASS)
    assert plugin.inactiveReason() is None
    given, taken = plugin.tasksGiven(), plugin.tasksTaken()
    # four partitions, each a task; transform's lambda is evaluated interpreted, reading
    # SQLConf in the task
    rows = lake.rows("select sum(size(transform(array(id, id), x -> x + 1))) as n from range(0, 1000, 1, 4)")
    assert rows == [{"n": 2000}]
    assert plugin.tasksGiven() - given >= 4
    # each task's conf is taken back when it ends: no thread of the pool keeps one
    assert plugin.tasksTaken() - taken == plugin.tasksGiven() - given


def test_the_plugin_is_turned_on_only_with_its_jar(monkeypatch: pytest.MonkeyPatch, tmp_path):
    assert jars.PLUGIN_CLASS in session_settings()["spark.plugins"].split(",")
    (tmp_path / "other.jar").write_bytes(b"")
    monkeypatch.setenv("CDC_JARS", str(tmp_path))
    assert "spark.plugins" not in session_settings()


def test_the_udfs_run_in_python_workers_without_pandas(lake):
    # the project's UDFs are Arrow UDFs (udfs/arrow.py) and pandas is not installed: a
    # pandas UDF imports pandas into every Python worker (about 43 MiB each), and so does
    # pyarrow when pandas is there. A probe chained onto each UDF runs in the same worker,
    # after it, and says whether pandas is loaded there.
    from pyspark.sql.functions import arrow_udf

    def pandas_loaded(values: pa.Array) -> pa.Array:
        import sys

        return pa.array(["pandas" in sys.modules] * len(values), pa.bool_())

    session = get_session()
    session.udf.register("pandas_loaded", arrow_udf(pandas_loaded, "boolean"))
    calls = {
        "cdc_type_keys": "cdc_type_keys('mysql', 'decimal(10,2)')",
        "cdc_parse_ddl": "cdc_parse_ddl('alter table t add c int', 'mysql')",
        "cdc_decode_ddlmeta": "cdc_decode_ddlmeta('not base64')",
        "cdc_decode_dts_avro": "cdc_decode_dts_avro('not base64')",
        "cdc_decode_drs_avro": "cdc_decode_drs_avro('not base64', null)",
        "cdc_decode_mongo_change": "cdc_decode_mongo_change('{}', null)",
        "cdc_fold_documents": "cdc_fold_documents('[]')",
    }
    loaded, evaluations = {}, {}
    for name, call in calls.items():
        query = session.sql(f"select pandas_loaded({call}) as loaded")
        # one evaluation of both in one worker (UDFs of one kind chain; a pandas UDF and an
        # Arrow UDF would be two, and the probe could run in a worker the UDF did not)
        evaluations[name] = query._jdf.queryExecution().executedPlan().toString().count("ArrowEvalPython")
        loaded[name] = query.collect()[0]["loaded"]
    assert evaluations == dict.fromkeys(calls, 1)
    # pyarrow imports pandas whenever it is installed (to build an array from Python values)
    assert loaded == dict.fromkeys(calls, False), (
        "pandas was imported in a Python worker: it is no dependency of the project, but a virtualenv made "
        "before may still hold it (`.venv/bin/pip uninstall pandas`)")


def test_a_small_lake_runs_interpreted_and_a_larger_one_on_generated_code():
    assert codegen_settings(True, {}) == INTERPRETED
    assert codegen_settings(False, {}) == GENERATED
    assert INTERPRETED.keys() == GENERATED.keys()


@pytest.mark.parametrize("setting", sorted(INTERPRETED))
def test_code_generation_the_profile_sets_is_kept(setting: str):
    assert codegen_settings(True, {setting: GENERATED[setting]}) == {}
    assert codegen_settings(False, {setting: INTERPRETED[setting]}) == {}


def test_the_session_takes_the_code_generation_of_its_lake(lake, monkeypatch: pytest.MonkeyPatch):
    def whole_stage_code() -> bool:
        [(plan,)] = lake.spark.sql("explain codegen select id * 2 as n from range(10) where id > 3").collect()
        return "Found 0 WholeStageCodegen subtrees" not in plan

    try:
        monkeypatch.setattr(runtime, "SMALL_LAKE_MESSAGES", -1)  # any lake is larger
        fit_codegen(lake.spark)
        assert {key: lake.spark.conf.get(key) for key in GENERATED} == GENERATED and whole_stage_code()
        monkeypatch.setattr(runtime, "SMALL_LAKE_MESSAGES", 1 << 60)  # any lake is smaller
        fit_codegen(lake.spark)
        assert {key: lake.spark.conf.get(key) for key in INTERPRETED} == INTERPRETED and not whole_stage_code()
        assert lake.rows("select sum(id * 2) as n from range(10) where id > 3") == [{"n": 78}]
    finally:
        monkeypatch.undo()
        fit_codegen(lake.spark)


def test_the_catalog_lists_tables_of_a_lake_run_interpreted(lake):
    # Spark's interpreted objects fail to build the catalog's Table (EXPRESSION_DECODING_FAILED,
    # "argument type mismatch"): listTables runs on generated code for its call
    before = lake.spark.conf.get(FACTORY_MODE)
    lake.spark.conf.set(FACTORY_MODE, INTERPRETED[FACTORY_MODE])
    try:
        tables = lake.spark.catalog.listTables("bronze")
        assert "kafka_messages" in {table.name for table in tables}
        assert [t.name for t in lake.spark.catalog.listTables("bronze", "kafka_m*")] == ["kafka_messages"]
        assert lake.spark.conf.get(FACTORY_MODE) == INTERPRETED[FACTORY_MODE]
    finally:
        lake.spark.conf.set(FACTORY_MODE, before)
