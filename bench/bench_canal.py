"""The Canal stream of the benchmarks and how they run `cdc`: 1M Canal JSON change events
over 100k keys as JSON-lines Kafka records (inserts of every key, then updates with a
partial `old` and deletes with re-inserts of random keys), and 1% more events on the same
keys after them. bench/bench_peers.py times them beside the peers."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

from measure import Measured, run_measured

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
            old = ([{c: v for c, v in before.items() if after[c] != v}]
                   if before is not None and after is not None else None)
            message = {"data": [after if after is not None else before], "database": "bench",
                       "table": "orders", "pkNames": ["id"], "isDdl": False, "type": op,
                       "es": 1_700_000_000_000 + seq * 1000, "ts": 1_700_000_000_000 + seq * 1000 + 5,
                       "id": seq // 100, "sql": "", "mysqlType": COLUMNS, "old": old}
            part = key % partitions
            record = {"topic": "bench.canal.orders", "partition": part, "offset": offsets[part],
                      "timestamp": message["ts"], "key": None, "value": json.dumps(message)}
            offsets[part] += 1
            out.write(json.dumps(record) + "\n")


def write_streams(workdir: Path, events: int, keys: int) -> tuple[Path, Path]:
    """The base stream, and 1% more events on the same keys after it, in `workdir`."""
    base, more = workdir / "base.jsonl", workdir / "more.jsonl"
    write_stream(base, events, keys, first_key=1, start_seq=0, seed=1)
    write_stream(more, events // 100, keys, first_key=1, start_seq=events, seed=2)
    return base, more


def cdc_env(home: Path) -> dict[str, str]:
    """The environment of `cdc` commands on the state folder `home` (dbt's target and logs inside)."""
    return dict(os.environ, CDC_HOME=str(home), DBT_TARGET_PATH=str(home / "target"),
                DBT_LOG_PATH=str(home / "logs"))


def run_cdc(env: dict[str, str], *args: str) -> Measured:
    return run_measured([str(BIN / "cdc"), *args], env=env, cwd=PROJECT)
