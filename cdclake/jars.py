"""The JVM jars the project adds to pyspark's own (Delta Lake), fetched at setup.

`pom.xml` pins them; `make setup` copies them with Maven into a folder of the Python
environment, and every embedded session puts that folder's jars on the driver's class
path (the system class path, so that the class archive of cdclake.class_archive covers
them too). Nothing is downloaded at run time. `$CDC_JARS` names another folder of jars
(fetched some other way, say through a company's Maven mirror).

`make setup` also compiles the project's Spark plugin (jvm/, TaskSqlConfPlugin: one SQL
configuration object per task) into the same folder; a session turns it on when its jar
is there (a folder of `$CDC_JARS` without it runs as Spark does, only slower).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# the jar `make setup` compiles from jvm/ (Makefile PLUGIN_JAR), and the plugin in it
PLUGIN_JAR = "cdc-lakehouse-spark-plugin.jar"
PLUGIN_CLASS = "io.github.cdclakehouse.TaskSqlConfPlugin"


class MissingJarsError(RuntimeError):
    """The jars were never fetched (a plain `pip install`, or Maven failed at setup)."""


def jars_dir() -> Path:
    """Where the jars live: `$CDC_JARS`, else a folder of this Python environment."""
    return Path(os.environ.get("CDC_JARS") or Path(sys.prefix) / "share" / "cdc-lakehouse" / "jars")


def class_path() -> str:
    """The jars, as a class path; MissingJarsError when there are none."""
    folder = jars_dir()
    jars = sorted(folder.glob("*.jar"))
    if not jars:
        raise MissingJarsError(
            f"no JVM jars in {folder}: run `make setup` (it fetches them with Maven from pom.xml), "
            f"or `mvn -q -B dependency:copy-dependencies -Dcdc.jars={folder}` in the project")
    return ":".join(str(jar) for jar in jars)


def plugin_class() -> str | None:
    """The project's Spark plugin, when its jar is among the jars; else None."""
    return PLUGIN_CLASS if (jars_dir() / PLUGIN_JAR).is_file() else None
