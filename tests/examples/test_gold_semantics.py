"""Gold fold rules of DESIGN §4.4 on small hand-written Canal streams, one rule per test."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

TYPES = {"id": "int", "v": "varchar(8)"}


def message(seq: int, op: str, table: str, data: list[dict] | None, old: list[dict] | None = None,
            pk: list[str] | None = None, sql: str = "") -> dict:
    return {"data": data, "old": old, "database": "g", "table": table, "type": op,
            "isDdl": op == "TRUNCATE", "es": 1_700_000_000_000 + seq * 1000, "ts": 1_700_000_000_000 + seq * 1000,
            "pkNames": ["id"] if pk is None else pk, "mysqlType": TYPES, "sql": sql, "id": seq}


def records(topic: str, messages: list[dict], partition_of=lambda m: 0) -> list[str]:
    offsets: dict[int, int] = {}
    out = []
    for m in messages:
        part = partition_of(m)
        offsets[part] = offsets.get(part, -1) + 1
        out.append(json.dumps({"topic": topic, "partition": part, "offset": offsets[part], "value": json.dumps(m)}))
    return out


KEYED = [
    message(1, "INSERT", "keyed", [{"id": "1", "v": "a"}, {"id": "2", "v": "b"}]),
    message(2, "UPDATE", "keyed", [{"id": "3", "v": "a"}], [{"id": "1"}]),        # key 1 -> 3
    message(3, "UPDATE", "keyed", [{"id": "2", "v": "c"}], [{"v": "b"}]),
    message(4, "DELETE", "keyed", [{"id": "2", "v": "c"}]),
    message(5, "INSERT", "keyed", [{"id": "2", "v": "d"}]),                        # re-insert after delete
]
UNKEYED = [
    message(1, "INSERT", "bag", [{"id": "7", "v": "x"}, {"id": "7", "v": "x"}], pk=[]),
    message(2, "DELETE", "bag", [{"id": "7", "v": "x"}], pk=[]),
    message(3, "INSERT", "bag", [{"id": "8", "v": "y"}], pk=[]),
]
TRUNCATED = [
    message(1, "INSERT", "trunc", [{"id": "1", "v": "a"}, {"id": "2", "v": "b"}]),
    message(2, "TRUNCATE", "trunc", None, sql="TRUNCATE TABLE g.trunc"),
    message(3, "INSERT", "trunc", [{"id": "3", "v": "c"}]),
]
EMPTIED = [
    message(1, "INSERT", "emptied", [{"id": "1", "v": "a"}]),
    message(2, "TRUNCATE", "emptied", None, sql="TRUNCATE TABLE g.emptied"),
]

# the first batch holds the first three; the second a change after key 1's last (folded
# onto it), a change of key 2 from before its last one (a late arrival: key 2 is folded
# again from all its changes), and a new key
APPENDED = [
    message(11, "INSERT", "appended", [{"id": "1", "v": "a"}, {"id": "2", "v": "a"}]),
    message(12, "UPDATE", "appended", [{"id": "1", "v": "b"}], [{"v": "a"}]),
    message(14, "UPDATE", "appended", [{"id": "2", "v": "b"}], [{"v": "z"}]),
    message(15, "UPDATE", "appended", [{"id": "1", "v": "c"}], [{"v": "b"}]),
    message(13, "UPDATE", "appended", [{"id": "2", "v": "z"}], [{"v": "a"}]),
    message(16, "INSERT", "appended", [{"id": "4", "v": "a"}]),
]
# keys deleted in the first batch that the second changes again: a second delete, and an
# update that brings the row back (each folded onto the deleted current version)
REDELETED = [
    message(21, "INSERT", "redeleted", [{"id": "1", "v": "a"}, {"id": "2", "v": "a"}]),
    message(22, "DELETE", "redeleted", [{"id": "1", "v": "a"}, {"id": "2", "v": "a"}]),
    message(23, "DELETE", "redeleted", [{"id": "1", "v": "a"}]),
    message(24, "UPDATE", "redeleted", [{"id": "2", "v": "b"}], [{"v": "a"}]),
]


def land_examples(lake, tmp: Path) -> Iterator[None]:
    """Two batches (tests/examples/conftest.py); the lake is the result."""
    first = tmp / "first.jsonl"
    # the update of key 2 (message 3) lands in a later batch than message 4 and 5 of partition 1
    lines = records("g.keyed", KEYED, partition_of=lambda m: 1 if m["es"] % 10_000 >= 4000 else 0)
    appended = records("g.appended", APPENDED, partition_of=lambda m: 1 if m["id"] == 13 else 0)
    redeleted = records("g.redeleted", REDELETED)
    first.write_text("\n".join(lines[:2] + lines[3:] + records("g.bag", UNKEYED)
                               + records("g.trunc", TRUNCATED[:1]) + records("g.emptied", EMPTIED[:1])
                               + appended[:3] + redeleted[:2]) + "\n",
                     encoding="utf-8")
    lake.land([first], declared_format="canal_json")
    yield
    second = tmp / "second.jsonl"
    second.write_text("\n".join(lines[2:3] + lines[:1] + records("g.trunc", TRUNCATED)
                                + records("g.emptied", EMPTIED)[1:] + appended[3:] + redeleted[2:]) + "\n",
                       encoding="utf-8")
    lake.land([second], declared_format="canal_json")
    yield
    return lake


def current(lake, table: str) -> dict[str, tuple[dict, int]]:
    return {r["row_key"]: (r["row"], r["row_count"]) for r in lake.rows(
        "select row_key, row, row_count from gold.cdc_current_rows where table_id = :t", t=table)}


def test_key_change_moves_the_row_and_late_changes_fold_in_order(built):
    assert current(built, "g.keyed") == {
        '["3"]': ({"id": "3", "v": "a"}, 1),
        '["2"]': ({"id": "2", "v": "d"}, 1),
    }


def test_history_is_scd2(built):
    rows = built.rows("""select row_key, op, row['v'] as v, is_current, is_deleted,
                               valid_to is null as open_ended
                        from gold.cdc_row_history where table_id = 'g.keyed' order by row_key, valid_from""")
    assert rows == [
        {"row_key": '["1"]', "op": "INSERT", "v": "a", "is_current": False, "is_deleted": False, "open_ended": False},
        {"row_key": '["1"]', "op": "UPDATE", "v": "a", "is_current": True, "is_deleted": True, "open_ended": True},
        {"row_key": '["2"]', "op": "INSERT", "v": "b", "is_current": False, "is_deleted": False, "open_ended": False},
        {"row_key": '["2"]', "op": "UPDATE", "v": "c", "is_current": False, "is_deleted": False, "open_ended": False},
        {"row_key": '["2"]', "op": "DELETE", "v": "c", "is_current": False, "is_deleted": True, "open_ended": False},
        {"row_key": '["2"]', "op": "INSERT", "v": "d", "is_current": True, "is_deleted": False, "open_ended": True},
        {"row_key": '["3"]', "op": "UPDATE", "v": "a", "is_current": True, "is_deleted": False, "open_ended": True},
    ]


def test_new_changes_fold_onto_the_current_version_and_late_ones_refold_their_key(built):
    """The second build writes only what it must (gold/cdc_row_history.sql): key 1's
    first version stays as the first build wrote it; the version its new change closed
    and the new one are written; key 2, with a late change, is folded again whole."""
    rows = built.rows("""select row_key, row['v'] as v, is_current, built_through_batch_id as built
                        from gold.cdc_row_history where table_id = 'g.appended' order by row_key, valid_from""")
    second = max(r["built"] for r in rows)
    assert [(r["row_key"], r["v"], r["is_current"], r["built"] == second) for r in rows] == [
        ('["1"]', "a", False, False),
        ('["1"]', "b", False, True),
        ('["1"]', "c", True, True),
        ('["2"]', "a", False, True),
        ('["2"]', "z", False, True),
        ('["2"]', "b", True, True),
        ('["4"]', "a", True, True),
    ]
    assert current(built, "g.appended") == {
        '["1"]': ({"id": "1", "v": "c"}, 1), '["2"]': ({"id": "2", "v": "b"}, 1), '["4"]': ({"id": "4", "v": "a"}, 1)}


def test_changes_of_a_key_deleted_in_an_earlier_build_keep_its_last_row(built):
    """A second delete of a deleted key is a version that still shows the row it last had;
    an update brings the key back with its new row (both folded onto the delete)."""
    rows = built.rows("""select row_key, op, row['v'] as v, is_current, is_deleted
                        from gold.cdc_row_history where table_id = 'g.redeleted' order by row_key, valid_from""")
    assert [(r["row_key"], r["op"], r["v"], r["is_current"], r["is_deleted"]) for r in rows] == [
        ('["1"]', "INSERT", "a", False, False),
        ('["1"]', "DELETE", "a", False, True),
        ('["1"]', "DELETE", "a", True, True),
        ('["2"]', "INSERT", "a", False, False),
        ('["2"]', "DELETE", "a", False, True),
        ('["2"]', "UPDATE", "b", True, False),
    ]
    assert current(built, "g.redeleted") == {'["2"]': ({"id": "2", "v": "b"}, 1)}


def test_table_without_key_is_a_multiset(built):
    assert current(built, "g.bag") == {
        '{"id":"7","v":"x"}': ({"id": "7", "v": "x"}, 1),
        '{"id":"8","v":"y"}': ({"id": "8", "v": "y"}, 1),
    }


def test_truncate_empties_the_table_up_to_that_point(built):
    assert current(built, "g.trunc") == {'["3"]': ({"id": "3", "v": "c"}, 1)}
    closed = built.rows("select row_key from gold.cdc_row_history where table_id = 'g.trunc' "
                       "and op = 'TRUNCATE' and is_deleted order by row_key")
    assert [r["row_key"] for r in closed] == ['["1"]', '["2"]']


def test_a_table_emptied_in_a_later_batch_leaves_no_rows(built):
    # its only row was live after the first build; the truncate came in the second batch
    assert current(built, "g.emptied") == {}
    assert built.rows("select count(*) as n from gold.cdc_row_history where table_id = 'g.emptied'")[0]["n"] == 2


def test_redelivered_and_relanded_changes_count_once(built):
    # message 1 of g.keyed and the whole g.trunc stream were landed twice
    assert built.rows("select count(*) as n from silver.cdc_changes where table_id = 'g.keyed'")[0]["n"] == 6
    assert built.rows("select count(*) as n from silver.stg_cdc__messages where is_duplicate "
                     "and topic in ('g.keyed', 'g.bag', 'g.trunc', 'g.emptied', 'g.appended')")[0]["n"] == 2
