"""Benchmark: ours beside two peers, Apache Flink 2.3 (canal-json) and Spark Declarative
Pipelines AUTO CDC, on the same machine in one run; medians and ratios against our targets.

Each round runs these one after the other, each command a fresh process:

- ours, on a fresh CDC_HOME: `cdc land` of --events Canal JSON events over --keys keys
  (bench_canal.write_stream) + `cdc build`; `cdc land` of 1% more events + `cdc build`;
  `cdc build` with nothing new. Wall time and peak memory of each, and dbt's time per node
  of the two builds (run_results.json).
- Flink: decode.py over the same base stream (the records' message values, one a line),
  folded to the final state; its rows are compared with our gold.cdc_current_rows after
  the base build.
- SDP: run_autocdc.py with the same event and key counts (it generates its own events):
  one pipeline with an SCD1 and an SCD2 flow; initial load, +1%, a rerun with nothing new.

--ten-x then lands and builds ten times the events (and keys) once, for the linearity
target. Writes the head of BENCHMARKS.md (the sections of bench_avro_udf.py and
bench_formats.py are kept as they are) and the figures as JSON. The peers are copied from
../shared/peers to bench/.peers/ and installed there when missing. On an idle machine:

    .venv/bin/python bench/bench_peers.py
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata
import json
import os
import re
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench_canal import PROJECT, cdc_env, run_cdc, write_stream, write_streams
from measure import Measured, run_measured

PEERS_SOURCE = PROJECT.parent / "shared" / "peers"
PEERS = PROJECT / "bench" / ".peers"
BENCHMARKS = PROJECT / "BENCHMARKS.md"
RESULTS = PROJECT / "bench" / "results" / "bench_peers.json"
# the sections other scripts write into BENCHMARKS.md: kept as they are
KEPT_SECTIONS = ("## Avro UDF throughput", "## Decoders by format", "## Kafka: ingest and cdc run")
# bench_canal.COLUMNS in Flink SQL: bigint(20), varchar(64), decimal(20,4), varchar(16), datetime
FLINK_SCHEMA = "id BIGINT NOT NULL, customer STRING, amount DECIMAL(20,4), status STRING, updated TIMESTAMP(0)"
CURRENT_ROWS = "select row from gold.cdc_current_rows where table_id = 'bench.orders'"
# our models that fold silver into gold: SCD2 (history) and SCD1 (current rows)
GOLD_MODELS = ("cdc_row_history", "cdc_current_rows")
SDP_RUNS = {"initial": "initial", "+1%": "incremental", "nothing new": "no_change_rerun"}
FULL, MORE, NOTHING = "full", "+1%", "build, nothing new"
NAMES = {"flink": "Flink", "sdp": "SDP"}


@dataclass(frozen=True)
class Step:
    seconds: float
    peak_mib: float


@dataclass
class Ours:
    steps: dict[str, Step]
    nodes_full: dict[str, float]
    nodes_more: dict[str, float]


@dataclass(frozen=True)
class Flink:
    step: Step
    jvm_start_s: float
    job_s: float
    rows: int
    states_equal: bool
    rows_only_ours: int
    rows_only_flink: int


@dataclass(frozen=True)
class SdpRun:
    wall_s: float
    scd1_s: float
    scd2_s: float


@dataclass(frozen=True)
class Sdp:
    runs: dict[str, SdpRun]
    verified: bool


@dataclass
class Round:
    ours: Ours
    flink: Flink | None
    sdp: Sdp | None


@dataclass(frozen=True)
class Streams:
    base: Path
    more: Path
    values: Path  # the base stream's message values, one a line: Flink's input


@dataclass(frozen=True)
class Target:
    step: str
    target: str
    ours: list[float]
    reference: list[float]
    limit: float
    unit: str
    missing: str = "not run"  # what the row says without figures of ours

    @property
    def ratio(self) -> float | None:
        if not self.ours or not self.reference:
            return None
        return statistics.median(self.ours) / statistics.median(self.reference)


@dataclass
class Report:
    date: str
    args: dict[str, Any]
    machine: dict[str, Any]
    versions: dict[str, str]
    rounds: list[Round] = field(default_factory=list)
    ten_x: dict[str, Step] | None = None
    ten_x_failure: str | None = None  # why the 10x run stopped, when it did


# ------------------------------------------------------------------ peers and inputs

def ensure_peer(name: str, *install: list[str]) -> Path:
    """bench/.peers/<name>: a writable copy of ../shared/peers/<name>, installed once."""
    home = PEERS / name
    if not home.exists():
        shutil.copytree(PEERS_SOURCE / name, home)
        for path in [home, *home.rglob("*")]:
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    stamp = home / "venv" / ".installed"
    if not stamp.exists():
        for command in install:
            subprocess.run(command, cwd=home, check=True, stdout=sys.stderr)  # stdout: the report only
        stamp.touch()
    return home


def ensure_peers(names: list[str]) -> dict[str, Path]:
    installs = {"flink": [["python3.11", "-m", "venv", "venv"], ["venv/bin/pip", "install", "apache-flink==2.3.0"]],
                "sdp": [["bash", "setup.sh"]]}
    return {name: ensure_peer(name, *installs[name]) for name in names}


def package_version(python: Path, package: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({package!r}))"
    return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def versions(peers: dict[str, Path]) -> dict[str, str]:
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    from cdclake.runtime import driver_heap

    commit = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=PROJECT, capture_output=True,
                            text=True).stdout.strip()
    found = {"java": java, "ours: commit": commit or "?", "ours: pyspark": importlib.metadata.version("pyspark"),
             "ours: dbt-core": importlib.metadata.version("dbt-core"),
             "ours: driver heap": driver_heap()}
    if "flink" in peers:
        found["flink: apache-flink"] = package_version(peers["flink"] / "venv" / "bin" / "python", "apache-flink")
    if "sdp" in peers:
        found["sdp: pyspark"] = package_version(peers["sdp"] / "venv" / "bin" / "python", "pyspark")
    return found


def machine() -> dict[str, Any]:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    meminfo = Path("/proc/meminfo").read_text()
    total = re.search(r"MemTotal:\s+(\d+) kB", meminfo)
    return {"cores": os.cpu_count(), "ram_gib": round(int(total.group(1)) / 2**20, 1) if total else None,
            "cpu": next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "?"),
            "load_1m_at_start": os.getloadavg()[0]}


def write_values(records: Path, values: Path) -> None:
    """One message value a line, from JSON-lines Kafka records: what Flink's filesystem source reads."""
    with records.open(encoding="utf-8") as lines, values.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.loads(line)["value"] + "\n")


def prepare_streams(workdir: Path, events: int, keys: int) -> Streams:
    base, more = write_streams(workdir, events, keys)
    write_values(base, workdir / "values.txt")
    return Streams(base, more, workdir / "values.txt")


def canonical(row: Mapping[str, Any]) -> tuple[str, ...]:
    """A current row as comparable text: decimals to 4 places, datetimes in ISO form."""
    return (str(int(row["id"])), str(row["customer"]), str(Decimal(str(row["amount"])).quantize(Decimal("0.0001"))),
            str(row["status"]), dt.datetime.fromisoformat(str(row["updated"])).isoformat(sep=" "))


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def step(measured: Measured) -> Step:
    return Step(round(measured.seconds, 2), round(measured.peak_mib))


# ------------------------------------------------------------------ the three systems

def land_build(env: dict[str, str], records: Path, label: str) -> dict[str, Step]:
    land = run_cdc(env, "land", str(records), "--format", "canal_json")
    build = run_cdc(env, "build")
    both = Step(round(land.seconds + build.seconds, 2), round(max(land.peak_mib, build.peak_mib)))
    steps = {f"land {label}": step(land), f"build {label}": step(build), f"land + build {label}": both}
    for name, figures in steps.items():
        log(f"  ours {name}: {figures.seconds:.1f} s, {figures.peak_mib:,.0f} MiB")
    return steps


def node_seconds(env: dict[str, str]) -> dict[str, float]:
    """Execution time of each node of the last dbt command, from its run_results.json."""
    results = json.loads((Path(env["DBT_TARGET_PATH"]) / "run_results.json").read_text(encoding="utf-8"))
    return {result["unique_id"]: round(result["execution_time"], 2) for result in results["results"]}


def our_rows(env: dict[str, str]) -> set[tuple[str, ...]]:
    printed = run_cdc(env, "sql", "--json", CURRENT_ROWS).stdout.strip().splitlines()[-1]
    return {canonical(item["row"]) for item in json.loads(printed)}


def run_ours(streams: Streams, home: Path) -> tuple[Ours, set[tuple[str, ...]]]:
    env = cdc_env(home)
    steps = land_build(env, streams.base, FULL)
    nodes_full = node_seconds(env)
    rows = our_rows(env)
    steps |= land_build(env, streams.more, MORE)
    nodes_more = node_seconds(env)
    steps[NOTHING] = step(run_cdc(env, "build"))
    log(f"  ours {NOTHING}: {steps[NOTHING].seconds:.1f} s, {steps[NOTHING].peak_mib:,.0f} MiB")
    return Ours(steps, nodes_full, nodes_more), rows


def run_flink(home: Path, values: Path, workdir: Path, ours: set[tuple[str, ...]]) -> Flink:
    state = workdir / "flink-state.json"
    measured = run_measured([str(home / "venv" / "bin" / "python"), "decode.py", "canal-json", str(values),
                             "--mode", "materialize", "--minibatch", "1000000", "--quiet", "--state-out", str(state),
                             "--schema", FLINK_SCHEMA, "--pk", "id"], env=dict(os.environ), cwd=home)
    summary = json.loads(measured.stdout.strip().splitlines()[-1])
    theirs = {canonical(row) for row in json.loads(state.read_text(encoding="utf-8"))}
    flink = Flink(step(measured), summary["env_start_s"], summary["job_s"], len(theirs), theirs == ours,
                  len(ours - theirs), len(theirs - ours))
    log(f"  flink: {flink.step.seconds:.1f} s, {flink.step.peak_mib:,.0f} MiB, states equal: {flink.states_equal}")
    return flink


def flow_seconds(run: dict[str, Any], table: str) -> float:
    return float(next(s for name, s in run["phases_s"].items() if name.startswith("flow:") and name.endswith(table)))


def run_sdp(home: Path, events: int, keys: int, workdir: Path) -> Sdp:
    out = workdir / "sdp-results.json"
    run_measured([str(home / "venv" / "bin" / "python"), "run_autocdc.py", "--events", str(events), "--keys", str(keys),
                  "--inc-frac", "0.01", "--workdir", str(workdir / "sdp"), "--out", str(out)],
                 env=dict(os.environ), cwd=home)
    results = json.loads(out.read_text(encoding="utf-8"))
    runs = {name: SdpRun(results[key]["wall_s"], flow_seconds(results[key], ".customers_scd1"),
                         flow_seconds(results[key], ".customers_scd2")) for name, key in SDP_RUNS.items()}
    checks = [check for key in ("initial", "incremental") for check in results[key]["verify"].values()
              if isinstance(check, dict)]
    sdp = Sdp(runs, bool(checks) and all(check["ok"] for check in checks))
    for name, run in runs.items():
        log(f"  sdp {name}: {run.wall_s:.1f} s (flows SCD1 {run.scd1_s:.1f} s, SCD2 {run.scd2_s:.1f} s)")
    return sdp


def one_round(number: int, args: argparse.Namespace, peers: dict[str, Path], streams: Streams,
              workdir: Path) -> Round:
    log(f"round {number}")
    with tempfile.TemporaryDirectory(dir=workdir, prefix=f"round-{number}-") as tmp:
        ours, rows = run_ours(streams, Path(tmp) / "state")
        flink = run_flink(peers["flink"], streams.values, Path(tmp), rows) if "flink" in peers else None
        sdp = run_sdp(peers["sdp"], args.events, args.keys, Path(tmp)) if "sdp" in peers else None
    return Round(ours, flink, sdp)


def run_ten_x(events: int, keys: int, workdir: Path) -> dict[str, Step] | str:
    """The steps of ours at 10x, or why a step failed: a failure there is a finding of the
    benchmark, reported beside the rounds' figures, not a reason to lose them."""
    log(f"ours at 10x: {events * 10:,} events over {keys * 10:,} keys")
    records = workdir / "base-10x.jsonl"
    write_stream(records, events * 10, keys * 10, first_key=1, start_seq=0, seed=1)
    try:
        with tempfile.TemporaryDirectory(dir=workdir, prefix="ten-x-") as tmp:
            return land_build(cdc_env(Path(tmp)), records, FULL)
    except SystemExit as failed:
        log(f"  ours at 10x failed: {failed}")
        return str(failed)
    finally:
        records.unlink()


# ------------------------------------------------------------------ figures and report

def count_label(n: int) -> str:
    for size, suffix in ((1_000_000, "M"), (1_000, "k")):
        if n >= size and n % size == 0:
            return f"{n // size}{suffix}"
    return f"{n:,}"


def gold_seconds(nodes: dict[str, float]) -> float:
    return sum(s for uid, s in nodes.items() if uid.startswith("model.") and uid.rsplit(".", 1)[1] in GOLD_MODELS)


def per_round(rounds: list[Round], pick: Callable[[Round], float | None]) -> list[float]:
    values = [pick(r) for r in rounds]
    return [v for v in values if v is not None]


def targets(report: Report) -> list[Target]:
    rounds, label = report.rounds, count_label(report.args["events"])
    full = per_round(rounds, lambda r: r.ours.steps[f"land + build {FULL}"].seconds)
    flink = per_round(rounds, lambda r: r.flink.step.seconds if r.flink else None)
    sdp_nothing = per_round(rounds, lambda r: r.sdp.runs["nothing new"].wall_s if r.sdp else None)
    sdp_flows = per_round(rounds, lambda r: r.sdp.runs["initial"].scd1_s + r.sdp.runs["initial"].scd2_s
                          if r.sdp else None)
    flink_peak = per_round(rounds, lambda r: r.flink.step.peak_mib if r.flink else None)
    ten_x = report.ten_x[f"land + build {FULL}"].seconds if report.ten_x else None
    x = "\N{MULTIPLICATION SIGN}"
    return [
        Target(f"{label} Canal events, land + build to gold", f"≤ 1.0 {x} Flink's wall time", full, flink, 1.0, "s"),
        Target("+1% events, land + build", f"≤ 0.10 {x} the full land + build",
               per_round(rounds, lambda r: r.ours.steps[f"land + build {MORE}"].seconds), full, 0.10, "s"),
        Target("build with nothing new, whole process", f"≤ 1.0 {x} SDP's no-change rerun",
               per_round(rounds, lambda r: r.ours.steps[NOTHING].seconds), sdp_nothing, 1.0, "s"),
        Target("gold SCD1 + SCD2 from silver", f"≤ 0.5 {x} SDP's SCD1 + SCD2 flows (initial)",
               per_round(rounds, lambda r: gold_seconds(r.ours.nodes_full)), sdp_flows, 0.5, "s"),
        Target(f"peak memory of a {label} build", "≤ Flink's peak",
               per_round(rounds, lambda r: r.ours.steps[f"build {FULL}"].peak_mib), flink_peak, 1.0, "MiB"),
        Target(f"{count_label(report.args['events'] * 10)} events, land + build", f"≤ 10 {x} the {label} time",
               [ten_x] if ten_x else [], [statistics.median(full)], 10.0, "s",
               "failed (below)" if report.ten_x_failure else "not run"),
    ]


def figure(values: list[float], unit: str, missing: str = "not run") -> str:
    return f"{statistics.median(values):,.{0 if unit == 'MiB' else 1}f} {unit}" if values else missing


def target_row(t: Target) -> str:
    figures = f"| {t.step} | {t.target} | {figure(t.ours, t.unit, t.missing)} | {figure(t.reference, t.unit)} |"
    ratio = t.ratio
    if ratio is None:
        return f"{figures} {t.missing} | | {t.missing} |"
    rounds = ", ".join(f"{o / r:.2f}" for o, r in zip(t.ours, t.reference, strict=False)) if len(t.ours) > 1 else ""
    return f"{figures} {ratio:.2f} (limit {t.limit:g}) | {rounds} | {'pass' if ratio <= t.limit else 'FAIL'} |"


def series_row(name: str, values: list[float], decimals: int = 1) -> str:
    return (f"| {name} | {statistics.median(values):,.{decimals}f} | "
            f"{', '.join(f'{v:,.{decimals}f}' for v in values)} |")


def time_rows(report: Report) -> list[str]:
    rounds = report.rounds
    rows = [series_row(f"ours: {name}", [r.ours.steps[name].seconds for r in rounds]) for name in rounds[0].ours.steps]
    rows.append(series_row("ours: gold SCD1 + SCD2 nodes of the full build", [gold_seconds(r.ours.nodes_full)
                                                                              for r in rounds]))
    if rounds[0].flink:
        flinks = [r.flink for r in rounds if r.flink]
        rows += [series_row("flink: decode.py, file to final state", [f.step.seconds for f in flinks]),
                 series_row("flink: of which JVM start", [f.jvm_start_s for f in flinks]),
                 series_row("flink: of which job", [f.job_s for f in flinks])]
    if rounds[0].sdp:
        for name in SDP_RUNS:
            runs = [r.sdp.runs[name] for r in rounds if r.sdp]
            rows += [series_row(f"sdp {name}: whole process", [run.wall_s for run in runs]),
                     series_row(f"sdp {name}: SCD1 flow", [run.scd1_s for run in runs]),
                     series_row(f"sdp {name}: SCD2 flow", [run.scd2_s for run in runs])]
    if report.ten_x:
        rows += [f"| ours at 10x: {name} | {s.seconds:,.1f} | once |" for name, s in report.ten_x.items()]
    return rows


def memory_rows(report: Report) -> list[str]:
    rounds = report.rounds
    rows = [series_row(f"ours: {name}", [r.ours.steps[name].peak_mib for r in rounds], 0)
            for name in rounds[0].ours.steps if not name.startswith("land + build")]
    if rounds[0].flink:
        rows.append(series_row("flink: decode.py", [r.flink.step.peak_mib for r in rounds if r.flink], 0))
    if report.ten_x:
        rows += [f"| ours at 10x: {name} | {s.peak_mib:,.0f} | once |" for name, s in report.ten_x.items()
                 if not name.startswith("land + build")]
    return rows


def node_rows(rounds: list[Round], pick: Callable[[Ours], dict[str, float]], top: int = 10) -> list[str]:
    names = [name for name in pick(rounds[0].ours) if all(name in pick(r.ours) for r in rounds)]
    names.sort(key=lambda name: -statistics.median(pick(r.ours)[name] for r in rounds))
    return [series_row(node_label(name), [pick(r.ours)[name] for r in rounds], 2) for name in names[:top]]


def node_label(unique_id: str, width: int = 70) -> str:
    """`model.cdc_lakehouse.cdc_row_history` as `model cdc_row_history`; long test names cut."""
    kind, _, name = unique_id.split(".")[:3]
    return f"{kind} {name if len(name) <= width else name[:width] + '...'}"


def describe(report: Report) -> list[str]:
    a, m = report.args, report.machine
    events, label, more = a["events"], count_label(a["events"]), count_label(a["events"] // 100)
    lines = [
        f"`bench/bench_peers.py`, {report.date}, on {m['cores']} cores ({m['cpu']}) and {m['ram_gib']} GiB",
        f"of memory (1-minute load {m['load_1m_at_start']:.1f} at the start, {m['load_1m_at_end']:.1f} at the end).",
        f"{a['rounds']} round{'s' if a['rounds'] > 1 else ''}, each running "
        + ", then ".join(["ours", *(NAMES[p] for p in a["peers"])]) + ", one process at a time; medians, and every "
        "round's figure.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in report.versions.items()) + ".",
        "",
        f"- **Ours**: {events:,} Canal JSON change events (single-row INSERT, UPDATE with partial `old`, DELETE)",
        f"  over {a['keys']:,} keys in 4 Kafka partitions, as JSON-lines Kafka records (`bench/bench_canal.py`):",
        f"  `cdc land` + `cdc build` on an empty state folder (full); then {more} more events (+1%); then",
        "  `cdc build` with nothing new. Each command is a separate process (JVM, Spark and dbt start-up",
        "  included).",
    ]
    if "flink" in a["peers"]:
        lines += [
            f"- **Flink**: the same {label} events (each record's message value, one a line), `decode.py canal-json",
            "  --mode materialize --minibatch 1000000` (filesystem source, Flink's canal-json format, mini-batched",
            "  ChangelogNormalize, final rows out through Arrow), one process with its MiniCluster JVM. Its final rows",
            "  are compared with our `gold.cdc_current_rows` after the full build (as text: decimals to 4 places).",
        ]
    if "sdp" in a["peers"]:
        lines += [
            f"- **SDP**: `run_autocdc.py --events {events} --keys {a['keys']} --inc-frac 0.01`. It generates its own",
            "  events (already decoded: id, seq, op, name, amount, updated_at, in Parquet, shuffled, with duplicates",
            "  and late events), not our Canal stream: it starts where our silver starts. One pipeline with an SCD1",
            "  and an SCD2 AUTO CDC flow (run concurrently), each run a `spark-pipelines run` process: initial load,",
            "  +1% events, a rerun with nothing new. Flow times are the pipeline's own (flow RUNNING to COMPLETED).",
        ]
    return lines


def render(report: Report) -> str:
    rounds = report.rounds
    lines = ["# Benchmarks", "", "## Ours beside Flink and SDP", "", *describe(report), "",
             "### Targets", "",
             "Ratio: our median over the reference's median; per round: the same within each round.", "",
             "| step | target | ours | reference | ratio | per round | pass |", "|---|---|---|---|---|---|---|",
             *(target_row(t) for t in targets(report)), "",
             *([f"The {count_label(report.args['events'] * 10)} run failed:", "", "```",
                report.ten_x_failure.strip(), "```", ""] if report.ten_x_failure else []),
             "### Wall time, seconds", "", "| step | median | rounds |", "|---|---|---|", *time_rows(report), "",
             "### Peak memory, MiB", "",
             "The largest sum of the resident memory (RSS) of the process and all its children (polled every 0.2 s).",
             "", "| step | median | rounds |", "|---|---|---|", *memory_rows(report), ""]
    for title, pick in ((f"full build ({count_label(report.args['events'])} events)", lambda o: o.nodes_full),
                        ("+1% build", lambda o: o.nodes_more)):
        lines += [f"### Our dbt nodes, {title}: top 10 by median seconds", "", "| node | median s | rounds |",
                  "|---|---|---|", *node_rows(rounds, pick), ""]
    lines += ["### Correctness", ""]
    if rounds[0].flink:
        flinks = [r.flink for r in rounds if r.flink]
        lines.append(f"- Flink's final state equals our current rows: {', '.join(str(f.states_equal) for f in flinks)} "
                     f"({flinks[0].rows:,} rows in Flink; rows only in ours / only in Flink: "
                     f"{', '.join(f'{f.rows_only_ours}/{f.rows_only_flink}' for f in flinks)}).")
    if rounds[0].sdp:
        lines.append("- SDP's tables equal its plain-Python fold (its own check, initial and +1%): "
                     + ", ".join(str(r.sdp.verified) for r in rounds if r.sdp) + ".")
    return "\n".join(lines) + "\n"


def kept_sections(path: Path) -> str:
    """The sections of `path` that other scripts write, as they are."""
    if not path.exists():
        return ""
    blocks = re.findall(r"(?ms)^## .*?(?=^## |\Z)", path.read_text(encoding="utf-8"))
    return "".join("\n" + block.rstrip("\n") + "\n" for block in blocks if block.split("\n", 1)[0] in KEPT_SECTIONS)


def to_json(report: Report) -> str:
    data = asdict(report)
    data["targets"] = [dict(asdict(t), ratio=t.ratio) for t in targets(report)]
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------ main

def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peers", default="flink,sdp", help="comma-separated, of flink,sdp; empty for none")
    parser.add_argument("--ten-x", action="store_true", help="also land and build 10x the events and keys, once")
    parser.add_argument("--out", type=Path, default=BENCHMARKS)
    parser.add_argument("--json", type=Path, help=f"the figures as JSON (default: {RESULTS.relative_to(PROJECT)} "
                        "with the default --out, else beside --out)")
    args = parser.parse_args()
    if args.rounds < 1 or args.events < 100 or args.keys < 1:
        parser.error("--rounds and --keys must be at least 1, --events at least 100 (1% of them are added)")
    args.peers = [p for p in args.peers.split(",") if p]
    if unknown := set(args.peers) - set(NAMES):
        parser.error(f"unknown peers: {', '.join(sorted(unknown))}")
    if args.json is None:
        args.json = RESULTS if args.out.resolve() == BENCHMARKS else args.out.with_suffix(".json")
    return args


def main() -> int:
    args = parse_args()
    peers = ensure_peers(args.peers)
    report = Report(dt.date.today().isoformat(), {"events": args.events, "keys": args.keys, "rounds": args.rounds,
                    "peers": args.peers, "ten_x": args.ten_x}, machine(), versions(peers))
    with tempfile.TemporaryDirectory(prefix="cdc-bench-peers-") as tmp:
        workdir = Path(tmp)
        streams = prepare_streams(workdir, args.events, args.keys)
        report.rounds = [one_round(n, args, peers, streams, workdir) for n in range(1, args.rounds + 1)]
        if args.ten_x:
            ten_x = run_ten_x(args.events, args.keys, workdir)
            if isinstance(ten_x, str):
                report.ten_x_failure = ten_x
            else:
                report.ten_x = ten_x
    report.machine["load_1m_at_end"] = os.getloadavg()[0]
    text = render(report)
    args.out.write_text(text + kept_sections(args.out), encoding="utf-8")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(to_json(report), encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
