"""Benchmark: throughput of the DTS Avro UDF (udfs/dts_avro.py), in records per second.

(a) the pure Python function `decode_dts_avro` over N base64 values in one process;
(b) through Spark: `select cdc_decode_dts_avro(v)` over a DataFrame of the same N values,
    written to the `noop` sink so every row is decoded (Arrow batches to the Python
    workers and back), on the embedded session (`local[*]`).
The values are the DTS Avro records of a generated stream (cdclake/renderers/dts_avro.py:
keyed, composite-keyed and unkeyed tables, utf8mb4 text, long decimals, binary, DATETIME,
DOUBLE), repeated to N. Prints the figures and writes the section "## Avro UDF throughput"
of BENCHMARKS.md (other sections are left as they are). Run it on an otherwise idle machine:

    .venv/bin/python bench/bench_avro_udf.py --records 100000
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
SECTION = "## Avro UDF throughput"


def values(n: int) -> list[str]:
    from cdclake import synth
    from cdclake.renderers import dts_avro

    records = dts_avro.render(synth.generate("bench_dts_avro", n_changes=min(n, 20_000)), topic="bench")
    return [r.value for r in itertools.islice(itertools.cycle(records), n)]


def python_rate(data: list[str]) -> tuple[float, float]:
    from udfs.dts_avro import decode_dts_avro, schemas

    schemas()  # parsing the schemas is a once-per-worker cost, not per record
    start = time.perf_counter()
    errors = sum(json.loads(decode_dts_avro(v))["error"] is not None for v in data)
    seconds = time.perf_counter() - start
    if errors:
        raise SystemExit(f"{errors} records did not decode")
    return seconds, len(data) / seconds


def spark_rate(data: list[str]) -> tuple[float, float]:
    from cdclake.runtime import get_session

    spark = get_session()
    frame = spark.createDataFrame([(v,) for v in data], "v string").cache()
    frame.count()  # materialise the input first: time the decoding, not createDataFrame
    decoded = frame.selectExpr("cdc_decode_dts_avro(v) as j")
    decoded.limit(1000).write.format("noop").mode("overwrite").save()  # start the Python workers
    start = time.perf_counter()
    decoded.write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - start
    bad = decoded.where("j is null or get_json_object(j, '$.error') is not null").count()
    frame.unpersist()
    if bad:
        raise SystemExit(f"{bad} records did not decode in Spark")
    return seconds, len(data) / seconds


def write_section(out: Path, lines: list[str]) -> None:
    """Replace the section in place (or append it), leaving the other sections alone."""
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmarks\n"
    block = "\n".join(lines) + "\n"
    pattern = re.compile(rf"(?ms)^{re.escape(SECTION)}\n.*?(?=^## |\Z)")
    if pattern.search(text):
        following = pattern.search(text).end() < len(text)
        text = pattern.sub(lambda _: block + ("\n" if following else ""), text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + block
    out.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=PROJECT / "BENCHMARKS.md")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cdc-bench-avro-"))
    os.environ.setdefault("CDC_HOME", str(workdir / "state"))

    data = values(args.records)
    mean_bytes = sum(len(v) for v in data) * 3 / 4 / len(data)
    py_s, py_rate = python_rate(data)
    print(f"python: {len(data):,} records in {py_s:.1f} s = {py_rate:,.0f} records/s")
    sp_s, sp_rate = spark_rate(data)
    print(f"spark:  {len(data):,} records in {sp_s:.1f} s = {sp_rate:,.0f} records/s")

    write_section(args.out, [
        SECTION,
        "",
        f"`bench/bench_avro_udf.py`: the DTS Avro UDF (`cdc_decode_dts_avro`, fastavro) over "
        f"{len(data):,} raw Avro records",
        f"of a generated stream (about {mean_bytes:.0f} bytes each), {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d')}. Python: the plain",
        "function in one process. Spark: `select cdc_decode_dts_avro(v)` over a cached DataFrame of the",
        "base64 values, written to the `noop` sink (Arrow batches to the Python workers and back).",
        "",
        "| path | records | seconds | records / s |",
        "|---|---|---|---|",
        f"| Python function | {len(data):,} | {py_s:.1f} | {py_rate:,.0f} |",
        f"| Spark pandas UDF | {len(data):,} | {sp_s:.1f} | {sp_rate:,.0f} |",
    ])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
