"""The lake as one object: land, build, query. Used by `cdc demo`, the tests and benchmarks."""

from __future__ import annotations

import json
import os
import shutil
from typing import TYPE_CHECKING, Any

from cdclake import paths
from cdclake.dbt_invoke import run_dbt
from cdclake.landing import LandedFile, Landing, ensure_bronze, land, land_batches
from cdclake.runtime import get_session

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SCHEMAS = ("bronze", "silver", "gold")


class Lake:
    def __init__(self) -> None:
        self.spark: SparkSession = get_session()
        # dbt vars that every dbt command of this lake passes (`--vars`) unless it gives its
        # own: what the lake's data needs (the keys of tables that declare none). One set for
        # every command also keeps dbt's partial parsing: other vars make it parse the whole
        # project again (about 2.5 s)
        self.vars: dict[str, Any] = {}

    def land(self, files: list[str], topic: str | None = None,
             declared_format: str | None = None) -> tuple[int, list[LandedFile]]:
        return land(self.spark, [str(f) for f in files], topic=topic, declared_format=declared_format)

    def land_batches(self, landings: list[Landing]) -> list[tuple[int, list[LandedFile]]]:
        """Each landing as a landing batch of its own, in one write (cdclake.landing)."""
        return land_batches(self.spark, landings)

    def dbt(self, command: str, *args: str) -> bool:
        """`dbt command --quiet *args` with the lake's vars, in this process; True when it succeeded."""
        return run_dbt([command, "--quiet", *self._with_vars(args)])

    def build(self, *args: str) -> None:
        if not self.dbt("build", *args):
            log = os.path.join(os.environ.get("DBT_LOG_PATH", "logs"), "dbt.log")
            raise RuntimeError(f"dbt build {' '.join(args)} failed (see {log})")

    def compile_inline(self, sql: str, *args: str) -> str:
        """The SQL dbt compiles `sql` (Jinja, macros, refs of this project) to."""
        return self.compile("--inline", sql, *args)

    def compile_many(self, expressions: dict[str, str], *args: str) -> dict[str, str]:
        """The text each Jinja expression of `expressions` (a macro call of this project, such as
        `cdc_table('shop.items')`) renders to, by name: one `dbt compile` for all of them (each
        costs about a second, however small)."""
        entries = ", ".join(f"{json.dumps(name)}: ({expression})" for name, expression in expressions.items())
        return dict(json.loads(self.compile_inline(f"{{{{ tojson({{{entries}}}) }}}}", *args)))

    def compile(self, *args: str) -> str:
        """The SQL of the one node `dbt compile *args` compiles (`--select model` or
        `--inline sql`), without the data tests a selection brings along."""
        from dbt.cli.main import dbtRunner

        from cdclake.dbt_invoke import dbt_args

        result = dbtRunner().invoke(dbt_args(["compile", "--quiet", *self._with_vars(args)]))
        if not result.success:
            raise RuntimeError(f"dbt compile {args[0]} failed: {result.exception}")
        # dbt types result.result as the union of every command's result; compile's is a
        # RunExecutionResult whose node is a compiled one
        [compiled] = [r for r in result.result.results if r.node.resource_type != "test"]  # type: ignore[union-attr]
        return str(compiled.node.compiled_code)  # type: ignore[union-attr]

    def _with_vars(self, args: tuple[str, ...]) -> list[str]:
        """`args`, with `--vars` of the lake's vars when it has some and `args` gives none."""
        if not self.vars or "--vars" in args:
            return list(args)
        return [*args, "--vars", json.dumps(self.vars)]

    def rows(self, query: str, **params: Any) -> list[dict[str, Any]]:
        return [r.asDict(recursive=True) for r in self.spark.sql(query, args=params or None).collect()]

    def reset(self) -> None:
        """Drop every table of the lake (bronze included) and their files, and its vars."""
        for schema in SCHEMAS:
            self.spark.sql(f"drop database if exists {schema} cascade")
            shutil.rmtree(paths.database_dir(schema), ignore_errors=True)
            self.spark.sql(f"create database {schema}")
        ensure_bronze(self.spark)
        self.spark.catalog.clearCache()
        self.vars = {}
