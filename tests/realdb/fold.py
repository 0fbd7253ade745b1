"""A plain-Python fold of a captured change log into each table's rows: the reference
that the log is complete (folding it gives the database's final rows) and that gold
tables can be held against.

Keyed tables fold by primary key; a change that does not fit (an INSERT onto a key
held, an UPDATE or DELETE of a key not held) is an error, not skipped. Tables without a
key fold as multisets of rows, where a row's identity survives schema changes: an absent
column equals NULL, and a column the table no longer has is ignored (DESIGN §4.3).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from realdb.model import Capture, Event, Row, TableSchema, Value

TableKey = tuple[str, str]  # (namespace, table): MariaDB database / PostgreSQL schema


def namespace(schema: TableSchema) -> str:
    return schema.schema or schema.db


def strict(value: Value) -> tuple[str, str]:
    """A value compared by type and exact text: Decimal('1.50') is not Decimal('1.5'),
    -0.0 is not 0.0, a naive datetime is not an aware one."""
    return type(value).__name__, repr(value)


def identity(row: Row, columns: Iterable[str]) -> tuple[tuple[str, str], ...]:
    """The row over `columns`, an absent column as NULL, other columns ignored."""
    return tuple(strict(row.get(name)) for name in columns)


class _Table:
    def __init__(self, schema: TableSchema) -> None:
        self.keyed: dict[tuple[Value, ...], Row] = {}
        self.keyless: list[Row] = []
        self.schema = schema

    def key(self, row: Row) -> tuple[Value, ...]:
        return tuple(row[name] for name in self.schema.pk)

    def apply(self, event: Event) -> None:
        assert event.schema is not None
        self.schema = event.schema
        for change in event.rows:
            # no before image of an UPDATE (PostgreSQL, replica identity DEFAULT): the key
            # did not change, the after image's key is the row's
            before = change.after if change.before is None and event.op == "UPDATE" else change.before
            if before is not None:
                self.remove(before, event)
            if change.after is not None:
                self.add(change.after, event)

    def add(self, row: Row, event: Event) -> None:
        if not self.schema.pk:
            self.keyless.append(row)
            return
        key = self.key(row)
        if key in self.keyed:
            raise AssertionError(f"event {event.seq} inserts key {key} of {self.schema.name}, held already")
        self.keyed[key] = row

    def remove(self, row: Row, event: Event) -> None:
        if self.schema.pk:
            if self.keyed.pop(self.key(row), None) is None:
                raise AssertionError(f"event {event.seq} changes key {self.key(row)} of {self.schema.name}, not held")
            return
        columns = [c.name for c in self.schema.columns]
        wanted = identity(row, columns)
        for i, held in enumerate(self.keyless):
            if identity(held, columns) == wanted:
                del self.keyless[i]
                return
        raise AssertionError(f"event {event.seq} changes a row of {self.schema.name} not held: {row}")

    def rows(self) -> list[Row]:
        return list(self.keyed.values()) if self.schema.pk else list(self.keyless)


def fold(events: list[Event]) -> dict[TableKey, list[Row]]:
    """Each table's rows after the events, in no particular order."""
    tables: dict[TableKey, _Table] = {}
    for event in events:
        if event.schema is None:
            continue  # a DDL about a database or schema
        key = (namespace(event.schema), event.table)
        table = tables.setdefault(key, _Table(event.schema))
        if event.op == "TRUNCATE":
            tables[key] = _Table(event.schema)
        elif event.kind == "ddl":
            table.schema = event.schema
        else:
            table.apply(event)
    return {key: table.rows() for key, table in tables.items()}


def differences(capture: Capture) -> list[str]:
    """Where the fold of the capture's events and its final rows disagree, value by value
    (compared as multisets over the final columns: absent = NULL, gone = ignored)."""
    folded = fold(capture.events)
    problems = []
    for key, (schema, final_rows) in capture.final.items():
        columns = [c.name for c in schema.columns]
        want = Counter(identity(row, columns) for row in final_rows)
        got = Counter(identity(row, columns) for row in folded.get(key, []))
        for row, count in (want - got).items():
            problems.append(f"{key}: final has {count}x {dict(zip(columns, row, strict=True))} that the fold lacks")
        for row, count in (got - want).items():
            problems.append(f"{key}: fold has {count}x {dict(zip(columns, row, strict=True))} that final lacks")
    return problems
