"""`cdc land` input shapes: our JSON lines, kcat -J lines and plain text, into bronze."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cdclake import runtime
from cdclake.build_record import landed_bytes, landed_messages
from cdclake.landing import Landing, LandingError, detect_shape

MESSAGE = json.dumps({"data": [{"id": "1"}], "database": "d", "table": "t", "type": "INSERT",
                      "isDdl": False, "es": 1, "pkNames": ["id"]})
BIG_DECIMAL = 123456789876543212345678987654321.110


def _bronze(lake, batch_id: int) -> list[dict]:
    return lake.rows(
        "select topic, kafka_partition, kafka_offset, kafka_ts, message_key, message_value, "
        "value_encoding, headers, declared_format, source_line, land_error from bronze.kafka_messages "
        "where landing_batch_id = :b order by source_line", b=batch_id)


@pytest.fixture(scope="module")
def fresh(lake):
    lake.reset()
    return lake


def test_envelope_lines(fresh, tmp_path):
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join([
        json.dumps({"topic": "a", "partition": 2, "offset": 7, "timestamp": 1700000000123, "key": "k",
                    "value": MESSAGE, "headers": {"trace": "x"}}),
        # a value given as a JSON object keeps its digits exactly
        '{"topic": "a", "partition": 2, "offset": 8, "value": {"n": 123456789876543212345678987654321.110}}',
        json.dumps({"topic": "a", "partition": 2, "offset": 9, "value_base64": "AAEC/w==",
                    "headers": [{"key": "h", "value": "v"}]}),
        json.dumps({"topic": "a", "partition": 2, "offset": 10, "value": None}),  # tombstone
        "",
        "{not json",
        # valid, but its value is a longer string than Spark parses: said so, not called invalid
        json.dumps({"topic": "a", "partition": 2, "offset": 11, "value": "x" * 20_000_001}),
    ]) + "\n", encoding="utf-8")
    batch, landed = fresh.land([path], declared_format="canal_json")
    assert landed[0].shape == "envelope" and landed[0].records == 6 and landed[0].errors == 2
    rows = _bronze(fresh, batch)
    first = rows[0]
    assert (first["topic"], first["kafka_partition"], first["kafka_offset"], first["message_key"]) == ("a", 2, 7, "k")
    assert first["kafka_ts"].isoformat() == "2023-11-14T22:13:20.123000"
    assert first["message_value"] == MESSAGE and first["value_encoding"] == "text"
    assert first["headers"] == [{"key": "trace", "value": "x"}] and first["declared_format"] == "canal_json"
    assert "123456789876543212345678987654321.11" in rows[1]["message_value"]
    assert (rows[2]["message_value"], rows[2]["value_encoding"]) == ("AAEC/w==", "base64")
    assert rows[2]["headers"] == [{"key": "h", "value": "v"}]
    assert rows[3]["message_value"] is None and rows[3]["land_error"] is None
    assert rows[4]["land_error"] == "line is not valid JSON" and rows[4]["message_value"] == "{not json"
    assert rows[5]["land_error"] == ("line is 20000058 bytes and was not parsed: Spark reads no JSON string "
                                     "of over 20000000 characters")
    assert len(rows[5]["message_value"]) == 20000058
    assert [r["source_line"] for r in rows] == [1, 2, 3, 4, 6, 7]


def test_kcat_lines(fresh, tmp_path):
    path = tmp_path / "kcat.jsonl"
    path.write_text(json.dumps({"topic": "k", "partition": 1, "offset": 42, "tstype": "create",
                                "ts": 1589373515477, "broker": 0, "headers": ["h1", "v1", "h2", "v2"],
                                "key": None, "payload": MESSAGE}) + "\n"
                    + json.dumps({"topic": "k", "partition": 1, "offset": 43, "ts": 1589373515478,
                                  "headers": [], "key": "x", "payload": None}) + "\n", encoding="utf-8")
    batch, landed = fresh.land([path])
    assert landed[0].shape == "kcat"
    row, tombstone = _bronze(fresh, batch)
    assert tombstone["headers"] == [] and tombstone["message_value"] is None
    assert (row["topic"], row["kafka_partition"], row["kafka_offset"]) == ("k", 1, 42)
    assert row["message_value"] == MESSAGE and row["kafka_ts"].isoformat() == "2020-05-13T12:38:35.477000"
    assert row["headers"] == [{"key": "h1", "value": "v1"}, {"key": "h2", "value": "v2"}]


def test_plain_lines_continue_the_topic_offsets(fresh, tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text(MESSAGE + "\n\n" + MESSAGE.replace('"1"', '"2"') + "\r\n", encoding="utf-8")
    first, landed = fresh.land([path], topic="p")
    assert landed[0].shape == "plain" and landed[0].records == 2
    second, _ = fresh.land([path], topic="p")
    offsets = [r["kafka_offset"] for b in (first, second) for r in _bronze(fresh, b)]
    assert offsets == [0, 1, 2, 3]
    assert not any(r["message_value"].endswith("\r") for r in _bronze(fresh, first))


def test_landings_in_one_write_are_batches_of_their_own(fresh, tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text(MESSAGE + "\n" + MESSAGE + "\n", encoding="utf-8")
    before, _ = fresh.land([plain], topic="q")
    landed = fresh.land_batches([Landing([str(plain)], "q", "canal_json"), Landing([str(plain)], "q")])
    assert [batch_id for batch_id, _ in landed] == [before + 1, before + 2]
    assert [files[0].records for _, files in landed] == [2, 2]
    # plain offsets continue across the landings of one write as across writes
    assert [r["kafka_offset"] for b, _ in landed for r in _bronze(fresh, b)] == [2, 3, 4, 5]
    assert {r["declared_format"] for r in _bronze(fresh, before + 1)} == {"canal_json"}
    assert {r["declared_format"] for r in _bronze(fresh, before + 2)} == {None}


def test_line_numbers_hold_across_splits_and_files_sharing_a_partition(fresh, tmp_path):
    # tiny splits: each file is read in many parts, and parts of several files share a task.
    # They hold for every read of the landing, and the next offsets of plain lines are read
    # from all of bronze (cdclake.landing._next_plain_offsets): after this module's earlier
    # landings that read was 3,748 tasks and the test took 21.6 s, from an empty bronze 7.8 s
    fresh.reset()
    lines = [f"message {n}" if n % 7 else "" for n in range(1, 400)]
    big = tmp_path / "big.txt"
    big.write_text("\r\n".join(lines) + "\r\n", encoding="utf-8")
    small = tmp_path / "small file ü%20.jsonl"  # as Spark names it: a URI
    small.write_text("\n".join(json.dumps({"topic": "s", "partition": 0, "offset": n, "value": f"v{n}"})
                               for n in range(5)) + "\n", encoding="utf-8")
    conf = fresh.spark.conf
    saved = {key: conf.get(key) for key in ("spark.sql.files.maxPartitionBytes", "spark.sql.files.openCostInBytes")}
    conf.set("spark.sql.files.maxPartitionBytes", "256")
    conf.set("spark.sql.files.openCostInBytes", "16")
    try:
        assert fresh.spark.read.text(str(big)).rdd.getNumPartitions() > 10
        landed = fresh.land_batches([Landing([str(big), str(small)], "splits"), Landing([str(big)], "splits")])
    finally:
        for key, value in saved.items():
            conf.set(key, value)
    (first, first_files), (second, _) = landed
    expected = [(n, f"message {n}") for n in range(1, 400) if n % 7]
    for batch in (first, second):
        rows = [r for r in _bronze(fresh, batch) if r["topic"] == "splits"]
        assert [(r["source_line"], r["message_value"]) for r in rows] == expected
    offsets = [r["kafka_offset"] for b in (first, second) for r in _bronze(fresh, b) if r["topic"] == "splits"]
    assert offsets == list(range(2 * len(expected)))
    assert [(f.records, f.errors) for f in first_files] == [(len(expected), 0), (5, 0)]
    assert [(r["source_line"], r["kafka_offset"]) for r in _bronze(fresh, first) if r["topic"] == "s"] == \
        [(n + 1, n) for n in range(5)]


def _last_write_plan(lake) -> str:
    """The physical plan of the session's last write into bronze, as Spark's SQL status
    store keeps it (the session's last queries: spark.sql.ui.retainedExecutions in
    profiles/profiles.yml), read through its JVM object: Spark's internal API, of the
    pinned version."""
    # the store is filled from Spark's listener bus, which runs behind the queries
    lake.spark.sparkContext._jsc.sc().listenerBus().waitUntilEmpty()
    executions = lake.spark._jsparkSession.sharedState().statusStore().executionsList()
    plans = [executions.apply(i).physicalPlanDescription() for i in range(executions.size())]
    # (an execution the store holds without a plan has none: the session's other queries)
    return [plan for plan in plans if plan and "InsertIntoHadoopFsRelationCommand" in plan
            and "kafka_messages" in plan][-1]


def test_a_landing_runs_on_the_code_generation_of_the_lake_with_its_files(fresh, tmp_path, monkeypatch):
    """A landing runs interpreted while bronze's files with the files it lands are few
    bytes, on generated code above (cdclake.runtime); the session then goes on as bronze's
    messages say, which landed_messages counts from its files."""
    # many copies of one line: text that its batch's Parquet file holds in far fewer bytes
    repeated = tmp_path / "repeated.txt"
    repeated.write_text((MESSAGE + "\n") * 2000, encoding="utf-8")
    single = tmp_path / "single.txt"
    single.write_text(MESSAGE + "\n", encoding="utf-8")
    try:
        # the lake is small, the lake with the file is not: the write runs on generated code
        monkeypatch.setattr(runtime, "SMALL_LANDING_BYTES", landed_bytes() + repeated.stat().st_size - 1)
        runtime.fit_codegen(fresh.spark)
        assert fresh.spark.conf.get("spark.sql.codegen.wholeStage") == "false"
        fresh.land([repeated], topic="codegen")
        assert "[codegen id" in _last_write_plan(fresh)
        # the landing done, the lake's messages are few: the session runs interpreted
        messages = fresh.rows("select count(*) as n from bronze.kafka_messages")[0]["n"]
        assert landed_messages(stop_above=1 << 60) == messages <= runtime.SMALL_LAKE_MESSAGES
        assert landed_messages(stop_above=0) > 0
        assert fresh.spark.conf.get("spark.sql.codegen.wholeStage") == "false"
        # the lake with the file is as small as a small lake: interpreted
        monkeypatch.setattr(runtime, "SMALL_LANDING_BYTES", landed_bytes() + single.stat().st_size)
        fresh.land([single], topic="codegen")
        assert "[codegen id" not in _last_write_plan(fresh)
        # more messages than a small lake's: the session runs on generated code
        monkeypatch.setattr(runtime, "SMALL_LAKE_MESSAGES", messages)
        runtime.fit_codegen(fresh.spark)
        assert fresh.spark.conf.get("spark.sql.codegen.wholeStage") == "true"
    finally:
        monkeypatch.undo()
        runtime.fit_codegen(fresh.spark)
    assert [r["kafka_offset"] for r in fresh.rows(
        "select kafka_offset from bronze.kafka_messages where topic = 'codegen' order by 1")] == list(range(2001))


def test_a_bad_landing_lands_nothing_of_its_write(fresh, tmp_path):
    plain = tmp_path / "plain.txt"
    plain.write_text(MESSAGE + "\n", encoding="utf-8")
    with pytest.raises(LandingError, match="no such file"):
        fresh.land_batches([Landing([str(plain)], "r"), Landing([str(tmp_path / "missing.jsonl")])])
    assert fresh.rows("select count(*) as n from bronze.kafka_messages where topic = 'r'")[0]["n"] == 0


def test_plain_lines_need_a_topic(fresh, tmp_path):
    path = tmp_path / "plain.txt"
    path.write_text(MESSAGE + "\n", encoding="utf-8")
    with pytest.raises(LandingError, match="give the topic with --topic"):
        fresh.land([path])


def test_unknown_format_and_missing_file_are_refused(fresh, tmp_path):
    with pytest.raises(LandingError, match="unknown format 'canal'"):
        fresh.land([tmp_path / "x"], declared_format="canal")
    with pytest.raises(LandingError, match="no such file"):
        fresh.land([tmp_path / "missing.jsonl"])


@pytest.mark.parametrize("first_line, shape", [
    ('{"topic": "t", "value": "x"}', "envelope"),
    ('{"topic": "t", "partition": 0, "offset": 1, "payload": null}', "kcat"),
    ('{"schema": {}, "payload": {"op": "c"}}', "plain"),
    ("[1, 2]", "plain"),
    ("hello", "plain"),
])
def test_shape_is_decided_by_the_first_line(tmp_path: Path, first_line: str, shape: str):
    path = tmp_path / "f"
    path.write_text("\n" + first_line + "\n", encoding="utf-8")
    assert detect_shape(path) == shape
