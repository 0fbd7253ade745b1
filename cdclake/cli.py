"""The `cdc` command: land, ingest, build, dbt, sql, status, demo, docs.

Exit codes: 0 ok, 1 a build or test failed or Kafka could not be read, 2 usage error (arguments, files, SQL),
3 another process uses CDC_HOME (cdclake.home_lock), 141 the reader of the output went away
(`cdc sql ... | head`). Arguments are checked before the Spark session starts; pyspark and
dbt are imported by the commands that need them.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import sys
import time
from pathlib import Path
from typing import NoReturn

from cdclake import build_record, home_lock, jars, memory, paths
from cdclake.formats import KNOWN_FORMATS
from cdclake.ingest import IngestError, Subscription, printable, read_client_config
from cdclake.landing import LandingError
from cdclake.runtime import SHORT_BUILD_BYTES, SHORT_LAND_BYTES, MovedHomeError, driver_heap, prefer_short_run

EXIT_FAILED, EXIT_USAGE, EXIT_BUSY = 1, 2, 3
# the reader of the output went away (`cdc sql ... | head`): the code a shell gives a
# command that SIGPIPE ended, as `git log | head` ends
EXIT_OUTPUT_CLOSED = 128 + signal.SIGPIPE


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


def _subscription(args: argparse.Namespace) -> Subscription:
    """What `cdc ingest` reads, from its arguments (checked without Spark)."""
    if args.format is not None and args.format not in KNOWN_FORMATS:
        raise UsageError(f"unknown format {args.format!r}; known formats: {', '.join(KNOWN_FORMATS)}")
    try:
        options = read_client_config(Path(args.kafka_config)) if args.kafka_config else {}
    except IngestError as exc:
        raise UsageError(str(exc)) from None
    for item in args.kafka_option:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--kafka-option {item.split('=')[0]!r}: give KEY=VALUE")
        options[key.removeprefix("kafka.")] = value
    if "bootstrap.servers" in options:
        raise UsageError("give the brokers with --bootstrap-servers, not as a Kafka option")
    topics = tuple(t.strip() for t in (args.topics or "").split(",") if t.strip())
    try:
        return Subscription(args.bootstrap_servers, topics, args.topic_pattern, args.starting_offsets,
                            args.max_offsets_per_batch, options, args.format, args.timeout)
    except IngestError as exc:
        raise UsageError(str(exc)) from None


def _interval(text: str) -> float:
    from cdclake.runner import parse_interval

    try:
        return parse_interval(text)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _show_options(subscription: Subscription) -> None:
    if subscription.client_options:
        shown = ", ".join(f"{k}={v}" for k, v in sorted(printable(subscription.client_options).items()))
        print(f"kafka options: {shown}")


def _cmd_run(args: argparse.Namespace) -> int:
    from cdclake.runner import Runner
    from cdclake.runtime import get_session

    _show_options(args.subscription)
    print(f"cdc run: every {args.every}, until SIGTERM or Ctrl-C", flush=True)
    return Runner(get_session(), args.subscription, args.every_s, args.dbt_args).run()


def _cmd_ingest(args: argparse.Namespace) -> int:
    from cdclake.ingest import ingest
    from cdclake.lag import record_lag
    from cdclake.runtime import get_session

    subscription = args.subscription
    _show_options(subscription)
    spark = get_session()
    started = time.monotonic()  # the ingest, without the session's start
    done = ingest(spark, subscription)
    for batch_id in done.skipped:
        print(f"landing batch {batch_id} had landed before the last run stopped: not landed again")
    for topic, partitions in sorted(done.end_offsets.items()):
        reached = ", ".join(f"{p}:{o}" for p, o in sorted(partitions.items(), key=lambda i: int(i[0])))
        print(f"{topic}: next offsets (partition:offset) {reached}")
    if done.batches:
        first, last = min(done.batches), max(done.batches)
        span = f"landing batch {first}" if first == last else f"landing batches {first}-{last}"
        print(f"ingested {done.records} records in {span} in {time.monotonic() - started:.1f} s")
    else:
        print(f"nothing new: the topics hold no record beyond the checkpoint {subscription.checkpoint()}")
    lag = record_lag(spark, subscription)
    print(f"lag: {lag.records} records, {lag.seconds:.0f} s (gold.cdc_kafka_lag, `cdc status`)")
    return 0


def _cmd_build(args: argparse.Namespace) -> int:
    from cdclake.building import build, build_without_spark
    from cdclake.runtime import get_session

    if build_without_spark(args.dbt_args, args.full_check):
        return 0
    return 1 if build(get_session(), args.dbt_args, args.full_check) is False else 0


def _cmd_dbt(args: argparse.Namespace) -> int:
    from cdclake.dbt_invoke import run_dbt

    return 0 if run_dbt(args.dbt_args) else 1


def _print_query(query: str, args: argparse.Namespace) -> int:
    """Print the result of `query`; a query Spark rejects is a usage error."""
    import logging

    from pyspark.errors import PySparkException
    from pyspark.logger import PySparkLogger

    from cdclake.runtime import get_session
    from cdclake.tables import displayable, format_table, rows_to_json

    spark = get_session()
    # pyspark also logs a rejected query, with the JVM's stack trace: the error line is enough
    PySparkLogger.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL)
    try:
        frame = displayable(spark.sql(query))
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


LAG_QUERY = """
select topic, kafka_partition as `partition`, latest_offset, last_ingested_offset, lag_records,
    round(lag_seconds, 1) as lag_s, checked_at
from gold.cdc_kafka_lag
order by topic, kafka_partition
"""


def _built_table(name: str) -> bool:
    """Whether the managed table `name` ("<db>.<table>") exists. Without its folder it
    cannot, and Spark need not start to say so; a folder alone (one a killed build left)
    is not taken for a table."""
    from cdclake.runtime import get_session

    return paths.table_dir(name).is_dir() and get_session().catalog.tableExists(name)


def _lag_view_exists() -> bool:
    """Whether the view gold.cdc_kafka_lag exists. A view has no folder: a lake never built
    has no gold.cdc_sync_status folder, which every build writes beside the view, and then
    Spark need not start to say so."""
    from cdclake.runtime import get_session

    return paths.table_dir("gold.cdc_sync_status").is_dir() and \
        get_session().catalog.tableExists("gold.cdc_kafka_lag")


def _cmd_status(args: argparse.Namespace) -> int:
    from cdclake.runtime import get_session

    if args.lag:
        if not _lag_view_exists():
            print("no lag yet: run `cdc build` once", file=sys.stderr)
            return 1
        return _print_query(LAG_QUERY, args)
    if not _built_table("gold.cdc_sync_status"):
        print("no status yet: land records and run `cdc build` first", file=sys.stderr)
        return 1
    code = _print_query(STATUS_QUERY, args)
    if not args.json and _lag_view_exists() and \
            get_session().sql("select 1 from gold.cdc_kafka_lag limit 1").collect():
        print("\nKafka consumer lag (`cdc status --lag`), per topic and partition:")
        code = code or _print_query(LAG_QUERY, args)
    return code


def _cmd_docs(args: argparse.Namespace) -> int:
    from cdclake.dbt_invoke import run_dbt

    # the models compile from what the lake holds (the routing seed, the formats landed)
    if not _built_table("silver.topic_formats"):
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


def _add_kafka_arguments(command: argparse.ArgumentParser) -> None:
    """What `cdc ingest` and `cdc run` read from Kafka, and how."""
    command.add_argument("--bootstrap-servers", required=True, metavar="HOST:PORT[,...]")
    which = command.add_mutually_exclusive_group(required=True)
    which.add_argument("--topics", metavar="A,B", help="comma-separated topic names")
    which.add_argument("--topic-pattern", metavar="REGEX", help="every topic whose whole name matches")
    command.add_argument("--starting-offsets", default="earliest",
                         help="where a new subscription starts: earliest (default), latest, or Spark's "
                         "JSON of offsets per topic and partition; later runs go on from the checkpoint")
    command.add_argument("--max-offsets-per-batch", type=int, metavar="N",
                         help="land at most N records per landing batch (a run still reads all that is new)")
    command.add_argument("--kafka-config", metavar="FILE",
                         help="Kafka client properties (key=value lines: security.protocol, sasl.*, ssl.*)")
    command.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE",
                         help="one Kafka client property (wins over --kafka-config); repeatable")
    command.add_argument("--format", help="format id of the topics' records (wins over routing)")
    command.add_argument("--timeout", type=float, default=30.0, metavar="SECONDS",
                         help="how long to wait for the brokers before failing (default 30)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="cdc",
        description="Decode CDC streams from Kafka into lakehouse tables with dbt on Spark. "
        f"State lives in $CDC_HOME (now {paths.cdc_home()}), one process at a time. "
        "Exit codes: 0 ok, 1 build or test failed, 2 usage error, 3 CDC_HOME busy, "
        "141 output closed (`cdc sql ... | head`).",
    )
    parser.add_argument("--wait", action="store_true", help=WAIT_HELP)
    sub = parser.add_subparsers(dest="command", required=True)

    land = sub.add_parser("land", help="append Kafka records from files to bronze.kafka_messages")
    land.add_argument("files", nargs="+", metavar="FILE")
    land.add_argument("--topic", help="topic of plain one-message-per-line files "
                      "(and of JSON records without one)")
    land.add_argument("--format", help="format id of what is landed (wins over routing)")
    land.set_defaults(func=_cmd_land)

    ingest = sub.add_parser("ingest", help="append the new records of Kafka topics to bronze.kafka_messages, "
                            "exactly once (README \"Run against Kafka\")")
    _add_kafka_arguments(ingest)
    ingest.set_defaults(func=_cmd_ingest)

    runner = sub.add_parser("run", help="ingest from Kafka and build, every --every, until stopped "
                            "(SIGTERM, Ctrl-C); extra arguments go to dbt build")
    runner.add_argument("--every", default="30s", help="time from the start of one cycle to the next "
                        "(30s, 2m, 1h; default 30s)")
    _add_kafka_arguments(runner)
    runner.set_defaults(func=_cmd_run, passes_dbt_args=True)

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
                            "counts by op, rejects, last change, lag, last heartbeat; then the Kafka consumer lag")
    status.add_argument("--json", action="store_true", help="print one JSON array of objects")
    status.add_argument("--lag", action="store_true", help="print only the Kafka consumer lag of `cdc ingest`, "
                        "per topic and partition (gold.cdc_kafka_lag)")
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


def choose_jvm(args: argparse.Namespace) -> None:
    """Before the session starts: C1 alone (cdclake.runtime.prefer_short_run) for a `cdc land`
    of few bytes, and for a `cdc build` that goes on from the last one with few new bytes
    (the first build creates every table, and keeps the profile's default)."""
    if args.command == "land":
        prefer_short_run(sum(Path(name).stat().st_size for name in args.files), SHORT_LAND_BYTES)
    elif args.command == "build":
        new = build_record.new_bytes(args.dbt_args, args.full_check)
        if new is not None:
            prefer_short_run(new, SHORT_BUILD_BYTES)


def _fail(message: str, code: int) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    """The command's exit code. Its output is flushed here, while a closed pipe can still be
    answered (else the interpreter's last flush at exit fails with a message of its own)."""
    try:
        code = _run(argv)
    except BrokenPipeError:
        if not _reader_gone():
            raise  # another pipe broke (the JVM's, a broker's): a failure of its own
        return _output_closed()
    except SystemExit:  # argparse's help and usage errors, printed before
        if not _flushed():
            return _output_closed()
        raise
    return code if _flushed() else _output_closed()


def _flushed() -> bool:
    """Flush stdout; False when its reader has gone."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return False
    return True


def _reader_gone() -> bool:
    """Whether stdout is a pipe whose reader has gone (Linux sets POLLERR on its writing end)."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no file descriptor (a stream in memory)
        return False


def _output_closed() -> int:
    """What is left in stdout's buffer goes nowhere, so that the flush at exit does not fail
    again; the exit code of a command SIGPIPE ended."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_OUTPUT_CLOSED


def _run(argv: list[str] | None) -> int:
    args = parse_args(argv)
    try:
        if args.command == "land":
            _check_land(args)
        if args.command in ("ingest", "run"):
            args.subscription = _subscription(args)
        if args.command == "run":
            args.every_s = _interval(args.every)
        # every command uses the Spark session, whose metastore admits one process
        home_lock.hold(paths.cdc_home(), args.wait)
        choose_jvm(args)
        code = int(args.func(args))
    except (UsageError, LandingError) as exc:
        return _fail(str(exc), EXIT_USAGE)
    except IngestError as exc:
        return _fail(str(exc), EXIT_FAILED)
    except home_lock.HomeBusyError as exc:
        return _fail(str(exc), EXIT_BUSY)
    except (jars.MissingJarsError, MovedHomeError) as exc:
        return _fail(str(exc), EXIT_FAILED)
    except SystemExit as exc:
        if not isinstance(exc.code, str):
            raise
        # dbt_invoke.run_dbt: "dbt failed: <dbt's error>", which may span lines
        return _fail(" ".join(line.strip() for line in exc.code.splitlines() if line.strip()), EXIT_FAILED)
    except Exception as exc:
        if memory.out_of_memory(exc):
            return _out_of_memory()
        raise
    if code != 0 and memory.out_of_memory(None):
        return _out_of_memory()
    return code


def _out_of_memory() -> int:
    memory.end_jvm()
    return _fail(memory.advice(driver_heap()), EXIT_FAILED)


if __name__ == "__main__":
    raise SystemExit(main())
