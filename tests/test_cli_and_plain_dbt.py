"""The commands as a user types them, each in its own process, on the state folder of the
fixture user_home (tests/process_support.py: `cdc land` of four samples, two killed
builds, then plain `dbt build`; the dbt plugin gives it the Spark session and the UDFs):
`cdc sql --json` over what it built (on a machine in Asia/Shanghai), plain `dbt docs
generate`, and a `cdc land` refused before Spark starts. Plain `dbt parse` and `dbt ls`,
in a state folder of their own, start no Spark. `cdc sql` printing a table and
timestamps runs in this process (cdclake.cli.main), on the session's lake."""

from __future__ import annotations

import json

from cdclake import cli
from process_support import dbt_target, run


def test_plain_dbt_builds_with_the_udfs_and_cdc_sql_prints_json(user_home):
    assert "landed 11 records" in user_home.landed[0]
    # cdc_ddl_events calls the Python UDF cdc_parse_ddl: plain dbt only works if the plugin registered it.
    # On a machine in Asia/Shanghai (UTC+8), the timestamps print as the session renders them (UTC)
    out = run(user_home.home, "cdc", "sql", "--json",
              "select 'ddl' as kind, to_json(named_struct('action', ddl_action, 'table', ddl_table_name)) as v, "
              "timestamp'2023-11-14 22:13:20' as at "
              "from silver.cdc_ddl_events where topic = 'demo.canal.inventory' "
              "union all select 'row', to_json(row), timestamp'1890-10-11 19:33:20.5' from gold.cdc_current_rows "
              "where table_id = 'inventory.products2' and row_key = '[\"106\"]' and row_count > 0",
              env={"TZ": "Asia/Shanghai"})
    assert [(r["kind"], json.loads(r["v"]), r["at"]) for r in json.loads(out.stdout)] == [
        ("ddl", {"action": "CREATE", "table": "user02"}, "2023-11-14T22:13:20"),
        ("row", {"id": "106", "name": "hammer", "description": "18oz carpenter hammer", "weight": "1.0"},
         "1890-10-11T19:33:20.500000"),
    ]


def test_plain_dbt_docs_generate_lists_the_models(user_home):
    # the catalog over the manifest of the home's plain `dbt build`, without compiling every
    # model again (that build compiled them through the plugin): 10-11 s instead of 27-39 s
    run(user_home.home, "dbt", "docs", "generate", "--no-compile", "--profiles-dir", "profiles")
    catalog = json.loads((dbt_target(user_home.home) / "catalog.json").read_text(encoding="utf-8"))
    assert "model.cdc_lakehouse.cdc_current_rows" in catalog["nodes"]
    assert (dbt_target(user_home.home) / "index.html").stat().st_size > 10_000


def test_cdc_land_explains_a_missing_topic(user_home, tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text('{"type": "INSERT"}\n', encoding="utf-8")
    done = run(user_home.home, "cdc", "land", str(plain), check=False)
    assert done.returncode == 2
    assert "give the topic with --topic" in done.stderr


def test_cdc_sql_prints_a_table(lake, capsys):
    # in this process, on the session's lake: `cdc sql --json` above runs in a process of its own
    assert cli.main(["sql", "select 1 as n, map('a', 'b') as m"]) == 0
    out = capsys.readouterr().out
    assert "| n | m          |" in out and '| 1 | {"a": "b"} |' in out and "(1 row)" in out


TIMESTAMPS = """select timestamp'2023-11-14 22:13:20' as t, timestamp'0001-01-01 00:00:00' as first,
    timestamp'9999-12-31 23:59:59.999999' as last, cast(null as timestamp) as none,
    timestamp_ntz'2023-11-14 22:13:20.5' as ntz, date'0001-01-01' as d,
    named_struct('at', timestamp'1890-10-11 19:33:20', 'n', 1) as s, cast(null as struct<at: timestamp>) as ns,
    array(timestamp'2023-11-14 22:13:20.000001') as a, map('k', timestamp'2023-11-14 22:13:20') as m,
    map(timestamp'2023-11-14 22:13:20', 1) as mk, 1 as n, 2 as n"""


def test_cdc_sql_prints_timestamps_as_spark_renders_them(lake, capsys):
    # nested ones too, and year 1 (Python's datetime.fromtimestamp fails on its first day);
    # in another time zone than the session's: the test above
    assert cli.main(["sql", "--json", TIMESTAMPS]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row == {"t": "2023-11-14T22:13:20", "first": "0001-01-01T00:00:00", "last": "9999-12-31T23:59:59.999999",
                   "none": None, "ntz": "2023-11-14T22:13:20.500000", "d": "0001-01-01",
                   "s": {"at": "1890-10-11T19:33:20", "n": 1}, "ns": None, "a": ["2023-11-14T22:13:20.000001"],
                   "m": {"k": "2023-11-14T22:13:20"}, "mk": {"2023-11-14T22:13:20": 1}, "n": 2}
    assert cli.main(["sql", TIMESTAMPS]) == 0
    out = capsys.readouterr().out
    assert "| 2023-11-14T22:13:20 | 0001-01-01T00:00:00 | 9999-12-31T23:59:59.999999 | NULL |" in out, out
    assert "| 1 | 2 |" in out, out


def test_plain_dbt_parse_and_ls_start_no_spark(tmp_path):
    # commands that run no query get no session from the plugin (dbt_cdclake): in a new
    # state folder they leave no metastore, warehouse or lock, only dbt's target and logs
    run(tmp_path, "dbt", "parse", "--profiles-dir", "profiles")
    listed = run(tmp_path, "dbt", "ls", "--profiles-dir", "profiles", "--resource-type", "model", "--quiet").stdout
    assert "cdc_lakehouse.gold.cdc_current_rows" in listed.split()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dbt-logs", "dbt-target"]
