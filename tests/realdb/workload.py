"""The seeded workload: SQL statements that a real client runs against MariaDB or
PostgreSQL, so the change log under test is one the database really wrote.

Deterministic from the seed (random.Random(seed)): the same seed gives the same
statements, hence the same rows; only the log's times differ between runs. The generator
tracks which keys each table holds, so every UPDATE and DELETE hits rows and every INSERT
and key change succeeds.

What it covers (both dialects, MariaDB in full, PostgreSQL as far as it has the type):
tables with an integer key, a composite key with a varchar part, no key (identical rows
on purpose), a varchar key; every common column type at its limits (`EDGE` columns of
`all_types`, whose first rows hold every edge value and are never changed); single- and
multi-row INSERT, UPDATE, DELETE; key-changing updates (also over many rows, MariaDB
`ORDER BY id DESC` so overlapping shifts succeed); updates and deletes of one of several
identical keyless rows; ADD COLUMN (MariaDB `AFTER` a middle column) and DROP COLUMN
mid-stream, also on the keyless table around rows inserted before the change; TRUNCATE;
a burst of changes to one key inside one wall-clock second, with the key moved away by
an UPDATE and inserted again right after.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from realdb.model import Value

UTC = dt.UTC
# the PostgreSQL schema of products: not "inventory", which CDL 1.0 (schema.table ids) would share
# with the Debezium examples' inventory.products in the examples lake
PG_ASIDE = "warehouse"


@dataclass(frozen=True)
class Statement:
    sql: str
    # dml: row changes; ddl: changes or creates tables (the runner snapshots the catalog
    # after it); truncate: TRUNCATE (a statement in the MariaDB binlog, a change in
    # PostgreSQL's logical decoding); tx: BEGIN / COMMIT
    kind: Literal["dml", "ddl", "truncate", "tx"] = "dml"
    # run at the start of a fresh wall-clock second, so the quick statements after it
    # (the burst) share that second
    new_second: bool = False


@dataclass
class Workload:
    dialect: Literal["mariadb", "postgres"]
    statements: list[Statement]
    namespaces: tuple[str, ...]  # MariaDB databases / PostgreSQL schemas it creates
    # (namespace, table, column) -> values the table must still hold after the workload
    edge_values: dict[tuple[str, str, str], list[Value]] = field(default_factory=dict)


def wait_for_new_second() -> None:
    """Sleep until just after the next wall-clock second starts."""
    now = time.time()
    time.sleep(1.0 - (now % 1.0) + 0.01)


# ---------------------------------------------------------------- SQL literals


def _time_literal(value: dt.timedelta) -> str:
    micros = value // dt.timedelta(microseconds=1)
    sign, micros = ("-", -micros) if micros < 0 else ("", micros)
    seconds, us = divmod(micros, 1_000_000)
    text = f"{sign}{seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"'{text}.{us:06d}'" if us else f"'{text}'"


def mariadb_literal(value: Value) -> str:
    """A MariaDB literal for `value` (backslash escapes: the default sql_mode)."""
    if isinstance(value, str):
        escapes = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\0": "\\0", "\n": "\\n",
                   "\r": "\\r", "\x1a": "\\Z"}
        return "'" + "".join(escapes.get(ch, ch) for ch in value) + "'"
    if isinstance(value, bytes):
        return f"X'{value.hex()}'"
    return _common_literal(value)


def postgres_literal(value: Value) -> str:
    """A PostgreSQL literal for `value` (standard_conforming_strings: only ' doubles)."""
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, bytes):
        return f"'\\x{value.hex()}'::bytea"
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "'Infinity'::float8" if value > 0 else "'-Infinity'::float8"
    return _common_literal(value)


def _common_literal(value: Value) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, Decimal):
        return format(value, "f")  # never an exponent: 1E-10 would be read as a double
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, dt.timedelta):
        return _time_literal(value)
    if isinstance(value, dt.datetime):
        return f"'{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"'{value.isoformat()}'"
    raise TypeError(f"no literal for {value!r}")


# ---------------------------------------------------------------- values

# text a parser, an escaper or a JSON encoder can get wrong
HOSTILE_TEXT: tuple[str, ...] = (
    "O'Reilly", 'say "hi"', "back\\slash \\n is not a newline\\", "line1\r\nline2\nline3\r",
    "emoji 😀🎉 family 👩‍👩‍👧", "中文字符 日本語 한국어", "مرحبا بالعالم", "שלום עולם",
    "line\u2028separator\u2029paragraph", "'; DROP TABLE t; --", "tab\there", "ctrl-z \x1a",
    "", "  spaces around  ", "%_ like wildcards", "null", "{\"not\": \"json\"}",
)
MARIADB_ONLY_TEXT: tuple[str, ...] = ("nul\0byte\0", "\0")  # PostgreSQL text holds no NUL

# JSON documents whose numbers must keep their text (966.0, 1e3, -0, 23 digits)
JSON_DOCS: tuple[str, ...] = (
    '{"price": 966.0}',
    '[1e3, -0, 12345678901234567890123, 0.1, 1E-7, -1.50]',
    '{"a": {"b": {"c": [1, 2, {"d": null}]}}, "t": true, "f": false}',
    '{"name": "Zoë 中文 🎉", "quote": "say \\"hi\\"", "nl": "a\\nb", "esc": "\\u00e9\\u2028"}',
    '123456789876543212345678987654321.110',
    '"just a string"', "null", "{}", "[]", '{"spaced" :  [ 1 ,2 ] }',
)


def _trunc(micros: int, fsp: int) -> int:
    """Microseconds cut to `fsp` digits, as a column of that precision stores them."""
    step = 10 ** (6 - fsp)
    return micros // step * step


@dataclass(frozen=True)
class Col:
    name: str
    sql_type: str
    edges: tuple[Value, ...]  # every one of these ends up in the table's final rows
    draw: Callable[[random.Random], Value]


def _int_col(name: str, sql_type: str, lo: int, hi: int) -> Col:
    return Col(name, sql_type, (lo, hi, 0), lambda r: r.randint(lo, hi))


def _decimal_col(name: str, sql_type: str, int_digits: int, frac_digits: int) -> Col:
    """Decimals built from text only: Decimal arithmetic (even unary minus) rounds to
    the context's 28 digits."""
    nines = "9" * int_digits + "." + "9" * frac_digits
    tiny = "0." + "0" * (frac_digits - 1) + "1"
    mixed = "12345678901234567890." + ("1234567890" * 3)[:frac_digits]
    edges = tuple(Decimal(text) for text in (nines, "-" + nines, tiny, "-" + tiny, "0." + "0" * frac_digits,
                                             "-" + mixed))

    def draw(r: random.Random) -> Decimal:
        sign = r.choice(("", "-"))
        return Decimal(f"{sign}{r.randrange(10 ** r.randint(1, int_digits))}."
                       f"{r.randrange(10 ** frac_digits):0{frac_digits}d}")

    return Col(name, sql_type, edges, draw)


def _datetime_draw(lo: dt.datetime, hi: dt.datetime, fsp: int) -> Callable[[random.Random], dt.datetime]:
    span = int((hi - lo).total_seconds())

    def draw(r: random.Random) -> dt.datetime:
        return lo + dt.timedelta(seconds=r.randrange(span), microseconds=_trunc(r.randrange(10**6), fsp))

    return draw


def _time_draw(fsp: int) -> Callable[[random.Random], dt.timedelta]:
    limit = 838 * 3600 + 59 * 60 + 59

    def draw(r: random.Random) -> dt.timedelta:
        magnitude = dt.timedelta(seconds=r.randint(0, limit), microseconds=_trunc(r.randrange(10**6), fsp))
        return -magnitude if r.random() < 0.4 else magnitude

    return draw


def _text_draw(pool: tuple[str, ...], max_len: int) -> Callable[[random.Random], str]:
    def draw(r: random.Random) -> str:
        if r.random() < 0.5:
            return r.choice(pool)
        return "".join(r.choice("abcdefghij KLMNOP-_.é中😀") for _ in range(r.randint(1, max_len)))

    return draw


def _bytes_draw(max_len: int) -> Callable[[random.Random], bytes]:
    return lambda r: bytes(r.randrange(256) for _ in range(r.randint(0, max_len)))


def _mariadb_temporal_cols() -> list[Col]:
    cols = []
    for p in range(7):
        cols.append(Col(f"dt{p}", f"DATETIME({p})" if p else "DATETIME", (
            dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, _trunc(999999, p)),
            dt.datetime(1969, 12, 31, 23, 59, 59, _trunc(123456, p)), dt.datetime(1970, 1, 1),
            dt.datetime(1582, 10, 10, 12, 0, 0, _trunc(500000, p)),
        ), _datetime_draw(dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31), p)))
    for p in range(7):
        cols.append(Col(f"ts{p}", (f"TIMESTAMP({p})" if p else "TIMESTAMP") + " NULL", (
            dt.datetime(1970, 1, 1, 0, 0, 1), dt.datetime(2038, 1, 19, 3, 14, 7, _trunc(999999, p)),
            dt.datetime(2000, 2, 29, 12, 0, 0, _trunc(1, 6) if p == 6 else 0),
            dt.datetime(1999, 12, 31, 23, 59, 59, _trunc(654321, p)),
        ), _datetime_draw(dt.datetime(1970, 1, 2), dt.datetime(2038, 1, 18), p)))
    for p in range(7):
        biggest = dt.timedelta(hours=838, minutes=59, seconds=59, microseconds=_trunc(999999, p))
        edges: list[Value] = [biggest, -biggest, dt.timedelta(0), dt.timedelta(hours=25),
                              -dt.timedelta(hours=12, minutes=30, seconds=15, microseconds=_trunc(250000, p))]
        if p:
            edges += [-dt.timedelta(microseconds=_trunc(500000, p)), -dt.timedelta(microseconds=10 ** (6 - p)),
                      -dt.timedelta(seconds=1, microseconds=_trunc(900000, p))]
        cols.append(Col(f"tm{p}", f"TIME({p})" if p else "TIME", tuple(edges), _time_draw(p)))
    return cols


def mariadb_type_columns() -> list[Col]:
    """The columns of MariaDB's shop.all_types after its integer key `id`."""
    text = HOSTILE_TEXT + MARIADB_ONLY_TEXT
    return [
        _int_col("ti", "TINYINT", -128, 127), _int_col("ti_u", "TINYINT UNSIGNED", 0, 255),
        _int_col("si", "SMALLINT", -32768, 32767), _int_col("si_u", "SMALLINT UNSIGNED", 0, 65535),
        _int_col("mi", "MEDIUMINT", -8388608, 8388607), _int_col("mi_u", "MEDIUMINT UNSIGNED", 0, 16777215),
        _int_col("i", "INT", -2**31, 2**31 - 1), _int_col("i_u", "INT UNSIGNED", 0, 2**32 - 1),
        _int_col("bi", "BIGINT", -2**63, 2**63 - 1), _int_col("bi_u", "BIGINT UNSIGNED", 0, 2**64 - 1),
        _decimal_col("dec65", "DECIMAL(65,30)", 35, 30), _decimal_col("dec38", "DECIMAL(38,10)", 28, 10),
        Col("dec_u", "DECIMAL(10,2) UNSIGNED", (Decimal("0.00"), Decimal("99999999.99")),
            lambda r: Decimal(r.randrange(10**10)) / 100),
        # FLOAT values with at most 7 significant digits: the shortest text of the float32
        Col("fl", "FLOAT", (3.14, -1.5, 0.0, 3.40282e38, -3.40282e38, 1.17549e-38, 1.2345678, 16777216.0),
            lambda r: r.randint(-999999, 999999) / 1000),
        Col("db", "DOUBLE", (6.02214076e23, 1e-300, -1.7976931348623157e308, 2.2250738585072014e-308,
                             5e-324, 0.30000000000000004, 0.1, -0.5),
            lambda r: r.uniform(-1e9, 1e9)),
        Col("bt1", "BIT(1)", (0, 1), lambda r: r.randint(0, 1)),
        Col("bt12", "BIT(12)", (0, 4095, 0b101010101010), lambda r: r.randrange(4096)),
        Col("bt64", "BIT(64)", (0, 2**64 - 1, 2**63, 1), lambda r: r.randrange(2**64)),
        Col("ch", "CHAR(10)", ("", "a", "O'Reilly", "中文字符", "abcdefghij", "x y\\z"),
            _text_draw(("a", "b'c", "中"), 10)),
        Col("vc", "VARCHAR(255)", (*text, "é" * 255), _text_draw(text, 60)),
        Col("tx", "TEXT", (*text, "long " * 300), _text_draw(text, 200)),
        Col("bn", "BINARY(8)", (bytes(8), b"ab" + bytes(6), b"\xff" * 8, bytes(range(1, 9)), b"\xfe" + bytes(7)),
            lambda r: bytes(r.randrange(256) for _ in range(r.randint(1, 7))).ljust(8, b"\0")),
        Col("vb", "VARBINARY(16)", (b"", b"\0", b"a\0\0", b"\xff" * 16, b"\x80\0"), _bytes_draw(16)),
        Col("bl", "BLOB", (b"", bytes(range(256)), b"\0\0\0", b"%PDF-1.4\n\xe2\xe3\xcf\xd3\0\0"), _bytes_draw(300)),
        Col("en", "ENUM('small','medium','large','x-large')", ("small", "medium", "large", "x-large"),
            lambda r: r.choice(("small", "medium", "large", "x-large"))),
        Col("st", "SET('red','green','blue')", ("", "red", "green,blue", "red,green,blue"),
            lambda r: ",".join(c for c in ("red", "green", "blue") if r.random() < 0.5)),
        Col("js", "JSON", JSON_DOCS, lambda r: r.choice(JSON_DOCS)),
        Col("d", "DATE", (dt.date(1000, 1, 1), dt.date(9999, 12, 31), dt.date(1969, 12, 31),
                          dt.date(1970, 1, 1), dt.date(1582, 10, 10), dt.date(2024, 2, 29)),
            lambda r: dt.date(1000, 1, 1) + dt.timedelta(days=r.randrange(3_287_000))),
        *_mariadb_temporal_cols(),
        Col("yr", "YEAR", (1901, 2155, 0, 1970, 2000), lambda r: r.randint(1901, 2155)),
    ]


def postgres_type_columns() -> list[Col]:
    """The columns of PostgreSQL's public.all_types after its integer key `id`."""
    cols = [
        _int_col("sm", "smallint", -32768, 32767), _int_col("i", "integer", -2**31, 2**31 - 1),
        _int_col("bi", "bigint", -2**63, 2**63 - 1),
        Col("num", "numeric", (Decimal("123456789876543212345678987654321.110"),
                               Decimal("-0.000000000000000000000000000000000001"),
                               Decimal("1" + "0" * 40), Decimal("0")),
            lambda r: Decimal(f"{r.randrange(-10**30, 10**30)}E-{r.randint(0, 20)}")),
        _decimal_col("num65", "numeric(65,30)", 35, 30), _decimal_col("num38", "numeric(38,10)", 28, 10),
        Col("rl", "real", (3.14, -1.5, 0.0, 3.4028235e38, 1.1754944e-38, 1.2345678),
            lambda r: r.randint(-999999, 999999) / 1000),
        Col("dbl", "double precision", (6.02214076e23, 1e-300, 5e-324, -1.7976931348623157e308,
                                        0.30000000000000004, float("inf"), float("-inf")),
            lambda r: r.uniform(-1e9, 1e9)),
        Col("flag", "boolean", (True, False), lambda r: r.random() < 0.5),
        Col("ch", "character(10)", ("a         ", "O'Reilly  ", "中文字符      "),
            lambda r: r.choice(("x", "yy", "zzz")).ljust(10)),
        Col("vc", "varchar(255)", HOSTILE_TEXT, _text_draw(HOSTILE_TEXT, 60)),
        Col("tx", "text", (*HOSTILE_TEXT, "long " * 300), _text_draw(HOSTILE_TEXT, 200)),
        Col("by", "bytea", (b"", b"\0", bytes(range(256)), b"\xff\0\0"), _bytes_draw(64)),
        Col("js", "json", JSON_DOCS, lambda r: r.choice(JSON_DOCS)),
        # jsonb normalises the text: no edge list, the test checks the fold against it
        Col("jb", "jsonb", (), lambda r: r.choice(JSON_DOCS)),
        Col("d", "date", (dt.date(1, 1, 1), dt.date(9999, 12, 31), dt.date(1969, 12, 31), dt.date(1970, 1, 1)),
            lambda r: dt.date(1, 1, 1) + dt.timedelta(days=r.randrange(3_652_000))),
    ]
    for p in range(7):
        cols.append(Col(f"ts{p}", f"timestamp({p})", (
            dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31, 23, 59, 59, _trunc(999999, p)),
            dt.datetime(1969, 12, 31, 23, 59, 59, _trunc(123456, p)),
        ), _datetime_draw(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31), p)))
    for name, sql_type, p in (("tstz", "timestamptz", 6), ("tstz0", "timestamptz(0)", 0)):
        cols.append(Col(name, sql_type, (
            dt.datetime(1, 1, 1, tzinfo=UTC), dt.datetime(1970, 1, 1, tzinfo=UTC),
            dt.datetime(9999, 12, 31, 23, 59, 59, _trunc(999999, p), tzinfo=UTC),
        ), lambda r, p=p: _datetime_draw(dt.datetime(1, 1, 1), dt.datetime(9999, 12, 31), p)(r).replace(tzinfo=UTC)))
    cols.append(Col("tm", "time", (dt.timedelta(0), dt.timedelta(hours=23, minutes=59, seconds=59, microseconds=999999),
                                   dt.timedelta(hours=12, minutes=34, seconds=56, microseconds=500000)),
                    lambda r: dt.timedelta(microseconds=r.randrange(86_400 * 10**6))))
    return cols


# ---------------------------------------------------------------- the generator


@dataclass(frozen=True)
class _Dialect:
    name: Literal["mariadb", "postgres"]
    main: str  # namespace of most tables (MariaDB database / PostgreSQL schema)
    aside: str  # namespace of products (PostgreSQL CDL names schema.table: unique among the examples)
    literal: Callable[[Value], str]
    type_columns: list[Col]
    scale: float  # share of the MariaDB volume
    create: list[str]  # the namespaces and tables

    def one_row(self, table: str, where: str) -> str:
        """A WHERE clause that picks one of the rows matching `where`."""
        if self.name == "mariadb":
            return f"WHERE {where} LIMIT 1"
        return f"WHERE ctid = (SELECT ctid FROM {table} WHERE {where} LIMIT 1)"

    def timestamp(self, value: dt.datetime) -> Value:
        """products.updated: MariaDB TIMESTAMP (naive UTC), PostgreSQL timestamptz (aware)."""
        return value if self.name == "mariadb" else value.replace(tzinfo=UTC)


class _Generator:
    """Builds the statement list, tracking each keyed table's keys."""

    ALL_NULL_ID = 99  # all_types: ids 1.. are the edge rows, 99 the all-NULL row, 1000.. the rest

    def __init__(self, dialect: _Dialect, rng: random.Random) -> None:
        self.d = dialect
        self.r = rng
        self.out: list[Statement] = []
        self.type_cols = list(dialect.type_columns)
        self.type_ids: set[int] = set()
        self.next_type_id = 1000
        self.lines: set[tuple[int, str]] = set()
        self.line_cols = ["order_id", "sku", "qty", "price", "note"]
        self.log_cols = ["kind", "amount", "note", "at"]
        self.codes: set[str] = set()
        self.next_code = 0

    # --- helpers

    def t(self, table: str) -> str:
        ns = self.d.aside if table == "products" else self.d.main
        return f"{ns}.{table}"

    def emit(self, sql: str, kind: Literal["dml", "ddl", "truncate", "tx"] = "dml", new_second: bool = False) -> None:
        self.out.append(Statement(sql, kind, new_second))

    def lit(self, value: Value) -> str:
        return self.d.literal(value)

    def n(self, count: int) -> int:
        return max(1, round(count * self.d.scale))

    def value(self, col: Col) -> Value:
        roll = self.r.random()
        if roll < 0.1:
            return None
        if roll < 0.35 and col.edges:
            return self.r.choice(col.edges)
        return col.draw(self.r)

    def insert(self, table: str, cols: list[str], rows: list[list[Value]]) -> None:
        values = ", ".join("(" + ", ".join(self.lit(v) for v in row) + ")" for row in rows)
        self.emit(f"INSERT INTO {self.t(table)} ({', '.join(cols)}) VALUES {values}")

    # --- all_types (integer key)

    def type_edge_rows(self) -> None:
        """Rows 1..k hold every edge value of every column (row i: edge i mod count),
        row 99 is all NULL; none of them changes afterwards."""
        width = max(len(c.edges) for c in self.type_cols)
        rows = [[i + 1] + [c.edges[i % len(c.edges)] if c.edges else c.draw(self.r) for c in self.type_cols]
                for i in range(width)]
        self.insert("all_types", ["id"] + [c.name for c in self.type_cols], rows)
        self.insert("all_types", ["id"], [[self.ALL_NULL_ID]])

    def type_insert(self) -> None:
        rows = []
        for _ in range(self.r.choice((1, 1, 5, 20, 40))):
            rows.append([self.next_type_id] + [self.value(c) for c in self.type_cols])
            self.type_ids.add(self.next_type_id)
            self.next_type_id += self.r.randint(1, 3)
        self.insert("all_types", ["id"] + [c.name for c in self.type_cols], rows)

    def type_update(self) -> None:
        if not self.type_ids:
            return
        cols = self.r.sample(self.type_cols, self.r.randint(1, 6))
        sets = ", ".join(f"{c.name} = {self.lit(self.value(c))}" for c in cols)
        if self.r.random() < 0.7:
            where = f"id = {self.r.choice(sorted(self.type_ids))}"
        else:  # many rows
            lo = self.r.choice(sorted(self.type_ids))
            where = f"id BETWEEN {lo} AND {lo + self.r.randint(10, 60)}"
        self.emit(f"UPDATE {self.t('all_types')} SET {sets} WHERE {where}")

    def type_delete(self) -> None:
        if len(self.type_ids) < 20:
            return
        victims = self.r.sample(sorted(self.type_ids), self.r.choice((1, 1, 2, 8)))
        self.type_ids -= set(victims)
        self.emit(f"DELETE FROM {self.t('all_types')} WHERE id IN ({', '.join(map(str, victims))})")

    def type_key_shifts(self) -> None:
        """Key-changing updates over many rows: a far jump, and (MariaDB) a shift by one
        onto the range's own keys, which succeeds only in descending order."""
        ids = sorted(self.type_ids)
        span = min(30, len(ids) // 3)
        lo, hi = ids[len(ids) // 4], ids[len(ids) // 4 + span]
        jump = self.next_type_id + 100_000 - lo
        self.emit(f"UPDATE {self.t('all_types')} SET id = id + {jump} WHERE id BETWEEN {lo} AND {hi}")
        moved = {k for k in ids if lo <= k <= hi}
        self.type_ids = (self.type_ids - moved) | {k + jump for k in moved}
        if self.d.name != "mariadb":
            return
        ids = sorted(self.type_ids)
        top = next(k for k in ids[len(ids) // 2:] if k + 1 not in self.type_ids)
        lo = ids[ids.index(top) - span]
        self.emit(f"UPDATE {self.t('all_types')} SET id = id + 1 WHERE id BETWEEN {lo} AND {top} ORDER BY id DESC")
        moved = {k for k in ids if lo <= k <= top}
        self.type_ids = (self.type_ids - moved) | {k + 1 for k in moved}

    # --- order_lines (composite key with a varchar part)

    def line_row(self, key: tuple[int, str]) -> list[Value]:
        row: dict[str, Value] = {
            "order_id": key[0], "sku": key[1], "qty": self.r.randint(1, 500),
            "price": Decimal(self.r.randrange(10**8)) / 100,
            "note": self.r.choice((*HOSTILE_TEXT, None)), "discount": Decimal(self.r.randrange(10**4)) / 100,
        }
        return [row[c] for c in self.line_cols]

    def line_insert(self) -> None:
        order = self.r.randint(1, 10**6)
        keys = [(order, f"SKU-{self.r.randrange(10**4):04d}") for _ in range(self.r.choice((1, 3, 10)))]
        keys = sorted(set(keys) - self.lines)
        if keys:
            self.lines |= set(keys)
            self.insert("order_lines", self.line_cols, [self.line_row(k) for k in keys])

    def line_where(self, key: tuple[int, str]) -> str:
        return f"order_id = {key[0]} AND sku = {self.lit(key[1])}"

    def line_update(self) -> None:
        if not self.lines:
            return
        key = self.r.choice(sorted(self.lines))
        roll = self.r.random()
        if roll < 0.15:  # the key's varchar part changes
            new = (key[0], f"SKU-X{self.r.randrange(10**6):06d}")
            if new not in self.lines:
                self.lines = (self.lines - {key}) | {new}
                self.emit(f"UPDATE {self.t('order_lines')} SET sku = {self.lit(new[1])} WHERE {self.line_where(key)}")
        elif roll < 0.25:  # every line of an order moves to a new order id
            target = key[0] + 2_000_000
            moved = {k for k in self.lines if k[0] == key[0]}
            if not any(k[0] == target for k in self.lines):
                self.lines = (self.lines - moved) | {(target, k[1]) for k in moved}
                self.emit(f"UPDATE {self.t('order_lines')} SET order_id = {target} WHERE order_id = {key[0]}")
        else:
            qty = self.r.randint(0, 999)
            note = self.lit(self.r.choice(HOSTILE_TEXT))
            self.emit(f"UPDATE {self.t('order_lines')} SET qty = {qty}, note = {note} WHERE {self.line_where(key)}"
                      if "note" in self.line_cols else
                      f"UPDATE {self.t('order_lines')} SET qty = {qty} WHERE {self.line_where(key)}")

    def line_delete(self) -> None:
        if len(self.lines) < 10:
            return
        key = self.r.choice(sorted(self.lines))
        if self.r.random() < 0.7:
            self.lines.discard(key)
            self.emit(f"DELETE FROM {self.t('order_lines')} WHERE {self.line_where(key)}")
        else:
            self.lines = {k for k in self.lines if k[0] != key[0]}
            self.emit(f"DELETE FROM {self.t('order_lines')} WHERE order_id = {key[0]}")

    # --- events_log (no key, identical rows on purpose)

    LOG_KINDS = ("click", "view", "dup-a", "dup-b", "dup-c")

    def log_row(self, kind: str) -> list[Value]:
        if kind.startswith("dup"):  # identical rows: the same values every time
            row: dict[str, Value] = {"kind": kind, "amount": Decimal("9.99"), "note": "same",
                                     "at": dt.datetime(2024, 1, 1, 12, 0, 0, 123000), "channel": None}
        else:
            row = {"kind": kind, "amount": Decimal(self.r.randrange(10**6)) / 100,
                   "note": self.r.choice(HOSTILE_TEXT), "channel": self.r.choice(("web", "app", None)),
                   "at": dt.datetime(2024, 1, 1) + dt.timedelta(milliseconds=self.r.randrange(10**9))}
        return [row[c] for c in self.log_cols]

    def log_insert(self) -> None:
        kinds = [self.r.choice(self.LOG_KINDS) for _ in range(self.r.choice((1, 1, 4, 12)))]
        self.insert("events_log", self.log_cols, [self.log_row(k) for k in kinds])

    def log_update(self) -> None:
        kind = self.r.choice(self.LOG_KINDS)
        if self.r.random() < 0.6:  # one of the rows alike
            sets = ("amount = amount + 1" if self.r.random() < 0.5 or "channel" not in self.log_cols
                    else "channel = 'web'")
            self.emit(f"UPDATE {self.t('events_log')} SET {sets} "
                      f"{self.d.one_row(self.t('events_log'), f'kind = {self.lit(kind)}')}")
        else:
            self.emit(f"UPDATE {self.t('events_log')} SET note = {self.lit(self.r.choice(HOSTILE_TEXT))} "
                      f"WHERE kind = {self.lit(kind)} AND amount < {self.r.randint(100, 5000)}")

    def log_delete(self) -> None:
        kind = self.r.choice(self.LOG_KINDS)
        self.emit(f"DELETE FROM {self.t('events_log')} "
                  f"{self.d.one_row(self.t('events_log'), f'kind = {self.lit(kind)}')}")

    # --- products (varchar key)

    PREFIXES = ("sku", "ключ", "键", "📦", "it's", 'a"b', "back\\slash", "مفتاح", "CASE", "case")

    def product_insert(self) -> None:
        rows = []
        for _ in range(self.r.choice((1, 1, 6, 15))):
            code = f"{self.r.choice(self.PREFIXES)}-{self.next_code:05d}"
            self.next_code += 1
            self.codes.add(code)
            rows.append([code, self.r.choice(HOSTILE_TEXT), self.r.choice((*self.price_edges(), Decimal("1.5"))),
                         self.r.randint(-10, 10**6), self.r.choice((*JSON_DOCS, None)),
                         self.d.timestamp(dt.datetime(2001, 1, 1)
                                          + dt.timedelta(microseconds=self.r.randrange(10**15)))])
        self.insert("products", ["code", "name", "price", "stock", "attrs", "updated"], rows)

    def price_edges(self) -> tuple[Value, ...]:
        """products.price (38,10) takes the edges of all_types' decimal(38,10) column."""
        return next(c.edges for c in self.type_cols if c.name in ("dec38", "num38"))

    def product_update(self) -> None:
        if not self.codes:
            return
        code = self.r.choice(sorted(self.codes))
        if self.r.random() < 0.2:
            new = code + "-v2"
            if new not in self.codes:
                self.codes = (self.codes - {code}) | {new}
                self.emit(f"UPDATE {self.t('products')} SET code = {self.lit(new)} WHERE code = {self.lit(code)}")
            return
        self.emit(f"UPDATE {self.t('products')} SET stock = stock - 1, attrs = {self.lit(self.r.choice(JSON_DOCS))} "
                  f"WHERE code = {self.lit(code)}")

    def product_delete(self) -> None:
        if len(self.codes) > 10:
            code = self.r.choice(sorted(self.codes))
            self.codes.discard(code)
            self.emit(f"DELETE FROM {self.t('products')} WHERE code = {self.lit(code)}")

    # --- phases

    def mixed(self, count: int) -> None:
        """`count` random operations over the tables; some grouped in transactions."""
        ops = [self.type_insert, self.type_update, self.type_update, self.type_delete,
               self.line_insert, self.line_update, self.line_update, self.line_delete,
               self.log_insert, self.log_update, self.log_delete,
               self.product_insert, self.product_update, self.product_delete]
        done = 0
        while done < count:
            group = self.r.choice((1, 1, 1, 3))
            if group > 1:
                self.emit("BEGIN", "tx")
            for _ in range(group):
                self.r.choice(ops)()
            if group > 1:
                self.emit("COMMIT", "tx")
            done += group

    def truncate(self) -> None:
        rows = [[i, self.r.choice(HOSTILE_TEXT)] for i in range(1, 101)]
        self.insert("staging", ["id", "payload"], rows)
        self.emit(f"TRUNCATE TABLE {self.t('staging')}", "truncate")
        self.insert("staging", ["id", "payload"], [[i, f"after truncate {i}"] for i in range(50, 90)])

    def hot_burst(self) -> None:
        """≥ 20 changes to hot id 1 inside one second: updates, a move to id 1001, the
        old key inserted again at once, more updates, then the moved row deleted."""
        hot = self.t("hot")
        self.insert("hot", ["id", "n", "label"], [[i, 0, f"warm {i}"] for i in range(2, 40)])
        self.emit(f"INSERT INTO {hot} (id, n, label) VALUES (1, 0, 'v0')", new_second=True)
        for i in range(1, 21):
            self.emit(f"UPDATE {hot} SET n = n + 1, label = 'v{i}' WHERE id = 1")
        self.emit(f"UPDATE {hot} SET id = 1001 WHERE id = 1")
        self.emit(f"INSERT INTO {hot} (id, n, label) VALUES (1, 100, 'reborn')")
        for i in range(3):
            self.emit(f"UPDATE {hot} SET n = n + 1, label = 'again {i}' WHERE id = 1")
        self.emit(f"DELETE FROM {hot} WHERE id = 1001")

    def alter(self, sql: str) -> None:
        self.emit(f"ALTER TABLE {sql}", "ddl")

    def add_columns(self) -> None:
        after = " AFTER db" if self.d.name == "mariadb" else ""
        extra = Col("extra", "VARCHAR(32)", ("added later",), _text_draw(("x", "y"), 32))
        self.alter(f"{self.t('all_types')} ADD COLUMN extra VARCHAR(32){after}")
        self.type_cols.insert(next(i for i, c in enumerate(self.type_cols) if c.name in ("db", "dbl")) + 1, extra)
        self.emit(f"UPDATE {self.t('all_types')} SET extra = 'added later' WHERE id = 1")
        self.alter(f"{self.t('order_lines')} ADD COLUMN discount DECIMAL(6,2)" + (" AFTER qty" if after else ""))
        self.line_cols.insert(3, "discount")
        self.alter(f"{self.t('events_log')} ADD COLUMN channel VARCHAR(16)" + (" AFTER kind" if after else ""))
        self.log_cols.insert(1, "channel")
        # rows inserted before the ADD COLUMN, changed after it
        for kind in self.LOG_KINDS:
            self.emit(f"UPDATE {self.t('events_log')} SET channel = 'app' "
                      f"{self.d.one_row(self.t('events_log'), f'kind = {self.lit(kind)}')}")
            self.log_delete()

    def drop_columns(self) -> None:
        self.alter(f"{self.t('order_lines')} DROP COLUMN note")
        self.line_cols.remove("note")
        self.alter(f"{self.t('events_log')} DROP COLUMN channel")
        self.log_cols.remove("channel")
        # rows that had a channel, changed after the column is gone
        for kind in self.LOG_KINDS:
            self.log_update()
            self.emit(f"DELETE FROM {self.t('events_log')} "
                      f"{self.d.one_row(self.t('events_log'), f'kind = {self.lit(kind)}')}")

    def build(self) -> list[Statement]:
        for sql in self.d.create:
            self.emit(sql, "ddl")
        self.type_edge_rows()
        for _ in range(self.n(6)):
            self.type_insert()
            self.line_insert()
            self.log_insert()
            self.product_insert()
        self.mixed(self.n(200))
        self.add_columns()
        self.mixed(self.n(200))
        self.type_key_shifts()
        self.truncate()
        self.hot_burst()
        self.drop_columns()
        self.mixed(self.n(120))
        return self.out


def _mariadb_create(type_cols: list[Col]) -> list[str]:
    columns = ",\n  ".join(f"{c.name} {c.sql_type}" for c in type_cols)
    return [
        "CREATE DATABASE shop",
        "CREATE DATABASE inventory",
        f"CREATE TABLE shop.all_types (\n  id INT NOT NULL PRIMARY KEY,\n  {columns}\n)",
        "CREATE TABLE shop.order_lines (order_id BIGINT NOT NULL, sku VARCHAR(32) NOT NULL, qty INT NOT NULL, "
        "price DECIMAL(12,2), note VARCHAR(200), PRIMARY KEY (order_id, sku))",
        "CREATE TABLE shop.events_log (kind VARCHAR(20), amount DECIMAL(10,2), note VARCHAR(100), at DATETIME(3))",
        "CREATE TABLE inventory.products (code VARCHAR(64) COLLATE utf8mb4_bin NOT NULL PRIMARY KEY, "
        "name VARCHAR(200), price DECIMAL(38,10), stock INT, attrs JSON, updated TIMESTAMP(6) NULL)",
        "CREATE TABLE shop.hot (id INT NOT NULL PRIMARY KEY, n INT, label VARCHAR(40))",
        "CREATE TABLE shop.staging (id INT NOT NULL PRIMARY KEY, payload VARCHAR(100))",
    ]


def _postgres_create(type_cols: list[Col]) -> list[str]:
    columns = ",\n  ".join(f"{c.name} {c.sql_type}" for c in type_cols)
    return [
        f"CREATE SCHEMA {PG_ASIDE}",
        f"CREATE TABLE public.all_types (\n  id integer NOT NULL PRIMARY KEY,\n  {columns}\n)",
        "CREATE TABLE public.order_lines (order_id bigint NOT NULL, sku varchar(32) NOT NULL, qty integer NOT NULL, "
        "price numeric(12,2), note text, PRIMARY KEY (order_id, sku))",
        "CREATE TABLE public.events_log (kind varchar(20), amount numeric(10,2), note text, at timestamp(3))",
        "ALTER TABLE public.events_log REPLICA IDENTITY FULL",  # no key: the old row identifies it
        f"CREATE TABLE {PG_ASIDE}.products (code text NOT NULL PRIMARY KEY, name text, price numeric(38,10), "
        "stock integer, attrs jsonb, updated timestamptz(6))",
        f"ALTER TABLE {PG_ASIDE}.products REPLICA IDENTITY FULL",  # full before images here, key-only elsewhere
        "CREATE TABLE public.hot (id integer NOT NULL PRIMARY KEY, n integer, label text)",
        "CREATE TABLE public.staging (id integer NOT NULL PRIMARY KEY, payload text)",
    ]


def _edge_values(ns: str, cols: list[Col]) -> dict[tuple[str, str, str], list[Value]]:
    return {(ns, "all_types", c.name): list(c.edges) for c in cols if c.edges}


# the PostgreSQL workload's share of the MariaDB volume (mixed changes only): the volume
# the tests that build from a MariaDB capture run it at too (the harness, the Kafka run),
# with every edge row, DDL, TRUNCATE, key shift and hot burst whole
POSTGRES_SCALE = 0.4


def mariadb_workload(seed: int = 1, scale: float = 1.0) -> Workload:
    """The MariaDB workload; `scale` shrinks its mixed changes (the edge rows, the DDL, the
    TRUNCATE and the hot keys stay): POSTGRES_SCALE is PostgreSQL's volume."""
    cols = mariadb_type_columns()
    dialect = _Dialect("mariadb", "shop", "inventory", mariadb_literal, cols, scale, _mariadb_create(cols))
    statements = _Generator(dialect, random.Random(seed)).build()
    return Workload("mariadb", statements, (dialect.main, dialect.aside), _edge_values(dialect.main, cols))


def postgres_workload(seed: int = 1) -> Workload:
    cols = postgres_type_columns()
    dialect = _Dialect("postgres", "public", PG_ASIDE, postgres_literal, cols, POSTGRES_SCALE,
                       _postgres_create(cols))
    statements = _Generator(dialect, random.Random(seed)).build()
    return Workload("postgres", statements, (dialect.main, dialect.aside), _edge_values(dialect.main, cols))
