"""The whole path on Flink's Canal sample: land, build, read gold; twice for idempotency."""

from __future__ import annotations


def test_flink_canal_sample_end_to_end(lake, vectors):
    lake.reset()
    lake.land([vectors / "canal_flatmessage" / "flink_canal_data.ndjson"],
              topic="t.canal", declared_format="canal_json")
    lake.build()
    keys = [r["row_key"] for r in lake.rows(
        "select row_key from gold.cdc_current_rows order by row_key")]
    assert keys == ['["101"]', '["104"]', '["105"]', '["106"]', '["107"]', '["108"]', '["109"]', '["110"]']
