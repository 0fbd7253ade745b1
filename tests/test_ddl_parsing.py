"""The DDL parser behind the UDF cdc_parse_ddl (udfs/ddl.py), in plain Python: no Spark.

Table-driven: each case is a statement, the dialect name a decoder sends, and the whole
expected parse. The cases cover MySQL, PostgreSQL (and GaussDB read as PostgreSQL), Oracle
and SQL Server; every DDL statement of ../shared/vendor-docs and ../shared/vectors (copied in
tests/vectors; `test_every_vector_ddl_has_a_case` finds them there, so a new vector without a
case fails); and text that cannot be read, which is kept with action UNKNOWN and a reason.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from udfs.ddl import parse_ddl

VECTORS = Path(__file__).resolve().parent / "vectors"

# the sqlglot dialect each dialect name is read with
SQLGLOT = {"mysql": "mysql", "postgres": "postgres", "postgresql": "postgres", "gaussdb": "postgres",
           "opengauss": "postgres", "oracle": "oracle", "tsql": "tsql", "sqlserver": "tsql", "mssql": "tsql",
           None: "mysql", "db2": "mysql"}


def col(name: str, change: str, type_: str | None = None, new_name: str | None = None,
        position: int | None = None) -> dict[str, Any]:
    return {"name": name, "type": type_, "change": change, "new_name": new_name, "position": position}


def adds(*columns: tuple[str, str]) -> list[dict[str, Any]]:
    """The columns of a CREATE TABLE: ADD, with their 1-based positions."""
    return [col(name, "ADD", type_, position=i) for i, (name, type_) in enumerate(columns, 1)]


def ddl(action: str, db: str | None = None, name: str | None = None, columns: list[dict[str, Any]] | None = None,
        kind: str | None = "TABLE", renamed_to: str | None = None, statements: int = 1) -> dict[str, Any]:
    return {"action": action, "object_kind": kind, "statements": statements, "table": {"db": db, "name": name},
            "renamed_to": renamed_to, "columns": columns or [], "error": None}


def unknown(error: str, statements: int = 1) -> dict[str, Any]:
    """Not read: `error` is a fragment the reason must contain."""
    return {**ddl("UNKNOWN", kind=None, statements=statements), "error": error}


# (dialect name as sent, statement, expected parse)
Case = tuple[str | None, str, dict[str, Any]]

MYSQL: dict[str, Case] = {
    "create-typed": ("mysql", "CREATE TABLE `shop`.`orders` (`id` bigint(20) unsigned NOT NULL AUTO_INCREMENT, "
                     "`amount` decimal(20,4) DEFAULT NULL, `qty` int(11) unsigned, `note` varchar(50) CHARACTER "
                     "SET utf8mb4, `created_at` datetime(3), `flag` tinyint(1), `kind` enum('a','b'), "
                     "`ratio` double(10,2) unsigned, PRIMARY KEY (`id`), KEY `idx` (`created_at`)) "
                     "ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
                     ddl("CREATE", "shop", "orders", adds(
                         ("id", "BIGINT(20) UNSIGNED"), ("amount", "DECIMAL(20, 4)"), ("qty", "INT(11) UNSIGNED"),
                         ("note", "VARCHAR(50)"), ("created_at", "DATETIME(3)"), ("flag", "TINYINT(1)"),
                         ("kind", "ENUM('a', 'b')"), ("ratio", "DOUBLE(10, 2) UNSIGNED")))),
    "create-if-not-exists": ("mysql", "CREATE TABLE IF NOT EXISTS t (a int) ENGINE=InnoDB COMMENT='x'",
                             ddl("CREATE", None, "t", adds(("a", "INT")))),
    "alter-several-actions": ("mysql", "ALTER TABLE t ADD a int, DROP COLUMN b, MODIFY c varchar(20)",
                              ddl("ALTER", None, "t", [col("a", "ADD", "INT"), col("b", "DROP"),
                                                       col("c", "MODIFY", "VARCHAR(20)")])),
    "alter-change-renames": ("mysql", "ALTER TABLE `shop`.`orders` CHANGE `old_name` `new_name` decimal(12,2) "
                             "NOT NULL",
                             ddl("ALTER", "shop", "orders", [col("old_name", "MODIFY", "DECIMAL(12, 2)", "new_name")])),
    "alter-change-same-name": ("mysql", "ALTER TABLE t CHANGE COLUMN c c bigint unsigned",
                               ddl("ALTER", None, "t", [col("c", "MODIFY", "BIGINT UNSIGNED")])),
    "alter-modify-unsigned": ("mysql", "ALTER TABLE t MODIFY COLUMN c int(11) unsigned NOT NULL DEFAULT 0",
                              ddl("ALTER", None, "t", [col("c", "MODIFY", "INT(11) UNSIGNED")])),
    "alter-rename-column": ("mysql", "ALTER TABLE t RENAME COLUMN a TO b",
                            ddl("ALTER", None, "t", [col("a", "RENAME", new_name="b")])),
    "alter-add-first-after": ("mysql", "ALTER TABLE t ADD COLUMN a int FIRST, ADD COLUMN b text AFTER a",
                              ddl("ALTER", None, "t", [col("a", "ADD", "INT", position=1), col("b", "ADD", "TEXT")])),
    "alter-add-column-list": ("mysql", "ALTER TABLE t ADD COLUMN (a int, b varchar(10))",
                              ddl("ALTER", None, "t", [col("a", "ADD", "INT"), col("b", "ADD", "VARCHAR(10)")])),
    "alter-drop-without-column": ("mysql", "ALTER TABLE t DROP b", ddl("ALTER", None, "t", [col("b", "DROP")])),
    "alter-indexes-only": ("mysql", "ALTER TABLE t ADD INDEX idx (a), ADD UNIQUE KEY uk (b), DROP PRIMARY KEY",
                           ddl("ALTER", None, "t")),
    "alter-table-options": ("mysql", "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4", ddl("ALTER", None, "t")),
    "alter-float-unsigned": ("mysql", "ALTER TABLE t ADD f float(7,3) unsigned, ADD r real unsigned",
                             ddl("ALTER", None, "t", [col("f", "ADD", "FLOAT(7, 3)"), col("r", "ADD", "FLOAT")])),
    "rename-table": ("mysql", "RENAME TABLE `shop`.`a` TO `shop`.`b`",
                     ddl("RENAME", "shop", "a", renamed_to="shop.b")),
    "rename-table-two-pairs": ("mysql", "RENAME TABLE a TO b, c TO d", ddl("RENAME", None, "a", renamed_to="b",
                                                                          statements=2)),
    "alter-rename-to": ("mysql", "ALTER TABLE shop.a RENAME TO shop.b",
                        ddl("RENAME", "shop", "a", renamed_to="shop.b")),
    "alter-rename-as": ("mysql", "ALTER TABLE a RENAME AS b", ddl("RENAME", None, "a", renamed_to="b")),
    "truncate": ("mysql", "TRUNCATE TABLE `shop`.`orders`", ddl("TRUNCATE", "shop", "orders")),
    "truncate-without-table": ("mysql", "truncate orders", ddl("TRUNCATE", None, "orders")),
    "drop-table": ("mysql", "DROP TABLE IF EXISTS `shop`.`orders`", ddl("DROP", "shop", "orders")),
    "drop-two-tables": ("mysql", "DROP TABLE a, b", ddl("DROP", None, "a", statements=2)),
    "create-index": ("mysql", "CREATE INDEX idx_a ON shop.orders (a)", ddl("CREATE", "shop", "orders", kind="INDEX")),
    "drop-index": ("mysql", "DROP INDEX idx_a ON shop.orders", ddl("DROP", "shop", "orders", kind="INDEX")),
    "create-database": ("mysql", "CREATE DATABASE IF NOT EXISTS shop", ddl("CREATE", "shop", kind="DATABASE")),
    "drop-database": ("mysql", "DROP DATABASE shop", ddl("DROP", "shop", kind="DATABASE")),
    "comments-and-semicolon": ("mysql", "/* from the app */ ALTER TABLE t ADD COLUMN x int; -- done\n",
                               ddl("ALTER", None, "t", [col("x", "ADD", "INT")])),
    "two-statements": ("mysql", "CREATE TABLE t (a int); DROP TABLE t;",
                       ddl("CREATE", None, "t", adds(("a", "INT")), statements=2)),
    "semicolon-in-string": ("mysql", "ALTER TABLE t ADD c varchar(3) DEFAULT 'a;b'",
                            ddl("ALTER", None, "t", [col("c", "ADD", "VARCHAR(3)")])),
    "no-dialect-reads-mysql": (None, "ALTER TABLE `t` ADD `c` int(11)",
                               ddl("ALTER", None, "t", [col("c", "ADD", "INT(11)")])),
    "unknown-dialect-reads-mysql": ("db2", "ALTER TABLE t ADD c int",
                                    ddl("ALTER", None, "t", [col("c", "ADD", "INT")])),
}

POSTGRES: dict[str, Case] = {
    "create-typed": ("postgres", "CREATE TABLE public.accounts (id bigserial PRIMARY KEY, balance numeric(12,2) NOT "
                     "NULL, name character varying(20), opened timestamp(6) with time zone, closed timestamp "
                     "without time zone, tags text[], doc jsonb, ratio double precision, "
                     "CONSTRAINT uq UNIQUE (name))",
                     ddl("CREATE", "public", "accounts", adds(
                         ("id", "BIGSERIAL"), ("balance", "DECIMAL(12, 2)"), ("name", "VARCHAR(20)"),
                         ("opened", "TIMESTAMPTZ(6)"), ("closed", "TIMESTAMP"), ("tags", "TEXT[]"), ("doc", "JSONB"),
                         ("ratio", "DOUBLE PRECISION")))),
    "alter-column-type": ("postgres", "ALTER TABLE public.accounts ALTER COLUMN balance TYPE numeric(14,2)",
                          ddl("ALTER", "public", "accounts", [col("balance", "MODIFY", "DECIMAL(14, 2)")])),
    "alter-column-set-data-type": ("postgresql", "ALTER TABLE accounts ALTER COLUMN name SET DATA TYPE character "
                                   "varying(40) USING name::varchar",
                                   ddl("ALTER", None, "accounts", [col("name", "MODIFY", "VARCHAR(40)")])),
    "alter-several-actions": ("postgres", "ALTER TABLE accounts ADD COLUMN a integer, ADD COLUMN b timestamp(3) "
                              "without time zone, DROP COLUMN IF EXISTS c",
                              ddl("ALTER", None, "accounts", [col("a", "ADD", "INT"), col("b", "ADD", "TIMESTAMP(3)"),
                                                              col("c", "DROP")])),
    "alter-rename-column": ("postgres", "ALTER TABLE public.accounts RENAME COLUMN name TO full_name",
                            ddl("ALTER", "public", "accounts", [col("name", "RENAME", new_name="full_name")])),
    "alter-rename-to": ("postgres", "ALTER TABLE public.accounts RENAME TO accounts_old",
                        ddl("RENAME", "public", "accounts", renamed_to="accounts_old")),
    "quoted-names-keep-case": ("postgres", 'ALTER TABLE "Public"."Accounts" ADD COLUMN "Mixed" int',
                               ddl("ALTER", "Public", "Accounts", [col("Mixed", "ADD", "INT")])),
    "alter-not-null-only": ("postgres", "ALTER TABLE ONLY public.accounts ALTER COLUMN name SET NOT NULL",
                            ddl("ALTER", "public", "accounts")),
    "truncate-two-tables": ("postgres", "TRUNCATE TABLE public.a, public.b", ddl("TRUNCATE", "public", "a",
                                                                                  statements=2)),
    "drop-cascade": ("postgres", "DROP TABLE IF EXISTS public.accounts CASCADE", ddl("DROP", "public", "accounts")),
    "create-schema": ("postgres", "CREATE SCHEMA sales", ddl("CREATE", "sales", kind="SCHEMA")),
    "gaussdb": ("gaussdb", "ALTER TABLE public.t ADD COLUMN c numeric(10,2), ALTER COLUMN d TYPE varchar(8)",
                ddl("ALTER", "public", "t", [col("c", "ADD", "DECIMAL(10, 2)"), col("d", "MODIFY", "VARCHAR(8)")])),
    "opengauss": ("opengauss", "CREATE TABLE s.t (id int, v timestamp(6) with time zone)",
                  ddl("CREATE", "s", "t", adds(("id", "INT"), ("v", "TIMESTAMPTZ(6)")))),
}

ORACLE: dict[str, Case] = {
    "create-typed": ("oracle", 'CREATE TABLE "HR"."EMP" ("ID" NUMBER(10,0) NOT NULL, "NAME" VARCHAR2(50 BYTE), '
                     '"SALARY" NUMBER(10,2), "HIRED" DATE, "TS" TIMESTAMP(6) WITH TIME ZONE, "NOTES" CLOB, '
                     '"CODE" CHAR(3 CHAR), "PAY" NUMBER(*,0), "R" RAW(16), CONSTRAINT "PK_EMP" PRIMARY KEY ("ID"))',
                     ddl("CREATE", "HR", "EMP", adds(
                         ("ID", "NUMBER(10, 0)"), ("NAME", "VARCHAR2(50 BYTE)"), ("SALARY", "NUMBER(10, 2)"),
                         ("HIRED", "DATE"), ("TS", "TIMESTAMP(6) WITH TIME ZONE"), ("NOTES", "CLOB"),
                         ("CODE", "CHAR(3 CHAR)"), ("PAY", "NUMBER(*, 0)"), ("R", "RAW(16)")))),
    "add-list": ("oracle", 'ALTER TABLE "HR"."EMP" ADD (a NUMBER(10,2), b VARCHAR2(20))',
                 ddl("ALTER", "HR", "EMP", [col("a", "ADD", "NUMBER(10, 2)"), col("b", "ADD", "VARCHAR2(20)")])),
    "add-one": ("oracle", "ALTER TABLE HR.EMP ADD bonus NUMBER(8,2) DEFAULT 0",
                ddl("ALTER", "HR", "EMP", [col("bonus", "ADD", "NUMBER(8, 2)")])),
    "modify-list": ("oracle", 'ALTER TABLE "HR"."EMP" MODIFY ("NAME" VARCHAR2(100 BYTE), "CODE" CHAR(5 CHAR))',
                    ddl("ALTER", "HR", "EMP", [col("NAME", "MODIFY", "VARCHAR2(100 BYTE)"),
                                               col("CODE", "MODIFY", "CHAR(5 CHAR)")])),
    "modify-one": ("oracle", "ALTER TABLE HR.EMP MODIFY salary NUMBER(12,2) NOT NULL",
                   ddl("ALTER", "HR", "EMP", [col("salary", "MODIFY", "NUMBER(12, 2)")])),
    "add-then-modify": ("oracle", "ALTER TABLE HR.EMP ADD (x DATE) MODIFY (y NUMBER(5))",
                        ddl("ALTER", "HR", "EMP", [col("x", "ADD", "DATE"), col("y", "MODIFY", "NUMBER(5)")])),
    "drop-list": ("oracle", "ALTER TABLE HR.EMP DROP (a, b)", ddl("ALTER", "HR", "EMP", [col("a", "DROP"),
                                                                                         col("b", "DROP")])),
    "rename-column": ("oracle", 'ALTER TABLE HR.EMP RENAME COLUMN "NAME" TO "FULL_NAME"',
                      ddl("ALTER", "HR", "EMP", [col("NAME", "RENAME", new_name="FULL_NAME")])),
    "rename-to": ("oracle", "ALTER TABLE HR.EMP RENAME TO EMP_OLD", ddl("RENAME", "HR", "EMP", renamed_to="EMP_OLD")),
    "long-is-clob": ("oracle", 'CREATE TABLE t (a LONG, b LONG RAW, "LONG" INTEGER)',
                     ddl("CREATE", None, "t", adds(("a", "CLOB"), ("b", "BLOB"), ("LONG", "INT")))),
    "add-constraint": ("oracle", "ALTER TABLE HR.EMP ADD CONSTRAINT pk PRIMARY KEY (id)", ddl("ALTER", "HR", "EMP")),
    "truncate": ("oracle", 'TRUNCATE TABLE "HR"."EMP"', ddl("TRUNCATE", "HR", "EMP")),
    "drop-purge": ("oracle", "DROP TABLE HR.EMP CASCADE CONSTRAINTS PURGE", ddl("DROP", "HR", "EMP")),
    # tests/examples/test_drs_avro_examples.py and tests/examples/test_cdl_shareplex_examples.py send these
    "drs-avro-create": ("oracle", 'CREATE TABLE "HR"."EMP2" ("ID" NUMBER PRIMARY KEY)',
                        ddl("CREATE", "HR", "EMP2", adds(("ID", "NUMBER")))),
    "shareplex-drop-column": ("oracle", 'ALTER TABLE "APP"."ACCOUNTS" DROP COLUMN "OLD_COL"',
                              ddl("ALTER", "APP", "ACCOUNTS", [col("OLD_COL", "DROP")])),
}

SQLSERVER: dict[str, Case] = {
    "create-typed": ("tsql", "CREATE TABLE [dbo].[orders] ([id] int IDENTITY(1,1) NOT NULL, [amount] decimal(18,4), "
                     "[created] datetime2(7), [note] nvarchar(max), [guid] uniqueidentifier, [raw] varbinary(max), "
                     "[at] datetimeoffset(3), CONSTRAINT [PK_orders] PRIMARY KEY ([id]))",
                     ddl("CREATE", "dbo", "orders", adds(
                         ("id", "INTEGER"), ("amount", "NUMERIC(18, 4)"), ("created", "DATETIME2(7)"),
                         ("note", "NVARCHAR(MAX)"), ("guid", "UNIQUEIDENTIFIER"), ("raw", "VARBINARY(MAX)"),
                         ("at", "DATETIMEOFFSET(3)")))),
    "add-two": ("sqlserver", "ALTER TABLE [dbo].[orders] ADD [a] datetime2(7) NULL, [b] nvarchar(max)",
                ddl("ALTER", "dbo", "orders", [col("a", "ADD", "DATETIME2(7)"), col("b", "ADD", "NVARCHAR(MAX)")])),
    "alter-column": ("mssql", "ALTER TABLE [dbo].[orders] ALTER COLUMN [note] nvarchar(200) NOT NULL",
                     ddl("ALTER", "dbo", "orders", [col("note", "MODIFY", "NVARCHAR(200)")])),
    "drop-two-columns": ("tsql", "ALTER TABLE dbo.orders DROP COLUMN a, b",
                         ddl("ALTER", "dbo", "orders", [col("a", "DROP"), col("b", "DROP")])),
    "sp-rename-column": ("tsql", "EXEC sp_rename 'dbo.orders.note', 'remark', 'COLUMN'",
                         ddl("ALTER", "dbo", "orders", [col("note", "RENAME", new_name="remark")])),
    "sp-rename-table-named-args": ("tsql", "EXEC sp_rename @objname = N'[dbo].[orders]', @newname = N'orders_old'",
                                   ddl("RENAME", "dbo", "orders", renamed_to="orders_old")),
    "alter-rename-to": ("tsql", "ALTER TABLE dbo.orders RENAME TO orders_old",
                        ddl("RENAME", "dbo", "orders", renamed_to="orders_old")),
    "rename-column": ("tsql", "ALTER TABLE dbo.orders RENAME COLUMN a TO b",
                      ddl("ALTER", "dbo", "orders", [col("a", "RENAME", new_name="b")])),
    "add-default-constraint": ("tsql", "ALTER TABLE dbo.orders ADD CONSTRAINT df_a DEFAULT 0 FOR a",
                               ddl("ALTER", "dbo", "orders")),
    "truncate": ("tsql", "TRUNCATE TABLE [dbo].[orders]", ddl("TRUNCATE", "dbo", "orders")),
}

# Every DDL statement of ../shared/vectors (tests/vectors) and ../shared/vendor-docs, as sent.
_PAIMON = "/* Query from DMS-WEBSQL-0-Qid_{} by user 1486767996652600 */ ALTER TABLE {} {} COLUMN {}"
VENDOR: dict[str, Case] = {
    # canal_flatmessage/flink_canal_data.ndjson, peer-test-suites/flink/canal-data{,-with-init}.txt
    "flink-canal-create-user02": ("mysql", "CREATE TABLE `xj_`.`user02` (`uid` int(0) NOT NULL,`uname` varchar(255) "
                                  "NULL, PRIMARY KEY (`uid`))",
                                  ddl("CREATE", "xj_", "user02", adds(("uid", "INT(0)"), ("uname", "VARCHAR(255)")))),
    # peer-test-suites/flink/canal-data-filter-table.txt
    "flink-canal-create-orders": ("mysql", "CREATE TABLE orders (\n  order_number INTEGER NOT NULL AUTO_INCREMENT "
                                  "PRIMARY KEY,\n  order_date DATE NOT NULL,\n  purchaser INTEGER NOT NULL,\n  "
                                  "quantity INTEGER NOT NULL,\n  product_id INTEGER NOT NULL\n) AUTO_INCREMENT = 10001",
                                  ddl("CREATE", None, "orders", adds(
                                      ("order_number", "INT"), ("order_date", "DATE"), ("purchaser", "INT"),
                                      ("quantity", "INT"), ("product_id", "INT")))),
    "flink-canal-create-project": ("mysql", "CREATE TABLE project (\n  id VARCHAR(255) NOT NULL,\n  name VARCHAR(255) "
                                   "NOT NULL,\n  description VARCHAR(255) NOT NULL,\n  weight FLOAT NOT NULL\n)",
                                   ddl("CREATE", None, "project", adds(
                                       ("id", "VARCHAR(255)"), ("name", "VARCHAR(255)"),
                                       ("description", "VARCHAR(255)"), ("weight", "FLOAT")))),
    # debezium_json/debezium_docs_mysql_examples.ndjson (payload.ddl)
    "debezium-add-after": ("mysql", "ALTER TABLE customers ADD middle_name varchar(255) AFTER first_name",
                           ddl("ALTER", None, "customers", [col("middle_name", "ADD", "VARCHAR(255)")])),
    # datahub/blob_json_vendor_doc.ndjson, dataworks_kafka_json/ddlMeta_alter_add_column.decoded.txt,
    # vendor-docs/alibaba-datahub-tuple-blob.zh.txt (附录: DataHub消息格式)
    "dataworks-add-column": ("mysql", "alter table t_shiyu_nopk add column holo text",
                             ddl("ALTER", None, "t_shiyu_nopk", [col("holo", "ADD", "TEXT")])),
    # dts_canal_json/vendor_doc_ddl_cleaned.ndjson, vendor-docs/alibaba-dts-kafka-formats.ja.txt (DDL操作の例)
    "dts-doc-placeholder": ("mysql", "eg:createxxx", unknown("not a recognised DDL statement")),
    # vendor-docs alibaba-dataworks-kafka-json.zh-hant.txt and alibaba-datahub-tuple-blob.zh.txt: "ddl.text"
    "dataworks-doc-placeholder": ("mysql", "ADD COLUMN ...", unknown("ParseError")),
    # peer-test-suites/paimon/canal/table/schemaevolution/canal-data-{2,3,4,5}.txt (sqlglot writes NUMERIC as
    # DECIMAL in MySQL)
    **{
        f"paimon-{qid[-5:]}": ("mysql", _PAIMON.format(qid, table, verb, f"{name} {written}"),
                               ddl("ALTER", None, table, [col(name, verb, type_)]))
        for qid, table, verb, name, written, type_ in [
            ("1694572663426906u", "schema_evolution_1", "ADD", "v2", "INT", "INT"),
            ("1694572663430429j", "schema_evolution_2", "ADD", "v2", "INT", "INT"),
            ("18293315143325386Y", "schema_evolution_1", "MODIFY", "v2", "BIGINT", "BIGINT"),
            ("18293315143329284L", "schema_evolution_2", "MODIFY", "v2", "BIGINT", "BIGINT"),
            ("29438367264976015Z", "schema_evolution_1", "ADD", "v3", "NUMERIC(8, 3)", "DECIMAL(8, 3)"),
            ("29438367264980084B", "schema_evolution_1", "ADD", "v4", "VARBINARY(10)", "VARBINARY(10)"),
            ("29438367264981231j", "schema_evolution_1", "ADD", "v5", "FLOAT", "FLOAT"),
            ("29438367264981907i", "schema_evolution_1", "MODIFY", "v1", "VARCHAR(20)", "VARCHAR(20)"),
            ("29438367264983274f", "schema_evolution_2", "ADD", "v3", "NUMERIC(8, 3)", "DECIMAL(8, 3)"),
            ("29438367264984346c", "schema_evolution_2", "ADD", "v4", "VARBINARY(10)", "VARBINARY(10)"),
            ("29438367264984953z", "schema_evolution_2", "ADD", "v5", "FLOAT", "FLOAT"),
            ("29438367264985671J", "schema_evolution_2", "MODIFY", "v1", "VARCHAR(20)", "VARCHAR(20)"),
            ("18482856626453185y", "schema_evolution_1", "MODIFY", "v4", "VARBINARY(20)", "VARBINARY(20)"),
            ("18482856626456873I", "schema_evolution_1", "MODIFY", "v5", "DOUBLE", "DOUBLE"),
            ("18482856626457713M", "schema_evolution_2", "MODIFY", "v4", "VARBINARY(20)", "VARBINARY(20)"),
            ("18482856626458168p", "schema_evolution_2", "MODIFY", "v5", "DOUBLE", "DOUBLE"),
        ]
    },
}

UNREADABLE: dict[str, Case] = {
    "garbage": ("mysql", "this is not sql at all", unknown("ParseError")),
    "garbage-read-as-alias": ("mysql", "garbage here", unknown("not a recognised DDL statement (Alias)")),
    "empty": ("mysql", "", unknown("no statement", statements=0)),
    "only-a-comment": ("postgres", "-- nothing here\n", unknown("no statement", statements=0)),
    "alter-table-alone": ("mysql", "ALTER TABLE", unknown("ParseError")),
    "alter-table-alone-oracle": ("oracle", "ALTER TABLE", unknown("ParseError")),
    "not-ddl": ("mysql", "SELECT 1", unknown("not a recognised DDL statement (Select)")),
    "insert": ("postgres", "insert into t values (1)", unknown("not a recognised DDL statement (Insert)")),
    "unclosed-parenthesis": ("mysql", "CREATE TABLE t (a int", unknown("ParseError")),
    "unterminated-string": ("mysql", "CREATE TABLE t (a varchar(2) DEFAULT 'x)", unknown("TokenError", statements=0)),
    "sp-rename-index": ("tsql", "EXEC sp_rename 'dbo.t.ix', 'ix2', 'INDEX'", unknown("sp_rename of INDEX")),
    "grant": ("mysql", "GRANT SELECT ON t TO u", unknown("not a recognised DDL statement (Grant)")),
    "command": ("oracle", "ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY'", unknown("does not read this ALTER")),
    # the table is read, the clause is not: ALTER, with the clause named
    "alter-truncated-clause": ("oracle", "ALTER TABLE t ADD", {**ddl("ALTER", None, "t"),
                                                               "error": "clauses not read: ADD"}),
}

CASES = {f"{group}:{key}": case for group, table in
         (("mysql", MYSQL), ("postgres", POSTGRES), ("oracle", ORACLE), ("sqlserver", SQLSERVER),
          ("vendor", VENDOR), ("unreadable", UNREADABLE)) for key, case in table.items()}


@pytest.mark.parametrize("dialect, text, want", CASES.values(), ids=CASES.keys())
def test_parse(dialect: str | None, text: str, want: dict[str, Any]) -> None:
    got = json.loads(parse_ddl(text, dialect))
    reason = got.pop("error")
    want = dict(want)
    fragment = want.pop("error")
    assert got == {**want, "dialect": SQLGLOT[dialect]}
    if fragment is None:
        assert reason is None
    else:
        assert reason and fragment in reason


TYPED = [(name, d, c["type"]) for name, (d, _, want) in CASES.items() for c in want["columns"] if c["type"]]


@pytest.mark.parametrize("name, dialect, type_", TYPED, ids=[f"{n}:{t}" for n, _, t in TYPED])
def test_type_reads_back_the_same(name: str, dialect: str, type_: str) -> None:
    """A type as written in `columns` reads back, in its dialect, as the same type."""
    got = json.loads(parse_ddl(f"CREATE TABLE x (c {type_})", dialect))
    assert got["columns"][0]["type"] == type_, name


def test_none_is_none_and_text_never_is() -> None:
    assert parse_ddl(None, "mysql") is None
    for text in ("", " ", ";", "))((", "'", "ALTER TABLE", "\x00", "创建表"):
        got = json.loads(parse_ddl(text, "oracle"))
        assert got["action"] == "UNKNOWN" and got["error"], text


def test_mongodb_commands_keep_their_branch() -> None:
    got = json.loads(parse_ddl('{"renameCollection": "d.old_coll", "to": "d.new_coll"}', "mongodb"))
    assert got == {"action": "RENAME", "object_kind": "COLLECTION", "table": {"db": "d", "name": "old_coll"},
                   "columns": [], "renamed_to": "d.new_coll", "error": None}


# --- every DDL statement of the vectors has a case above ------------------------------

_DDL_START = re.compile(r"^\s*(/\*.*?\*/\s*)*(create|alter|drop|rename|truncate)\s", re.IGNORECASE | re.DOTALL)


def _strings(value: Any, ddl_sql: bool = False) -> Iterator[tuple[str, bool]]:
    """Strings in a JSON value (and in JSON held in strings), each with whether it is the
    `sql` of a message that says it is DDL (isDdl true)."""
    if isinstance(value, dict):
        is_ddl = value.get("isDdl") is True
        for k, v in value.items():
            yield from _strings(v, is_ddl and k == "sql")
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        if value.lstrip()[:1] in {"{", "["}:
            try:
                yield from _strings(json.loads(value))
                return
            except ValueError:
                pass
        yield value, ddl_sql


def vector_ddl() -> set[str]:
    found: set[str] = set()
    for path in sorted(VECTORS.rglob("*")):
        if not path.is_file() or path.suffix not in {".json", ".ndjson", ".jsonl", ".txt"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        docs = []
        try:
            docs.append(json.loads(text))
        except ValueError:
            for line in text.splitlines():
                with contextlib.suppress(ValueError):
                    docs.append(json.loads(line))
        for doc in docs:
            for s, is_ddl in _strings(doc):
                if _DDL_START.match(s) or (is_ddl and s.strip()):
                    found.add(s)
    return found


def test_every_vector_ddl_has_a_case() -> None:
    found = vector_ddl()
    assert len(found) >= 20  # the vectors hold 22 distinct DDL statements today
    assert found - {text for _, text, _ in VENDOR.values()} == set()


@pytest.mark.parametrize("text, unread", [
    ("ALTER TABLE shop.items FROBNICATE THE WIDGETS", "FROBNICATE THE WIDGETS"),
    ("ALTER TABLE t ADD COLUMN x int, FROBNICATE", "FROBNICATE"),
])
def test_an_alter_clause_that_is_neither_a_column_change_nor_a_table_option_is_named_as_not_read(text, unread):
    parsed = json.loads(parse_ddl(text, "mysql"))
    assert parsed["action"] == "ALTER" and parsed["error"] == f"clauses not read: {unread}"


@pytest.mark.parametrize("text", [
    "ALTER TABLE t ENGINE=InnoDB", "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4",
    "ALTER TABLE t AUTO_INCREMENT = 10, COMMENT 'orders'",
])
def test_table_options_change_no_column_and_are_no_error(text):
    parsed = json.loads(parse_ddl(text, "mysql"))
    assert parsed["action"] == "ALTER" and parsed["columns"] == [] and parsed["error"] is None
