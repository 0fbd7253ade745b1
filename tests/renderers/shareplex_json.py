"""A generated stream as Alibaba Cloud DTS "Shareplex Json" Kafka records.

One message per row: `meta` (time, userid, op ins/upd/del/truncate, scn, rowid, trans,
seq, size, table OWNER.TABLE, idx, posttime) and `data` (+ `key` on updates). Values
are strings or null (binary as base64 text). Each statement is one transaction with
the next SCN; `seq`/`size`/`idx` number its rows.

Rows are identified by an Oracle-like ROWID that follows the row: a keyed row keeps its
ROWID when an update changes its key, and every copy of an unkeyed row gets its own.
An update sends in `data` the changed columns only (new values) and in `key` the key
columns and the old values of the changed ones (for the unkeyed table: the whole old row).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import synth

_ROWID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def _rowid(number: int) -> str:
    """An 18-character ROWID-looking text, distinct per number."""
    digits = []
    for _ in range(6):
        number, rest = divmod(number, 64)
        digits.append(_ROWID_ALPHABET[rest])
    return "AAATGpAAIAAI" + "".join(reversed(digits))


def _iso(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S")


def _key_of(table: str, row: synth.Row) -> tuple[str | None, ...]:
    return tuple(row[c] for c in synth.TABLES[table])


class _Rowids:
    """The ROWID of each live source row: per key for keyed tables, per copy for unkeyed ones."""

    def __init__(self) -> None:
        self.count = 0
        self.keyed: dict[tuple[str, tuple[str | None, ...]], str] = {}
        self.unkeyed: dict[str, list[tuple[synth.Row, str]]] = {}

    def new(self, table: str, row: synth.Row) -> str:
        self.count += 1
        rowid = _rowid(self.count)
        if synth.TABLES[table]:
            self.keyed[(table, _key_of(table, row))] = rowid
        else:
            self.unkeyed.setdefault(table, []).append((dict(row), rowid))
        return rowid

    def take(self, table: str, row: synth.Row) -> str:
        if synth.TABLES[table]:
            return self.keyed.pop((table, _key_of(table, row)))
        copies = self.unkeyed[table]
        index = next(i for i, (r, _) in enumerate(copies) if r == row)
        return copies.pop(index)[1]

    def put(self, table: str, row: synth.Row, rowid: str) -> None:
        if synth.TABLES[table]:
            self.keyed[(table, _key_of(table, row))] = rowid
        else:
            self.unkeyed.setdefault(table, []).append((dict(row), rowid))

    def truncate(self, table: str) -> None:
        self.unkeyed.pop(table, None)
        for key in [k for k in self.keyed if k[0] == table]:
            del self.keyed[key]


def render(stream: synth.Stream, topic: str, partitions: int = 3,
           start_ms: int = 1_700_000_000_000) -> list[synth.Record]:
    offsets = [0] * partitions
    records: list[synth.Record] = []
    rowids = _Rowids()
    scn = 14_589_063_118_712
    for number, change in enumerate(stream.changes, start=1):
        table = change.table
        scn += 3
        ts = start_ms + number * 1000
        meta = {"time": _iso(ts), "userid": 84, "scn": str(scn),
                "trans": f"{number % 10}.{number % 32}.{411_499 + number}", "size": max(len(change.rows), 1),
                "table": f"{stream.db}.{table}", "posttime": _iso(ts + 2000)}
        if change.op == "TRUNCATE":
            rowids.truncate(table)
            message = {"meta": {**meta, "op": "truncate", "seq": 1, "idx": "1/1"}}
            part = synth.partition_of(table, None, partitions)
            records.append(synth.Record(topic, part, offsets[part], ts + 40, json.dumps(message, ensure_ascii=False)))
            offsets[part] += 1
            continue
        for seq, (before, after) in enumerate(change.rows, start=1):
            row_meta = {**meta, "seq": seq, "idx": f"{seq}/{meta['size']}"}
            if change.op == "INSERT":
                assert after is not None
                message = {"meta": {**row_meta, "op": "ins", "rowid": rowids.new(table, after)}, "data": after}
            elif change.op == "DELETE":
                assert before is not None
                message = {"meta": {**row_meta, "op": "del", "rowid": rowids.take(table, before)}, "data": before}
            else:
                assert before is not None and after is not None
                rowid = rowids.take(table, before)
                rowids.put(table, after, rowid)
                changed = [c for c in after if after[c] != before.get(c)]
                key_columns = synth.TABLES[table] or list(before)
                key = {c: before[c] for c in dict.fromkeys([*key_columns, *changed])}
                message = {"meta": {**row_meta, "op": "upd", "rowid": rowid},
                           "data": {c: after[c] for c in changed}, "key": key}
            part = synth.partition_of(table, after if after is not None else before, partitions)
            records.append(synth.Record(topic, part, offsets[part], ts + 40, json.dumps(message, ensure_ascii=False)))
            offsets[part] += 1
    return records
