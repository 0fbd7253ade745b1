"""Generated MongoDB change streams written as DRS JSON for DDS (drs_mongo_json).

The relational streams of `synth` do not fit a document store (no nested values, no
partial updates), so this module generates its own: documents with nested sub-documents,
arrays, ObjectId / ISODate / NumberDecimal / NumberLong values, changed by inserts,
replacements, update-operator patches ($set and $unset of top-level and dotted paths,
$inc) and deletes. `fold` gives the expected gold rows independently of the project's
UDFs: plain Python on plain dicts.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from synth import Record


@dataclass(frozen=True)
class ObjectId:
    hex: str


@dataclass(frozen=True)
class IsoDate:
    millis: int

    def iso(self) -> str:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=self.millis)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{self.millis % 1000:03d}Z"


@dataclass(frozen=True)
class NumberDecimal:
    text: str


@dataclass(frozen=True)
class NumberLong:
    value: int


@dataclass
class MongoChange:
    op: str  # INSERT, UPDATE (replace / update), DELETE
    record_type: str  # insert, replace, update, doc
    coll: str
    doc_id: ObjectId
    value: dict[str, Any]  # the document, the update operators, or {_id}


_WORDS = ["alpha", "Ωmega", "华为云", "naïve", "emoji 🚀", 'quote "x"', "back\\slash", "O'Brien",
          'ObjectId("not an id")', "NumberLong(5)"]
COLLECTIONS = ("users", "carts")


def _document(rng: random.Random, doc_id: ObjectId) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "_id": doc_id,
        "name": rng.choice(_WORDS) + str(rng.randrange(100)),
        "qty": rng.randrange(-5, 50),
        "views": NumberLong(rng.randrange(10 ** 15)),
        "price": NumberDecimal(f"{rng.randrange(10 ** 20)}.{rng.randrange(100):02d}"),
        "seen": IsoDate(1_684_000_000_000 + rng.randrange(10 ** 9)),
        "tags": [rng.choice(_WORDS) for _ in range(rng.randrange(0, 4))],
        "address": {"city": rng.choice(_WORDS), "zip": str(rng.randrange(10 ** 5)),
                    "geo": {"lat": rng.randrange(-90, 90), "lng": rng.randrange(-180, 180)}},
    }
    if rng.random() < 0.5:
        doc["note"] = rng.choice([None, True, False, rng.choice(_WORDS)])
    return doc


def _patch(rng: random.Random, doc: dict[str, Any]) -> dict[str, Any]:
    ops: dict[str, dict[str, Any]] = {}
    for _ in range(rng.randrange(1, 4)):
        roll = rng.random()
        if roll < 0.25:
            ops.setdefault("$set", {})["name"] = rng.choice(_WORDS)
        elif roll < 0.4:
            ops.setdefault("$set", {})["address.city"] = rng.choice(_WORDS)
        elif roll < 0.5:
            ops.setdefault("$set", {})["address.geo.lat"] = rng.randrange(-90, 90)
        elif roll < 0.6 and doc.get("tags"):
            ops.setdefault("$set", {})[f"tags.{rng.randrange(len(doc['tags']))}"] = rng.choice(_WORDS)
        elif roll < 0.7:
            ops.setdefault("$set", {})["extra"] = {"level": rng.randrange(5), "labels": [rng.choice(_WORDS)]}
        elif roll < 0.8:
            ops.setdefault("$unset", {})[rng.choice(["note", "extra", "address.zip", "address.geo"])] = True
        else:
            ops.setdefault("$inc", {})["qty"] = rng.randrange(-3, 10)
    # one path per field across operators, as MongoDB requires
    seen: set[str] = set()
    for op in list(ops):
        ops[op] = {p: v for p, v in ops[op].items() if p.split(".")[0] not in seen}
        seen.update(p.split(".")[0] for p in ops[op])
        if not ops[op]:
            del ops[op]
    return ops


def generate(n_changes: int = 1000, seed: int = 5) -> list[MongoChange]:
    """`n_changes` changes over the documents of two collections."""
    rng = random.Random(seed)
    live: dict[tuple[str, ObjectId], dict[str, Any]] = {}
    changes: list[MongoChange] = []
    counter = 0
    while len(changes) < n_changes:
        roll = rng.random()
        if roll < 0.3 or len(live) < 5:
            counter += 1
            coll = rng.choice(COLLECTIONS)
            doc_id = ObjectId(f"{0x64650cf6 + counter:08x}{rng.randrange(16 ** 16):016x}")
            doc = _document(rng, doc_id)
            live[(coll, doc_id)] = doc
            changes.append(MongoChange("INSERT", "insert", coll, doc_id, copy.deepcopy(doc)))
            continue
        coll, doc_id = rng.choice(sorted(live, key=lambda k: (k[0], k[1].hex)))
        if roll < 0.4:
            doc = _document(rng, doc_id)
            live[(coll, doc_id)] = doc
            changes.append(MongoChange("UPDATE", "replace", coll, doc_id, copy.deepcopy(doc)))
        elif roll < 0.9:
            ops = _patch(rng, live[(coll, doc_id)])
            apply(live[(coll, doc_id)], ops)
            changes.append(MongoChange("UPDATE", "update", coll, doc_id, ops))
        else:
            del live[(coll, doc_id)]
            changes.append(MongoChange("DELETE", "doc", coll, doc_id, {"_id": doc_id}))
    return changes


# --- the expected result, in plain Python -------------------------------------------------

def _container(doc: dict[str, Any], path: str, create: bool) -> tuple[Any, Any] | None:
    parts = path.split(".")
    node: Any = doc
    for part in parts[:-1]:
        key: Any = int(part) if isinstance(node, list) else part
        if isinstance(node, dict) and node.get(key) is None:
            if not create:
                return None
            node[key] = {}
        node = node[key]
    last = parts[-1]
    return node, (int(last) if isinstance(node, list) else last)


def apply(doc: dict[str, Any], ops: dict[str, Any]) -> None:
    """Apply $set / $unset / $inc (the operators `generate` writes) to `doc` in place."""
    for op, spec in ops.items():
        for path, operand in spec.items():
            found = _container(doc, path, create=op != "$unset")
            if found is None:
                continue
            node, key = found
            if op == "$set":
                node[key] = copy.deepcopy(operand)
            elif op == "$unset":
                if isinstance(node, list):
                    node[key] = None
                else:
                    node.pop(key, None)
            else:
                node[key] = node.get(key, 0) + operand if isinstance(node, dict) else node[key] + operand


def canonical(value: Any) -> str | None:
    """Canonical text of a top-level value, as DESIGN §4.3 and fmt_drs_mongo_json say."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, ObjectId):
        return value.hex
    if isinstance(value, IsoDate):
        return value.iso()
    if isinstance(value, NumberDecimal):
        return value.text
    if isinstance(value, NumberLong):
        return str(value.value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def fold(db: str, changes: list[MongoChange]) -> dict[tuple[str, str], dict[str, str | None]]:
    """(table_id, row_key) -> gold row after all changes, in order."""
    state: dict[tuple[str, str], dict[str, Any]] = {}
    for change in changes:
        key = (f"{db}.{change.coll}".lower(), json.dumps([change.doc_id.hex]))
        if change.record_type in ("insert", "replace"):
            state[key] = copy.deepcopy(change.value)
        elif change.record_type == "update":
            apply(state[key], change.value)
        else:
            state.pop(key, None)
    return {k: {f: canonical(v) for f, v in doc.items()} for k, doc in state.items()}


# --- rendering ------------------------------------------------------------------------------

def shell(value: Any) -> str:
    """`value` in Mongo shell syntax, as DRS writes it."""
    if isinstance(value, ObjectId):
        return f'ObjectId("{value.hex}")'
    if isinstance(value, IsoDate):
        return f'ISODate("{value.iso()}")'
    if isinstance(value, NumberDecimal):
        return f'NumberDecimal("{value.text}")'
    if isinstance(value, NumberLong):
        return f"NumberLong({value.value})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k, ensure_ascii=False)}: {shell(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(shell(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def render(db: str, changes: list[MongoChange], topic: str, partitions: int = 3,
           start_s: int = 1_684_344_064) -> list[Record]:
    """Kafka records of `changes`: partitioned by `_id`, clusterTime and id increasing."""
    offsets = [0] * partitions
    records = []
    for seq, change in enumerate(changes, start=1):
        part = int(change.doc_id.hex, 16) % partitions
        seconds, increment = start_s + seq // 3, seq % 3 + 1
        message = {
            "id": seq, "op": change.op, "dbType": "MongoDB", "db": db, "coll": change.coll,
            "value": shell(change.value),
            "where": None if change.record_type in ("insert", "doc") else shell({"_id": change.doc_id}),
            "recordType": change.record_type, "extra": change.record_type,
            # es: the DRS host clock, 8 h behind the oplog's (as in the vendor samples)
            "es": (seconds - 8 * 3600) * 1000, "ts": (seconds - 8 * 3600) * 1000 + 130,
            "clusterTime": f"{seconds}:{increment}",
        }
        records.append(Record(topic, part, offsets[part], seconds * 1000 + 500,
                              json.dumps(message, ensure_ascii=False)))
        offsets[part] += 1
    return records
