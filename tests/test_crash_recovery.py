"""A build killed with `kill -9` at any point is recovered by building again.

One state folder (the fixture user_home, tests/process_support.py), used step by step:
`cdc build` runs in its own process group and is killed (SIGKILL to the whole group:
Python, the JVM and its Python workers, as a power loss would) as soon as the folder of a
table it creates appears: mid-silver (the decoded table) and during the creation of two
gold tables (the history, then the current rows folded from it). Each killed build leaves
a table folder that the metastore does not know. The next build, a plain `dbt build`,
must carry on from there, and its gold must equal the gold of an uninterrupted build
(`--full-refresh` of the same bronze).
"""

from __future__ import annotations

from process_support import python_json

# what the final process does: dump gold, rebuild from bronze, dump again
FINAL = """
import json
from cdclake.lake import Lake
from process_support import GOLD_QUERIES, rows_as_json

lake = Lake()
resumed = rows_as_json(lake, GOLD_QUERIES)
lake.build("--full-refresh", "--exclude", "resource_type:test")
print(json.dumps({"resumed": resumed, "uninterrupted": rows_as_json(lake, GOLD_QUERIES)}))
"""


def test_every_kill_hit_a_running_build(user_home):
    assert all(hit for _, hit in user_home.kills), user_home.kills


def test_building_again_recovers_the_gold_of_an_uninterrupted_build(user_home):
    # the last killed build's leftover was named when it was removed
    assert "left by an interrupted build" in user_home.rebuild.stderr
    result = python_json(user_home.home, FINAL, timeout=900)
    assert result["resumed"]["current"], "no rows in gold"
    assert result["resumed"] == result["uninterrupted"]
