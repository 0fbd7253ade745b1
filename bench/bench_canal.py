"""Benchmark: 1M Canal JSON change events over 100k keys, file to final state.

Prints the figures and writes them to BENCHMARKS.md. Each run starts from an empty
state folder and runs the commands a user runs, as separate processes (so JVM start-up
counts, as it does for the peers): `cdc land` of the whole file, `cdc build`; then a
second file with 1% new events (`cdc land` + `cdc build`); then `cdc build` with nothing
new. Medians over --runs runs. Run it on an otherwise idle machine:

    .venv/bin/python bench/bench_canal.py --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COLUMNS = {"id": "bigint(20)", "customer": "varchar(64)", "amount": "decimal(20,4)",
           "status": "varchar(16)", "updated": "datetime"}


def _row(rng: random.Random, key: int) -> dict[str, str]:
    return {"id": str(key), "customer": f"customer-{rng.randrange(10_000)}",
            "amount": f"{rng.randrange(10**8)}.{rng.randrange(10**4):04d}",
            "status": rng.choice(["new", "paid", "shipped", "done"]),
            "updated": f"2024-05-{rng.randrange(1, 29):02d} 12:{rng.randrange(60):02d}:00"}


def write_stream(path: Path, events: int, keys: int, first_key: int, start_seq: int, seed: int,
                 partitions: int = 4) -> None:
    """`events` single-row Canal messages: inserts of `keys` new keys, then updates and
    deletes (with re-inserts) of random keys, Kafka records over `partitions` partitions."""
    rng = random.Random(seed)
    live: dict[int, dict[str, str]] = {}
    offsets = [0] * partitions
    with path.open("w", encoding="utf-8") as out:
        for i in range(events):
            seq = start_seq + i
            if i < keys:
                key = first_key + i
                op, before, after = "INSERT", None, _row(rng, key)
            else:
                key = first_key + rng.randrange(keys)
                if key not in live:
                    op, before, after = "INSERT", None, _row(rng, key)
                elif rng.random() < 0.05:
                    op, before, after = "DELETE", live[key], None
                else:
                    op, before = "UPDATE", live[key]
                    after = dict(before, status=rng.choice(["paid", "shipped", "done"]),
                                 amount=f"{rng.randrange(10**8)}.{rng.randrange(10**4):04d}")
            if after is None:
                live.pop(key, None)
            else:
                live[key] = after
            message = {"data": [after if after is not None else before], "database": "bench",
                       "table": "orders", "pkNames": ["id"], "isDdl": False, "type": op,
                       "es": 1_700_000_000_000 + seq * 1000, "ts": 1_700_000_000_000 + seq * 1000 + 5,
                       "id": seq // 100, "sql": "", "mysqlType": COLUMNS,
                       "old": [{c: v for c, v in before.items() if after[c] != v}] if op == "UPDATE" else None}
            part = key % partitions
            record = {"topic": "bench.canal.orders", "partition": part, "offset": offsets[part],
                      "timestamp": message["ts"], "key": None, "value": json.dumps(message)}
            offsets[part] += 1
            out.write(json.dumps(record) + "\n")


def timed(env: dict[str, str], *args: str) -> float:
    started = time.monotonic()
    done = subprocess.run([str(BIN / "cdc"), *args], cwd=PROJECT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"cdc {' '.join(args)} failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return time.monotonic() - started


def one_run(base: Path, more: Path, workdir: Path) -> dict[str, float]:
    home = Path(tempfile.mkdtemp(dir=workdir, prefix="state-"))
    env = dict(os.environ, CDC_HOME=str(home), DBT_TARGET_PATH=str(home / "target"),
               DBT_LOG_PATH=str(home / "logs"))
    figures = {"land 1M": timed(env, "land", str(base), "--format", "canal_json")}
    figures["build 1M"] = timed(env, "build")
    figures["land 1%"] = timed(env, "land", str(more), "--format", "canal_json")
    figures["build 1%"] = timed(env, "build")
    figures["build, nothing new"] = timed(env, "build")
    figures["full: land + build 1M"] = figures["land 1M"] + figures["build 1M"]
    figures["incremental: land + build 1%"] = figures["land 1%"] + figures["build 1%"]
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", type=Path, default=PROJECT / "BENCHMARKS.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cdc-bench-") as tmp:
        workdir = Path(tmp)
        base, more = workdir / "base.jsonl", workdir / "more.jsonl"
        write_stream(base, args.events, args.keys, first_key=1, start_seq=0, seed=1)
        # 1% more events on the same keys, after the base stream
        write_stream(more, args.events // 100, args.keys, first_key=1, start_seq=args.events, seed=2)
        runs = [one_run(base, more, workdir) for _ in range(args.runs)]
    medians = {name: statistics.median(r[name] for r in runs) for name in runs[0]}
    lines = [
        "# Benchmarks",
        "",
        f"`bench/bench_canal.py`: {args.events:,} Canal JSON change events (single-row INSERT, UPDATE with",
        f"partial `old`, DELETE) over {args.keys:,} keys in 4 Kafka partitions, as JSON-lines Kafka records,",
        "file to final state, each command a separate process on the embedded Spark (`local[*]`);",
        f"then {args.events // 100:,} more events (1%) and a build with nothing new.",
        f"Median of {args.runs} runs, seconds of wall time, on {os.cpu_count()} cores.",
        "",
        "| step | median s | runs |",
        "|---|---|---|",
    ]
    for name, value in medians.items():
        lines.append(f"| {name} | {value:.1f} | {', '.join(f'{r[name]:.1f}' for r in runs)} |")
    lines += ["", "Peers on the same machine class (from the project brief): Apache Flink 2.3, Canal JSON file to",
              "final state, about 22 s; Spark Declarative Pipelines AUTO CDC about 16 s (SCD1) and 35 s (SCD2)",
              "from already-decoded events, about 11 s for a run with nothing new.", ""]
    text = "\n".join(lines)
    args.out.write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
