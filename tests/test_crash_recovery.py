"""A build killed with `kill -9` at any point is recovered by building again.

One state folder (the fixture user_home, tests/process_support.py), used step by step:
`cdc build` runs in its own process group and is killed (SIGKILL to the whole group:
Python, the JVM and its Python workers, as a power loss would) as soon as the folder of a
table it creates appears: mid-silver (the decoded table), then in gold, the history
committed and the current rows folded from it half-written (the kill during the history's
first creation is `cdc run`'s, tests/test_kafka_ingest.py). Each killed build leaves
a table folder that the metastore does not know. The next build, a plain `dbt build`,
must carry on from there, and its gold must equal the gold of an uninterrupted build (the
same samples landed in the session's lake and built once: tests/reference_lake.py).
"""

from __future__ import annotations

from process_support import GOLD_QUERIES, home_rows_as_json


def test_every_kill_hit_a_running_build(user_home):
    assert all(hit for _, hit in user_home.kills), user_home.kills


def test_a_killed_builds_temporary_files_are_in_the_state_folder_until_the_next_session(user_home):
    # Spark's spill and shuffle folder (blockmgr-*) and the JVM's temporary files of the
    # killed build are in the home's tmp, not in /tmp; the next session removed them
    for left in user_home.scratch_after_kills:
        assert any(name.startswith("blockmgr-") for name in left), left
    assert not user_home.scratch_after_kills[0] & user_home.scratch_after_kills[1]
    assert not user_home.scratch_after_kills[1] & user_home.scratch_after_rebuild


def test_building_again_recovers_the_gold_of_an_uninterrupted_build(user_home, lake, reference_lake):
    # the last killed build's leftover was named when it was removed
    assert "left by an interrupted build" in user_home.rebuild.stderr
    resumed = home_rows_as_json(lake, user_home.home, GOLD_QUERIES)
    # the same landings built once from an empty lake (with the Kafka run's records, whose
    # topics and tables are others)
    uninterrupted = reference_lake.rows_of("user home")
    assert resumed["current"], "no rows in gold"
    assert resumed == {name: uninterrupted[name] for name in GOLD_QUERIES}
