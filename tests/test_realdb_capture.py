"""The real-database capture is complete and exact: throw-away MariaDB and PostgreSQL
servers run the seeded workload, and folding the change log they wrote gives, value by
value, the rows they hold afterwards. Also: the workload really has what it promises
(volume, key changes, a key reused within one second, ADD/DROP COLUMN, TRUNCATE,
identical keyless rows, every edge value), and the test_decoding parser reads its text
exactly."""

from __future__ import annotations

import datetime as dt
import itertools
from collections import Counter, defaultdict
from decimal import Decimal

import pytest

from realdb.capture_postgres import parse_change
from realdb.fixtures import capture_mariadb_workload, capture_postgres_workload
from realdb.fold import differences, namespace, strict
from realdb.model import Capture, Event, RowChange
from realdb.workload import Workload, mariadb_workload, postgres_workload

pytestmark = [
    pytest.mark.realdb,
    # pymysqlreplication's own information_schema connection passes PyMySQL's old `db=`
    pytest.mark.filterwarnings("ignore:'db' is deprecated:DeprecationWarning"),
]


@pytest.fixture(scope="module")
def mariadb(tmp_path_factory: pytest.TempPathFactory) -> Capture:
    return capture_mariadb_workload(tmp_path_factory.mktemp("mariadb"))


@pytest.fixture(scope="module")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Capture:
    return capture_postgres_workload(tmp_path_factory.mktemp("postgres"))


@pytest.fixture(params=["mariadb", "postgres"])
def capture(request: pytest.FixtureRequest) -> Capture:
    return request.getfixturevalue(request.param)


def main(capture: Capture) -> str:
    """The namespace of all tables but products: MariaDB database / PostgreSQL schema."""
    return "shop" if capture.source == "mariadb" else "public"


def row_events(capture: Capture, table: str | None = None) -> list[Event]:
    return [e for e in capture.events if e.kind == "rows" and (table is None or e.table == table)]


def changes_per_table(capture: Capture) -> Counter[str]:
    return Counter({e.table: 0 for e in row_events(capture)}) + Counter(
        {table: sum(len(e.rows) for e in row_events(capture, table)) for table in {e.table for e in capture.events}})


# ---------------------------------------------------------------- complete and exact


def test_fold_of_the_log_is_the_final_state(capture: Capture) -> None:
    assert capture.final and capture.events
    assert differences(capture) == []


def test_edge_values_are_in_the_final_rows(capture: Capture) -> None:
    workload = mariadb_workload() if capture.source == "mariadb" else postgres_workload()
    missing = []
    for (ns, table, column), values in workload.edge_values.items():
        held = {strict(row[column]) for row in capture.final[(ns, table)][1]}
        missing += [(column, v) for v in values if strict(v) not in held]
    assert missing == []


def test_every_event_has_its_place_in_the_log(capture: Capture) -> None:
    assert [e.seq for e in capture.events] == list(range(len(capture.events)))
    assert all(e.schema is not None for e in row_events(capture))
    assert all(e.ts > 1_600_000_000 for e in capture.events)
    if capture.source == "mariadb":
        positions = [(e.log_file, e.log_pos) for e in capture.events]
        assert positions == sorted(positions)
        seqs = [int(e.gtid.split("-")[2]) for e in capture.events if e.gtid]
        assert len(seqs) == len(capture.events) and seqs == sorted(seqs)
        assert all(e.gtid.startswith("0-1-") for e in capture.events if e.gtid)
        assert all(e.xid for e in row_events(capture))
        assert all(e.xid is None for e in capture.events if e.kind == "ddl")
    else:
        lsns = [e.lsn for e in capture.events]
        assert all(lsns) and lsns == sorted(lsns)
        assert all(e.xid and e.ts_us // 1_000_000 == e.ts for e in capture.events)


# ---------------------------------------------------------------- the workload has what it promises


def test_mariadb_volume(mariadb: Capture) -> None:
    per_table = changes_per_table(mariadb)
    assert sum(per_table.values()) >= 2000
    assert len([t for t, n in per_table.items() if n >= 100]) >= 4
    kinds = Counter(e.op for e in mariadb.events)
    assert kinds["INSERT"] and kinds["UPDATE"] and kinds["DELETE"]
    assert any(len(e.rows) > 1 for e in row_events(mariadb) if e.op == "UPDATE")
    assert any(len(e.rows) > 1 for e in row_events(mariadb) if e.op == "DELETE")


def test_postgres_volume(postgres: Capture) -> None:
    assert sum(changes_per_table(postgres).values()) >= 600


def test_key_tables_of_every_kind(capture: Capture) -> None:
    tables = {(namespace(s), s.name): s for s in capture.tables()}
    pks = {name: schema.pk for (_, name), schema in tables.items()}
    assert pks["all_types"] == ("id",)
    assert pks["order_lines"] == ("order_id", "sku")
    assert pks["events_log"] == ()
    assert pks["products"] == ("code",)


def key_changes(capture: Capture) -> list[tuple[Event, RowChange]]:
    found = []
    for event in row_events(capture):
        assert event.schema is not None
        for change in event.rows:
            if event.op == "UPDATE" and event.schema.pk and change.before is not None and any(
                    change.before[k] != change.after[k] for k in event.schema.pk):  # type: ignore[index]
                found.append((event, change))
    return found


def test_keys_change(capture: Capture) -> None:
    changed = {event.table for event, _ in key_changes(capture)}
    assert {"all_types", "order_lines", "products", "hot"} <= changed
    # one statement moving many keys at once
    per_statement = Counter(event.gtid or event.xid for event, _ in key_changes(capture) if event.table == "all_types")
    assert max(per_statement.values()) >= 10


def test_mariadb_shift_onto_own_keys_in_descending_order(mariadb: Capture) -> None:
    """`SET id = id + 1 ... ORDER BY id DESC`: a row moves onto a key that another row
    of the same statement left just before."""
    by_tx: dict[str | None, list[RowChange]] = defaultdict(list)
    for event, change in key_changes(mariadb):
        if event.table == "all_types":
            by_tx[event.gtid].append(change)
    assert any(
        any(later.after["id"] == earlier.before["id"] for earlier, later in itertools.pairwise(changes))  # type: ignore[index]
        for changes in by_tx.values())


def test_one_key_changes_twenty_times_in_one_second_and_is_reused(capture: Capture) -> None:
    hot = [e for e in row_events(capture, "hot")]
    key_one = [(e, c) for e in hot for c in e.rows
               if (c.before and c.before["id"] == 1) or (c.after and c.after["id"] == 1)]
    assert len(key_one) >= 20
    assert len({e.ts for e, _ in key_one}) == 1
    moved = next(i for i, (e, c) in enumerate(key_one)
                 if e.op == "UPDATE" and c.before and c.before["id"] == 1 and c.after and c.after["id"] != 1)
    assert key_one[moved + 1][0].op == "INSERT" and key_one[moved + 1][1].after["id"] == 1  # type: ignore[index]


def test_columns_added_and_dropped_mid_stream(capture: Capture) -> None:
    ddl = [e.sql or "" for e in capture.events if e.op == "DDL"]
    assert any("ADD COLUMN channel" in s for s in ddl) and any("DROP COLUMN channel" in s for s in ddl)
    assert any("DROP COLUMN note" in s for s in ddl)
    all_types = [c.name for c in capture.final[(main(capture), "all_types")][0].columns]
    if capture.source == "mariadb":  # ADD COLUMN ... AFTER a middle column
        assert all_types[all_types.index("db") + 1] == "extra"
    # the keyless table: rows from before the ADD changed while the column existed, and
    # rows that had it changed after it was dropped
    log = row_events(capture, "events_log")
    with_channel = [c for e in log for c in e.rows if c.before and "channel" in c.before]
    assert any(c.before["channel"] is None for c in with_channel)  # type: ignore[index]
    dropped = next(i for i, e in enumerate(capture.events) if "DROP COLUMN channel" in (e.sql or ""))
    assert any(e.op in ("UPDATE", "DELETE") for e in capture.events[dropped:] if e.table == "events_log")


def test_truncate_then_rows_again(capture: Capture) -> None:
    events = [e for e in capture.events if e.table == "staging"]
    truncate = next(i for i, e in enumerate(events) if e.op == "TRUNCATE")
    assert events[truncate].kind == "ddl"
    assert any(e.op == "INSERT" for e in events[:truncate]) and any(e.op == "INSERT" for e in events[truncate:])


def test_identical_keyless_rows(capture: Capture) -> None:
    rows = capture.final[(main(capture), "events_log")][1]
    assert max(Counter(tuple(map(strict, r.values())) for r in rows).values()) >= 3
    one_of_many = [e for e in row_events(capture, "events_log")
                   if e.op in ("UPDATE", "DELETE") and e.rows[0].before and e.rows[0].before["kind"].startswith("dup")]
    assert {e.op for e in one_of_many} == {"UPDATE", "DELETE"}


def test_mariadb_values_are_the_databases(mariadb: Capture) -> None:
    """Spot checks of the conversions pymysqlreplication gets wrong (see capture_mariadb)."""
    edge = {r["id"]: r for r in mariadb.final[("shop", "all_types")][1]}
    values = {c: {strict(r[c]) for r in edge.values()} for c in ("tm1", "tm6", "fl", "yr", "st", "bt64", "bn")}
    assert strict(-dt.timedelta(seconds=1, microseconds=900000)) in values["tm1"]
    assert strict(-dt.timedelta(microseconds=1)) in values["tm6"]
    assert strict(3.14) in values["fl"] and strict(1.2345678) in values["fl"]
    assert strict(0) in values["yr"] and strict("") in values["st"]
    assert strict(2**64 - 1) in values["bt64"] and strict(b"ab" + bytes(6)) in values["bn"]
    inserted = {c.after["id"]: c.after for e in row_events(mariadb, "all_types") for c in e.rows  # type: ignore[index]
                if e.op == "INSERT" and c.after and c.after["id"] < 100}
    for key, row in inserted.items():
        assert {c: strict(v) for c, v in row.items()} == {c: strict(edge[key][c]) for c in row}


def test_postgres_values(postgres: Capture) -> None:
    rows = postgres.final[("public", "all_types")][1]
    assert all(r["tstz"] is None or r["tstz"].tzinfo == dt.UTC for r in rows)
    assert any(r["num"] == Decimal("123456789876543212345678987654321.110") for r in rows)
    assert any(r["by"] == bytes(range(256)) for r in rows)


# ---------------------------------------------------------------- the test_decoding parser


def test_parse_insert_with_hostile_text_and_every_kind_of_literal() -> None:
    change = parse_change(
        "table public.t: INSERT: id[integer]:7 s[text]:'it''s \\x00 ''quoted'' ' n[text]:null "
        "b[bytea]:'\\x00ff00' f[boolean]:false d[numeric]:-0.000000000000000000001 "
        "x[double precision]:-Infinity ts[timestamp with time zone]:'2038-01-19 03:14:07.5+00' "
        "t[time without time zone]:'24:00:00' j[jsonb]:'{\"a\": \"b c\"}' "
        "\"Odd \"\"col\"\"\"[character varying]:'a: b[c]:d'")
    assert (change.namespace, change.table, change.op) == ("public", "t", "INSERT")
    assert change.rows[0].before is None
    assert change.rows[0].after == {
        "id": 7, "s": "it's \\x00 'quoted' ", "n": None, "b": b"\x00\xff\x00", "f": False,
        "d": Decimal("-0.000000000000000000001"), "x": float("-inf"),
        "ts": dt.datetime(2038, 1, 19, 3, 14, 7, 500000, tzinfo=dt.UTC),
        "t": dt.timedelta(hours=24), "j": '{"a": "b c"}', 'Odd "col"': "a: b[c]:d"}


def test_parse_update_and_delete_images() -> None:
    update = parse_change("table inventory.products: UPDATE: old-key: code[text]:'a b' new-tuple: "
                          "code[text]:'new-tuple: x' stock[integer]:3")
    assert update.rows == [RowChange({"code": "a b"}, {"code": "new-tuple: x", "stock": 3})]
    assert parse_change("table public.t: UPDATE: id[integer]:1").rows == [RowChange(None, {"id": 1})]
    assert parse_change("table public.t: DELETE: id[integer]:1").rows == [RowChange({"id": 1}, None)]
    truncate = parse_change("table public.staging: TRUNCATE: (no-flags)")
    assert (truncate.op, truncate.rows) == ("TRUNCATE", [])


def test_workload_is_deterministic_from_its_seed() -> None:
    assert mariadb_workload(1).statements == mariadb_workload(1).statements
    assert mariadb_workload(1).statements != mariadb_workload(2).statements
    assert postgres_workload(3).statements == postgres_workload(3).statements


def test_a_scaled_workload_keeps_its_schema_changes_truncate_and_edge_rows() -> None:
    """tests/kafka_run.py produces the MariaDB workload scaled down: fewer mixed changes,
    the same DDL, TRUNCATE and edge values (the hard cases), whatever the scale."""
    full, scaled = mariadb_workload(1), mariadb_workload(1, scale=0.4)

    def schema_changes(workload: Workload) -> list[str]:
        return [s.sql for s in workload.statements if s.kind in ("ddl", "truncate")]

    assert schema_changes(scaled) == schema_changes(full)
    assert scaled.edge_values == full.edge_values
    dml = [sum(s.kind == "dml" for s in w.statements) for w in (full, scaled)]
    assert dml[1] < dml[0] / 2, dml
