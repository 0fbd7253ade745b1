"""The `cdc` command: land, build, dbt, sql, status, demo, docs.

Exit codes: 0 ok, 1 a build or test failed, 2 usage error (arguments, files, SQL),
3 another process uses CDC_HOME (cdclake.home_lock). Arguments are checked before the
Spark session starts; pyspark and dbt are imported by the commands that need them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import NoReturn

from cdclake import build_record, home_lock, jars, paths
from cdclake.formats import KNOWN_FORMATS
from cdclake.landing import BRONZE_TABLE, LandingError

EXIT_FAILED, EXIT_USAGE, EXIT_BUSY = 1, 2, 3


class UsageError(Exception):
    """The command cannot run as given (exit 2); the message says why."""


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors as one line (exit 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"error: {message} (see `{self.prog} --help`)\n")


def _check_land(args: argparse.Namespace) -> None:
    """What `cdc land` can check without Spark: the format id and the files."""
    if args.format is not None and args.format not in KNOWN_FORMATS:
        raise UsageError(f"unknown format {args.format!r}; known formats: {', '.join(KNOWN_FORMATS)}")
    for name in args.files:
        path = Path(name)
        if not path.exists():
            raise UsageError(f"no such file: {name}")
        if path.is_dir():
            raise UsageError(f"{name} is a directory: give the files in it "
                             f"(e.g. {os.path.join(name, '*.jsonl')})")
        if not path.is_file():
            raise UsageError(f"{name} is not a regular file")
        if not os.access(path, os.R_OK):
            raise UsageError(f"{name} is not readable (permission denied)")


def _cmd_land(args: argparse.Namespace) -> int:
    from cdclake.landing import land, plan_landing
    from cdclake.runtime import get_session

    plan_landing(args.files, topic=args.topic, declared_format=args.format)  # fails before Spark starts
    spark = get_session()
    started = time.monotonic()
    batch_id, landed = land(spark, args.files, topic=args.topic, declared_format=args.format)
    for item in landed:
        note = f", {item.errors} unreadable (see land_error)" if item.errors else ""
        print(f"landed {item.records} records from {item.path} ({item.shape}{note})")
    print(f"landing batch {batch_id} in {time.monotonic() - started:.1f} s")
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from cdclake.dbt_invoke import run_dbt
    from cdclake.runtime import get_session

    spark = get_session()
    last_batch = spark.sql(f"select max(landing_batch_id) from {BRONZE_TABLE}").collect()[0][0]
    if last_batch is None:
        print(f"nothing to build: {BRONZE_TABLE} is empty (land records with `cdc land` first)")
        return 0
    project = build_record.project_digest()  # before dbt runs: what this build runs
    found = build_record.recorded(spark)
    if not args.dbt_args and not args.full_check and build_record.up_to_date(found, last_batch, project):
        print(f"nothing to build: the last build built and checked every landing batch (through "
              f"{last_batch}) with this project (`cdc build --full-check` builds and checks anyway)")
        return 0
    since = build_record.check_scope(found, args.dbt_args, args.full_check)
    if since is not None:
        print(f"data tests check landing batches after {since}, those built since the last checked "
              "build (`cdc build --full-check` checks every batch)")
    if not run_dbt(["build", *args.dbt_args]):
        return 1
    if build_record.is_whole_build(args.dbt_args):
        build_record.record(spark, last_batch, project)
    return 0


def _cmd_dbt(args: argparse.Namespace) -> int:
    from cdclake.dbt_invoke import run_dbt

    return 0 if run_dbt(args.dbt_args) else 1


def _print_query(query: str, args: argparse.Namespace) -> int:
    """Print the result of `query`; a query Spark rejects is a usage error."""
    import logging

    from pyspark.errors import PySparkException
    from pyspark.logger import PySparkLogger

    from cdclake.runtime import get_session
    from cdclake.tables import format_table, rows_to_json

    spark = get_session()
    # pyspark also logs a rejected query, with the JVM's stack trace: the error line is enough
    PySparkLogger.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    try:
        frame = spark.sql(query)
        rows = frame.collect()
    except PySparkException as exc:
        lines = [line for line in str(exc).splitlines() if line.strip()]
        raise UsageError(lines[0] if lines else type(exc).__name__) from None
    if args.json:
        print(rows_to_json(frame.columns, rows))
    else:
        print(format_table(frame.columns, rows, max_width=args.max_width))
    return 0


def _cmd_sql(args: argparse.Namespace) -> int:
    return _print_query(args.query, args)


STATUS_QUERY = """
select topic, table_id, vendor_format as format, changes, inserts, updates, deletes, snapshots,
    truncates, ddl_events as ddl, heartbeats, other_markers as markers, rejects, duplicates,
    waiting_update_halves as waiting_halves, last_event_ts, last_change_lag_seconds as lag_s,
    last_heartbeat_ts,
    (unix_micros(current_timestamp()) - unix_micros(last_heartbeat_ts)) / 1000000.0 as heartbeat_lag_s
from gold.cdc_sync_status
order by topic, table_id nulls first
"""


def _cmd_status(args: argparse.Namespace) -> int:
    from cdclake.runtime import get_session

    if not get_session().catalog.tableExists("gold.cdc_sync_status"):
        print("no status yet: land records and run `cdc build` first", file=sys.stderr)
        return 1
    return _print_query(STATUS_QUERY, args)


def _cmd_docs(args: argparse.Namespace) -> int:
    from cdclake.dbt_invoke import run_dbt
    from cdclake.runtime import get_session

    # the models compile from what the lake holds (the routing seed, the formats landed)
    if not get_session().catalog.tableExists("silver.topic_formats"):
        print("no lake to document yet: run `cdc build` (or `cdc demo`) first", file=sys.stderr)
        return 1
    # the typed example models (models/demo) show the lineage from bronze to typed tables
    if not run_dbt(["docs", "generate", "--vars", '{"cdc_demo_models": true}']):
        return 1
    target = os.environ.get("DBT_TARGET_PATH", str(paths.PROJECT_DIR / "target"))
    print(f"docs site: {os.path.join(target, 'index.html')}")
    if args.serve:
        return 0 if run_dbt(["docs", "serve", "--host", "127.0.0.1", "--port", str(args.port),
                             "--no-browser"]) else 1
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from cdclake.demo import run_demo

    return run_demo()


WAIT_HELP = "when another process uses CDC_HOME, wait for it (else exit 3 at once)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cdc",
        description="Decode CDC streams from Kafka into lakehouse tables with dbt on Spark. "
        f"State lives in $CDC_HOME (now {paths.cdc_home()}), one process at a time. "
        "Exit codes: 0 ok, 1 build or test failed, 2 usage error, 3 CDC_HOME busy.",
    )
    parser.add_argument("--wait", action="store_true", help=WAIT_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    land = sub.add_parser("land", help="append Kafka records from files to bronze.kafka_messages")
    land.add_argument("files", nargs="+", metavar="FILE")
    land.add_argument("--topic", help="topic of plain one-message-per-line files "
                      "(and of JSON records without one)")
    land.add_argument("--format", help="format id of what is landed (wins over routing)")
    land.set_defaults(func=_cmd_land)

    build = sub.add_parser("build", help="dbt build with the Spark session and UDFs "
                           "(extra arguments go to dbt build)")
    build.add_argument("--full-check", action="store_true",
                       help="run the data tests over every landing batch, not only those built "
                       "since the last checked build")
    build.set_defaults(func=_cmd_build, passes_dbt_args=True)

    dbt = sub.add_parser("dbt", help="any dbt command, e.g. `cdc dbt test -s gold`",
                         add_help=False)
    dbt.set_defaults(func=_cmd_dbt, passes_dbt_args=True)

    sql = sub.add_parser("sql", help="run a query and print its result")
    sql.add_argument("query")
    sql.add_argument("--json", action="store_true", help="print one JSON array of objects")
    sql.add_argument("--max-width", type=int, default=60, help="cut text cells longer than this")
    sql.set_defaults(func=_cmd_sql)

    status = sub.add_parser("status", help="print gold.cdc_sync_status: per topic and table, "
                            "counts by op, rejects, last change, lag, last heartbeat")
    status.add_argument("--json", action="store_true", help="print one JSON array of objects")
    status.add_argument("--max-width", type=int, default=40, help="cut text cells longer than this")
    status.set_defaults(func=_cmd_status)

    docs = sub.add_parser("docs", help="build the dbt docs site (target/index.html)")
    docs.add_argument("--serve", action="store_true", help="then serve it on 127.0.0.1")
    docs.add_argument("--port", type=int, default=8080)
    docs.set_defaults(func=_cmd_docs)

    demo = sub.add_parser("demo", help="land the bundled samples, build, print a summary")
    demo.set_defaults(func=_cmd_demo)

    # `cdc build --wait` as `cdc --wait build` (SUPPRESS: absent, it leaves the main option be)
    for command in sub.choices.values():
        command.add_argument("--wait", action="store_true", default=argparse.SUPPRESS, help=WAIT_HELP)
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; arguments argparse does not know go to dbt (build, dbt) or fail."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passes_dbt_args", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.dbt_args = extra
    return args


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        if args.command == "land":
            _check_land(args)
        # every command uses the Spark session, whose metastore admits one process
        home_lock.hold(paths.cdc_home(), args.wait)
        return int(args.func(args))
    except (UsageError, LandingError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    except home_lock.HomeBusyError as exc:
        return _fail(str(exc), EXIT_BUSY)
    except jars.MissingJarsError as exc:
        return _fail(str(exc), EXIT_FAILED)
    except SystemExit as exc:
        if not isinstance(exc.code, str):
            raise
        # dbt_invoke.run_dbt: "dbt failed: <dbt's error>", which may span lines
        return _fail(" ".join(line.strip() for line in exc.code.splitlines() if line.strip()), EXIT_FAILED)


if __name__ == "__main__":
    raise SystemExit(main())
