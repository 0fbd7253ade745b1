"""The embedded session's JVM: the log settings of conf/log4j2.properties and Spark's
classes mapped from the archive `make setup` writes (cdclake/class_archive.py)."""

from __future__ import annotations

from cdclake import class_archive
from cdclake.runtime import get_session


def test_the_jvm_maps_spark_classes_from_the_archive(lake):
    archive = class_archive.archive_path()
    assert archive.is_file(), f"no class archive at {archive}: `make setup` writes it"
    jvm = get_session()._jvm
    arguments = list(jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments())
    assert f"-XX:SharedArchiveFile={archive}" in arguments
    assert "sharing" in jvm.java.lang.System.getProperty("java.vm.info")


def test_the_jvm_logs_errors_only(lake):
    jvm = get_session()._jvm
    assert str(jvm.org.apache.logging.log4j.LogManager.getRootLogger().getLevel()) == "ERROR"
