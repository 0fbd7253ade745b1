"""Benchmark: decode and fold throughput per vendor format.

One generated stream (tests/synth.py: keyed, composite-keyed and unkeyed tables, multi-row
statements, key changes, deletes, NULLs, unicode, long decimals, binary) is rendered in
each format, landed and built alone on an empty lake, in this process (JVM start-up is
paid once, before the first format). Prints row changes per second of `land` and of
`build` (dbt build: routing, decoding, history, current state, status and every data
test) and writes them to the "Decoders by format" section of BENCHMARKS.md. Run it on
an otherwise idle machine:

    .venv/bin/python bench/bench_formats.py --changes 20000
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cdclake.lake import Lake

PROJECT = Path(__file__).resolve().parents[1]
# the stream generators (synth, renderers) are test code: they live in tests/
sys.path.insert(0, str(PROJECT / "tests"))
SECTION = "## Decoders by format"
# format id, renderer module, renderer keyword arguments
VARIANTS: list[tuple[str, str, dict]] = [
    ("canal_json", "", {}),
    ("debezium_json", "debezium_json", {}),
    ("debezium_json", "debezium_json", {"schemas": True}),
    ("cdl_json", "cdl_json", {}),
    ("dataworks_json", "dataworks_json", {}),
    ("shareplex_json", "shareplex_json", {}),
    ("datahub_tuple", "datahub_tuple", {}),
    ("dts_avro", "dts_avro", {}),
    ("drs_avro", "drs_avro", {}),
    ("drs_mongo_json", "drs_mongo_json", {}),
]
# formats whose messages name no key: the generated tables' keys go to the build
CONFIGURED_KEYS = ("datahub_tuple", "drs_avro")


def render(format_id: str, module: str, kwargs: dict, changes: int) -> list[Any]:
    synth = importlib.import_module("synth")
    if format_id == "drs_mongo_json":
        # documents, not rows: the Mongo renderer generates its own changes (patches included)
        drs_mongo_json = importlib.import_module("renderers.drs_mongo_json")
        docs = drs_mongo_json.generate(changes, seed=3)
        return drs_mongo_json.render(f"bench_{format_id}", docs, topic=f"bench.{format_id}")
    stream = synth.generate(f"bench_{format_id}", n_changes=changes, seed=3)
    if not module:
        return synth.render_canal_family(stream, format_id, topic=f"bench.{format_id}")
    renderer = importlib.import_module(f"renderers.{module}")
    return renderer.render(stream, topic=f"bench.{format_id}", **kwargs)


def measure(lake: Lake, workdir: Path, format_id: str, module: str, kwargs: dict, changes: int) -> dict:
    synth = importlib.import_module("synth")
    records = render(format_id, module, kwargs, changes)
    path = workdir / f"{format_id}{'-schema' if kwargs else ''}.jsonl"
    synth.write_records(path, records)
    lake.reset()
    started = time.monotonic()
    lake.land([str(path)], declared_format=format_id)
    landed = time.monotonic()
    keys = {f"bench_{format_id}.{t}": cols for t, cols in synth.TABLES.items() if cols}
    lake.build(*(["--vars", json.dumps({"cdc_primary_keys": keys})] if format_id in CONFIGURED_KEYS else []))
    built = time.monotonic()
    rows = lake.rows("select count(*) as n from silver.cdc_changes")[0]["n"]
    rejects = lake.rows("select count(*) as n from silver.cdc_rejects")[0]["n"]
    return {"format": format_id + (" (schema)" if kwargs else ""), "records": len(records),
            "row changes": rows, "rejects": rejects, "land s": landed - started, "build s": built - landed}


def write_section(out: Path, table: list[str]) -> None:
    text = out.read_text(encoding="utf-8") if out.exists() else "# Benchmarks\n"
    text = re.sub(rf"\n{re.escape(SECTION)}\n.*?(?=\n## |\Z)", "", text, flags=re.S).rstrip("\n")
    out.write_text(text + "\n\n" + "\n".join(table) + "\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--changes", type=int, default=20_000, help="row changes per format")
    parser.add_argument("--out", type=Path, default=PROJECT / "BENCHMARKS.md")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="cdc-bench-formats-"))
    os.environ["CDC_HOME"] = str(workdir / "state")
    os.environ["DBT_TARGET_PATH"] = str(workdir / "target")
    os.environ["DBT_LOG_PATH"] = str(workdir / "logs")
    from cdclake.lake import Lake

    lake = Lake()
    results = [measure(lake, workdir, f, m, kw, args.changes) for f, m, kw in VARIANTS]
    table = [
        SECTION,
        "",
        f"`bench/bench_formats.py`: the same generated stream ({args.changes:,} generated statements over keyed,",
        "composite-keyed and unkeyed tables) in each format (drs_mongo_json: as many document changes,",
        "half of them update-operator patches), landed and built alone on an empty lake",
        f"in one process, {os.cpu_count()} cores. `build` is the whole `dbt build` (routing, decoding,",
        "history, current state, sync status and every data test). The first format also pays the",
        "process's first dbt parse and JVM warm-up.",
        "",
        "| format | records | row changes | rejects | land s | build s | row changes / s of build |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        table.append(f"| {r['format']} | {r['records']:,} | {r['row changes']:,} | {r['rejects']} | "
                     f"{r['land s']:.1f} | {r['build s']:.1f} | {r['row changes'] / r['build s']:,.0f} |")
    write_section(args.out, table)
    print("\n".join(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
