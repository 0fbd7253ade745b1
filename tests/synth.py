"""Synthetic CDC streams with a known final state, for tests, benchmarks and trying things.

A `Stream` is a sequence of logical changes to three tables — `orders` (key `id`),
`order_lines` (composite key `order_id, line_no`) and `events` (no key: a multiset) —
with multi-row statements, updates that change the key, deletes, a TRUNCATE of the
unkeyed table, NULLs, unicode text, long decimals and binary values. `render_*` turns
it into Kafka records of one vendor format; `fold` computes the final state in plain
Python, in the canonical text of silver, so gold can be compared with it.
"""

from __future__ import annotations

import base64
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

Row = dict[str, str | None]

TABLES: dict[str, list[str]] = {"orders": ["id"], "order_lines": ["order_id", "line_no"], "events": []}
COLUMNS: dict[str, dict[str, str]] = {
    "orders": {"id": "bigint(20)", "customer": "varchar(64)", "amount": "decimal(38,10)",
               "note": "text", "blob": "varbinary(32)", "created": "datetime"},
    "order_lines": {"order_id": "bigint(20)", "line_no": "int(11)", "sku": "varchar(32)",
                    "qty": "int(11)", "price": "decimal(20,4)"},
    "events": {"kind": "varchar(16)", "payload": "varchar(64)", "score": "double"},
}
_WORDS = ["alpha", "Ωmega", "华为云", "naïve", "emoji 🚀", "quote \"x\"", "back\\slash", "tab\tin", "O'Brien"]


@dataclass
class Change:
    """One logical change: a statement on one table (several rows) or a truncate."""

    table: str
    op: str  # INSERT, UPDATE, DELETE, TRUNCATE
    rows: list[tuple[Row | None, Row | None]]  # (before, after) per row


@dataclass
class Stream:
    db: str
    changes: list[Change] = field(default_factory=list)


def _binary(rng: random.Random) -> str:
    """Canonical (base64) text of random bytes, sometimes empty, sometimes high bytes."""
    return base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 9)))).decode()


def _decimal(rng: random.Random, int_digits: int, scale: int) -> str:
    whole = str(rng.randrange(10 ** int_digits))
    frac = "".join(str(rng.randrange(10)) for _ in range(scale))
    return f"{'-' if rng.random() < 0.2 else ''}{whole}.{frac}"


def _maybe(rng: random.Random, value: str, null_rate: float = 0.15) -> str | None:
    return None if rng.random() < null_rate else value


def _order(rng: random.Random, key: int) -> Row:
    return {
        "id": str(key),
        "customer": _maybe(rng, rng.choice(_WORDS) + str(rng.randrange(100))),
        "amount": _maybe(rng, _decimal(rng, 27, 10)),
        "note": _maybe(rng, rng.choice(_WORDS), 0.4),
        "blob": _maybe(rng, _binary(rng)),
        "created": (f"2024-0{rng.randrange(1, 10)}-1{rng.randrange(10)} "
                    f"1{rng.randrange(10)}:3{rng.randrange(10)}:0{rng.randrange(10)}"),
    }


def _line(rng: random.Random, order_id: int, line_no: int) -> Row:
    return {"order_id": str(order_id), "line_no": str(line_no), "sku": f"SKU-{rng.randrange(1000)}",
            "qty": str(rng.randrange(1, 20)), "price": _maybe(rng, _decimal(rng, 14, 4))}


def _event(rng: random.Random) -> Row:
    return {"kind": rng.choice(["click", "view", "buy"]), "payload": _maybe(rng, rng.choice(_WORDS)),
            "score": rng.choice(["1.5", "0.25", "12510357", "3"])}


def generate(db: str, n_changes: int = 1200, seed: int = 7) -> Stream:
    """At least `n_changes` row changes over the three tables."""
    rng = random.Random(seed)
    stream = Stream(db)
    orders: dict[int, Row] = {}
    lines: dict[tuple[int, int], Row] = {}
    events: list[Row] = []
    next_id = 1
    rows_emitted = 0
    truncated = False
    while rows_emitted < n_changes:
        roll = rng.random()
        if roll < 0.25 or len(orders) < 5:
            batch = []
            for _ in range(rng.randrange(1, 4)):
                orders[next_id] = _order(rng, next_id)
                batch.append((None, dict(orders[next_id])))
                next_id += 1
            stream.changes.append(Change("orders", "INSERT", batch))
        elif roll < 0.45:
            keys = rng.sample(sorted(orders), min(len(orders), rng.randrange(1, 4)))
            batch = []
            for key in keys:
                before = dict(orders[key])
                after = dict(before)
                after["customer"] = _maybe(rng, rng.choice(_WORDS))
                if rng.random() < 0.5:
                    after["amount"] = _maybe(rng, _decimal(rng, 27, 10))
                if rng.random() < 0.3:
                    after["blob"] = _maybe(rng, _binary(rng))
                orders[key] = after
                batch.append((before, dict(after)))
            stream.changes.append(Change("orders", "UPDATE", batch))
        elif roll < 0.52:
            key = rng.choice(sorted(orders))
            before = orders.pop(key)
            after = dict(before, id=str(next_id))
            orders[next_id] = after
            next_id += 1
            stream.changes.append(Change("orders", "UPDATE", [(dict(before), dict(after))]))
        elif roll < 0.60:
            keys = rng.sample(sorted(orders), min(len(orders), rng.randrange(1, 3)))
            stream.changes.append(Change("orders", "DELETE", [(orders.pop(k), None) for k in keys]))
        elif roll < 0.72:
            order_id = rng.choice(sorted(orders))
            batch = []
            for line_no in range(1, rng.randrange(2, 5)):
                if (order_id, line_no) not in lines:
                    lines[(order_id, line_no)] = _line(rng, order_id, line_no)
                    batch.append((None, dict(lines[(order_id, line_no)])))
            if batch:
                stream.changes.append(Change("order_lines", "INSERT", batch))
        elif roll < 0.80 and lines:
            key = rng.choice(sorted(lines))
            before = lines.pop(key)
            if rng.random() < 0.3:
                new_key = (key[0], key[1] + 100)
                if new_key in lines:
                    lines[key] = before
                    continue
                after = dict(before, line_no=str(new_key[1]))
            else:
                new_key, after = key, dict(before, qty=str(rng.randrange(1, 50)), price=None)
            lines[new_key] = after
            stream.changes.append(Change("order_lines", "UPDATE", [(dict(before), dict(after))]))
        elif roll < 0.84 and lines:
            key = rng.choice(sorted(lines))
            stream.changes.append(Change("order_lines", "DELETE", [(lines.pop(key), None)]))
        elif roll < 0.93:
            row = _event(rng)
            copies = 2 if rng.random() < 0.3 else 1
            events.extend(dict(row) for _ in range(copies))
            stream.changes.append(Change("events", "INSERT", [(None, dict(row)) for _ in range(copies)]))
        elif roll < 0.97 and events:
            row = events.pop(rng.randrange(len(events)))
            if rng.random() < 0.5:
                stream.changes.append(Change("events", "DELETE", [(row, None)]))
            else:
                after = dict(row, score="99.5")
                events.append(after)
                stream.changes.append(Change("events", "UPDATE", [(row, dict(after))]))
        elif not truncated and rows_emitted > n_changes // 2:
            events.clear()
            truncated = True
            stream.changes.append(Change("events", "TRUNCATE", []))
        else:
            continue
        rows_emitted += len(stream.changes[-1].rows)
    return stream


# --- the reference fold -----------------------------------------------------------------

def _row_key(table: str, row: Row) -> str:
    pk = TABLES[table]
    if pk:
        return json.dumps([row[c] for c in pk], ensure_ascii=False, separators=(",", ":"))
    # a keyless row's identity leaves its NULL columns out (absent equals NULL)
    return json.dumps({c: v for c, v in sorted(row.items()) if v is not None},
                      ensure_ascii=False, separators=(",", ":"))


def fold(stream: Stream) -> dict[tuple[str, str], tuple[Row, int]]:
    """Final state: (table_id, row_key) -> (row, row_count), changes applied in order."""
    keyed: dict[tuple[str, str], Row] = {}
    multiset: dict[str, Counter[str]] = {}
    unkeyed_rows: dict[tuple[str, str], Row] = {}
    for change in stream.changes:
        table_id = f"{stream.db}.{change.table}"
        if change.op == "TRUNCATE":
            multiset.pop(table_id, None)
            for key in [k for k in keyed if k[0] == table_id]:
                del keyed[key]
            continue
        for before, after in change.rows:
            if TABLES[change.table]:
                if before is not None:
                    keyed.pop((table_id, _row_key(change.table, before)), None)
                if after is not None:
                    keyed[(table_id, _row_key(change.table, after))] = after
            else:
                counts = multiset.setdefault(table_id, Counter())
                if before is not None:
                    counts[_row_key(change.table, before)] -= 1
                if after is not None:
                    counts[_row_key(change.table, after)] += 1
                    unkeyed_rows[(table_id, _row_key(change.table, after))] = after
    state = {key: (row, 1) for key, row in keyed.items()}
    for table_id, counts in multiset.items():
        for key, count in counts.items():
            if count > 0:
                state[(table_id, key)] = (unkeyed_rows[(table_id, key)], count)
    return state


# --- rendering as Kafka records -----------------------------------------------------------

@dataclass(frozen=True)
class Record:
    topic: str
    partition: int
    offset: int
    timestamp: int
    value: str | None  # None: a tombstone; base64 of the bytes when `binary`
    key: str | None = None
    binary: bool = False  # an Avro (or other binary) value, landed as `value_base64`

    def to_json(self) -> str:
        return json.dumps({"topic": self.topic, "partition": self.partition, "offset": self.offset,
                           "timestamp": self.timestamp, "key": self.key,
                           "value_base64" if self.binary else "value": self.value},
                          ensure_ascii=False)

    @classmethod
    def of_bytes(cls, topic: str, partition: int, offset: int, timestamp: int, value: bytes,
                 key: str | None = None) -> Record:
        return cls(topic, partition, offset, timestamp, base64.b64encode(value).decode("ascii"), key, True)


def _latin1_text(b64: str | None) -> str | None:
    """Canal renders binary columns as the bytes read as ISO-8859-1 text."""
    return None if b64 is None else base64.b64decode(b64).decode("latin-1")


def _byte_array_text(b64: str | None) -> str | None:
    """DRS renders binary columns as Java's Arrays.toString(byte[]) (signed bytes)."""
    if b64 is None:
        return None
    return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in base64.b64decode(b64)) + "]"


_CANAL_FORMATS = ("canal_json", "canal_json_legacy", "drs_json", "drs_json_c")


def _vendor_row(table: str, row: Row | None, binary: Callable[[str | None], str | None]) -> Row | None:
    if row is None:
        return None
    return {c: (binary(v) if "binary" in COLUMNS[table][c] else v) for c, v in row.items()}


def partition_of(table: str, row: Row | None, partitions: int) -> int:
    pk = TABLES[table]
    if not pk or row is None:
        return sum(map(ord, table)) % partitions
    return sum(map(ord, "|".join(str(row[c]) for c in pk))) % partitions


def render_canal_family(stream: Stream, format_id: str, topic: str, partitions: int = 3,
                        start_ms: int = 1_700_000_000_000) -> list[Record]:
    """Kafka records of `stream` in one of the Canal-family formats.

    Rows of one statement are split across partitions by key hash, as Canal does; each
    message gets the next whole second as `es` and (DRS) the next `id`, so the format's
    ordering fields agree with the true order.
    """
    if format_id not in _CANAL_FORMATS:
        raise ValueError(f"not a Canal-family format: {format_id}")
    drs = format_id.startswith("drs_")
    binary = _byte_array_text if drs else _latin1_text
    offsets = [0] * partitions
    records: list[Record] = []
    seq = 0
    for change in stream.changes:
        groups: dict[int, list[tuple[Row | None, Row | None]]] = {}
        if change.op == "TRUNCATE":
            groups[partition_of(change.table, None, partitions)] = []
        for before, after in change.rows:
            part = partition_of(change.table, after if after is not None else before, partitions)
            groups.setdefault(part, []).append((before, after))
        for part, rows in sorted(groups.items()):
            seq += 1
            es = start_ms + seq * 1000
            message: dict[str, Any] = {
                "id": seq if drs else 1 + seq // 10, "database": stream.db, "table": change.table,
                "pkNames": TABLES[change.table] or None, "isDdl": change.op == "TRUNCATE",
                "type": change.op, "es": es, "ts": es + 250, "sql": "",
                "sqlType": {c: 12 for c in COLUMNS[change.table]},
                "mysqlType": COLUMNS[change.table], "data": None, "old": None,
            }
            if change.op == "TRUNCATE":
                # Canal names the event TRUNCATE; DRS sends it as a DDL statement
                message.update(type="DDL" if drs else "TRUNCATE", mysqlType=None, sqlType=None,
                               sql=f"TRUNCATE TABLE `{stream.db}`.`{change.table}`")
            else:
                befores = [_vendor_row(change.table, b, binary) for b, _ in rows]
                afters = [_vendor_row(change.table, a, binary) for _, a in rows]
                _place_images(message, format_id, change.op, befores, afters)
            records.append(Record(topic, part, offsets[part], es + 500, json.dumps(message, ensure_ascii=False)))
            offsets[part] += 1
    return records


def _changed_only(before: Row, after: Row) -> Row:
    return {c: v for c, v in before.items() if after.get(c) != v}


def _place_images(message: dict[str, Any], format_id: str, op: str,
                  befores: list[Row | None], afters: list[Row | None]) -> None:
    if op == "INSERT":
        message["data"] = afters
    elif op == "DELETE":
        if format_id in ("drs_json", "canal_json_legacy"):
            message["old"] = befores
        else:
            message["data"] = befores
    elif format_id == "canal_json":
        message["data"] = afters
        message["old"] = [_changed_only(b or {}, a or {}) for b, a in zip(befores, afters, strict=True)]
    elif format_id == "canal_json_legacy":
        message["data"] = befores
        message["old"] = afters
    else:
        message["data"] = afters
        message["old"] = befores


# --- delivery disorders -----------------------------------------------------------------

def redeliver(records: list[Record], rate: float, seed: int = 11) -> list[Record]:
    """`records` plus copies of a `rate` share of them: half re-read at the same offset,
    half re-produced at a new offset after the end of their partition."""
    rng = random.Random(seed)
    next_offset: dict[tuple[str, int], int] = {}
    for r in records:
        key = (r.topic, r.partition)
        next_offset[key] = max(next_offset.get(key, 0), r.offset + 1)
    extra = []
    for r in rng.sample(records, int(len(records) * rate)):
        if rng.random() < 0.5:
            extra.append(r)
        else:
            key = (r.topic, r.partition)
            extra.append(replace(r, offset=next_offset[key]))
            next_offset[key] += 1
    return records + extra


def shuffled(records: list[Record], seed: int = 13) -> list[Record]:
    out = list(records)
    random.Random(seed).shuffle(out)
    return out


def split(records: list[Record], parts: int, seed: int = 17) -> Iterator[list[Record]]:
    """Deal `records` at random into `parts` landing batches."""
    rng = random.Random(seed)
    batches: list[list[Record]] = [[] for _ in range(parts)]
    for r in records:
        batches[rng.randrange(parts)].append(r)
    yield from batches


def write_records(path: Any, records: list[Record]) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        for r in records:
            handle.write(r.to_json() + "\n")
