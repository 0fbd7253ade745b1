"""How rendered records reach a consumer: partitioned as the vendors partition, read
partition by partition in interleaved chunks, with re-deliveries at later offsets."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from dataclasses import replace

from realdb.model import Row, TableSchema
from synth import Record


def stable_hash(text: str) -> int:
    """A hash that is the same in every process (Python's hash() of str is salted)."""
    return int.from_bytes(hashlib.md5(text.encode("utf-8")).digest()[:4], "big")


def key_partition(schema: TableSchema, row: Row | None, partitions: int) -> int:
    """The partition a row goes to when the vendor partitions by primary key (Canal and
    DRS `partitionHash`, Debezium's record key): the hash of the key values; a keyless
    table (or a DDL) goes by table name."""
    if not schema.pk or row is None:
        return table_partition(schema.db, schema.name, partitions)
    return stable_hash("|".join(repr(row.get(c)) for c in schema.pk)) % partitions


def table_partition(db: str, table: str, partitions: int) -> int:
    """The partition of a table when the vendor partitions by table (or of a DDL)."""
    return stable_hash(f"{db}.{table}") % partitions


class PartitionWriter:
    """Assigns each record the next offset of its partition, as a broker does."""

    def __init__(self, topic: str, partitions: int) -> None:
        self.topic = topic
        self.partitions = partitions
        self.next_offset = [0] * partitions
        self.records: list[Record] = []

    def send(self, partition: int, timestamp_ms: int, value: str | None, key: str | None = None,
             binary: bool = False) -> Record:
        record = Record(self.topic, partition, self.next_offset[partition], timestamp_ms, value, key, binary)
        self.next_offset[partition] += 1
        self.records.append(record)
        return record


def consumer_order(records: Iterable[Record], seed: int, max_chunk: int = 40) -> list[Record]:
    """The records as a consumer reads them: each partition in offset order, the
    partitions interleaved in chunks of random size (a fetch from one partition, then
    another), so changes of one second in different partitions arrive in any order."""
    rng = random.Random(seed)
    queues: dict[tuple[str, int], list[Record]] = {}
    for r in sorted(records, key=lambda r: (r.topic, r.partition, r.offset)):
        queues.setdefault((r.topic, r.partition), []).append(r)
    out: list[Record] = []
    while queues:
        key = rng.choice(sorted(queues))
        take = rng.randrange(1, max_chunk + 1)
        out.extend(queues[key][:take])
        del queues[key][:take]
        if not queues[key]:
            del queues[key]
    return out


def with_redeliveries(records: list[Record], rate: float, seed: int) -> list[Record]:
    """`records` plus a `rate` share of them produced again at the end of their
    partition (a producer retry or a connector restart from an older position)."""
    rng = random.Random(seed)
    next_offset: dict[tuple[str, int], int] = {}
    for r in records:
        next_offset[(r.topic, r.partition)] = max(next_offset.get((r.topic, r.partition), 0), r.offset + 1)
    extra = []
    for r in rng.sample(records, int(len(records) * rate)):
        key = (r.topic, r.partition)
        extra.append(replace(r, offset=next_offset[key]))
        next_offset[key] += 1
    return records + extra
