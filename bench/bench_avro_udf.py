"""Benchmark: throughput of the Avro UDFs (udfs/dts_avro.py, udfs/drs_avro.py), in records per second.

(a) the pure Python function `decode_dts_avro` over N base64 values in one process;
(b) through Spark: `select cdc_decode_dts_avro(v)` over a DataFrame of the same N values,
    written to the `noop` sink so every row is decoded (Arrow batches to the Python
    workers and back), on the embedded session (`local[*]`).
The values are the Avro records of a generated stream (tests/renderers/<format>.py:
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
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
# the stream generators (synth, renderers) are test code: they live in tests/
sys.path.insert(0, str(PROJECT / "tests"))
SECTION = "## Avro UDF throughput"


# format -> (renderer module, Python function of one base64 value, Spark SQL of column v)
CASES: dict[str, tuple[str, str, str]] = {
    "dts_avro": ("dts_avro", "udfs.dts_avro:decode_dts_avro", "cdc_decode_dts_avro(v)"),
    "drs_avro": ("drs_avro", "udfs.drs_avro:decode_drs_avro", "cdc_decode_drs_avro(v, null)"),
}


def values(format_id: str, n: int) -> list[str]:
    import importlib

    synth = importlib.import_module("synth")
    renderer = importlib.import_module(f"renderers.{CASES[format_id][0]}")
    records = renderer.render(synth.generate(f"bench_{format_id}", n_changes=min(n, 20_000)), topic="bench")
    return [r.value for r in itertools.islice(itertools.cycle(records), n)]


def python_rate(format_id: str, data: list[str]) -> tuple[float, float]:
    import importlib

    module, name = CASES[format_id][1].split(":")
    function = getattr(importlib.import_module(module), name)
    call = (lambda v: function(v)) if format_id == "dts_avro" else (lambda v: function(v, None))
    call(data[0])  # parsing the schemas is a once-per-worker cost, not per record
    start = time.perf_counter()
    errors = sum(json.loads(call(v))["error"] is not None for v in data)
    seconds = time.perf_counter() - start
    if errors:
        raise SystemExit(f"{format_id}: {errors} records did not decode")
    return seconds, len(data) / seconds


def spark_rate(format_id: str, data: list[str]) -> tuple[float, float]:
    from cdclake.runtime import get_session

    spark = get_session()
    frame = spark.createDataFrame([(v,) for v in data], "v string").cache()
    frame.count()  # materialise the input first: time the decoding, not createDataFrame
    decoded = frame.selectExpr(f"{CASES[format_id][2]} as j")
    decoded.limit(1000).write.format("noop").mode("overwrite").save()  # start the Python workers
    start = time.perf_counter()
    decoded.write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - start
    bad = decoded.where("j is null or get_json_object(j, '$.error') is not null").count()
    frame.unpersist()
    if bad:
        raise SystemExit(f"{format_id}: {bad} records did not decode in Spark")
    return seconds, len(data) / seconds


def write_section(out: Path, lines: list[str]) -> None:
    """Replace the section in place (or append it), leaving the other sections alone."""
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmarks\n"
    block = "\n".join(lines) + "\n"
    pattern = re.compile(rf"(?ms)^{re.escape(SECTION)}\n.*?(?=^## |\Z)")
    match = pattern.search(text)
    if match:
        following = match.end() < len(text)
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

    rows = []
    for format_id in CASES:
        data = values(format_id, args.records)
        mean_bytes = sum(len(v) for v in data) * 3 / 4 / len(data)
        py_s, py_rate = python_rate(format_id, data)
        print(f"{format_id} python: {len(data):,} records in {py_s:.1f} s = {py_rate:,.0f} records/s")
        sp_s, sp_rate = spark_rate(format_id, data)
        print(f"{format_id} spark:  {len(data):,} records in {sp_s:.1f} s = {sp_rate:,.0f} records/s")
        rows += [f"| {format_id} | Python function | {len(data):,} | {mean_bytes:.0f} | {py_s:.1f} | {py_rate:,.0f} |",
                 f"| {format_id} | Spark Arrow UDF | {len(data):,} | {mean_bytes:.0f} | {sp_s:.1f} | {sp_rate:,.0f} |"]

    write_section(args.out, [
        SECTION,
        "",
        "`bench/bench_avro_udf.py`: the Avro UDFs (`cdc_decode_dts_avro`, `cdc_decode_drs_avro` with its",
        f"shipped schema; fastavro) over the records of a generated stream, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d')}.",
        "Python: the plain function in one process. Spark: the UDF over a cached DataFrame of the",
        "base64 values, written to the `noop` sink (Arrow batches to the Python workers and back).",
        "",
        "| format | path | records | bytes each | seconds | records / s |",
        "|---|---|---|---|---|---|",
        *rows,
    ])
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
