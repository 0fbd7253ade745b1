"""What the last whole, successful `cdc build` built and checked, kept in a file in bronze's
table folder, `_cdc_build_record.json` (so a lake landed afresh, its bronze dropped, starts
without it; Spark skips files whose names start with `_`):

* `checked_through_batch`: the last landing batch it built and checked. The data tests
  of the next `cdc build` check the batches after it (the environment variable
  CDC_CHECK_SINCE_BATCH, read by macro cdc_checked_batches). Every batch is checked by
  `cdc build --full-check`, `--full-refresh`, the first build of a lake and plain dbt.
* `built_project`: a digest of the project files it ran. While bronze has no batch
  after the checked one and the project is the same, `cdc build` has nothing to do and
  starts neither dbt nor Spark: it reads the record and the names of bronze's partition
  folders (`last_landed_folder`, `nothing_new`). Any dbt run of the project (`cdc dbt`, plain dbt: the plugin
  dbt_cdclake) forgets it first, since it may change tables. While it is the project of
  the next build too, that build leaves out the seeds and their data tests: they read no
  landed record, and the last build loaded and checked them from the same files.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

from cdclake import paths

SINCE_VARIABLE = "CDC_CHECK_SINCE_BATCH"
CHECKED = "checked_through_batch"
PROJECT = "built_project"
# what a build runs: the dbt project, the UDFs, the session settings
_PROJECT_PARTS = ("dbt_project.yml", "profiles/profiles.yml", "models", "macros", "seeds", "data-tests",
                  "udfs", "cdclake", "dbt_cdclake")
# dbt options that build part of the project: such a build records nothing
_SELECTING = ("-s", "--select", "-m", "--models", "--exclude", "--selector", "--resource-type",
              "--resource-types", "--exclude-resource-type", "--exclude-resource-types")


def _bronze_folder() -> Path:
    """Bronze's table folder (bronze.kafka_messages, a managed table of the warehouse)."""
    return paths.table_dir("bronze.kafka_messages")


def _record_file() -> Path:
    return _bronze_folder() / "_cdc_build_record.json"


def recorded() -> dict[str, str]:
    """What the last whole build recorded (one read per `cdc build`: up_to_date and
    check_scope take it); empty when nothing is recorded or the file is unreadable."""
    try:
        found = json.loads(_record_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


def _write(found: dict[str, str]) -> None:
    """Replace the record with `found`, atomically (a build killed meanwhile leaves the old one)."""
    path = _record_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(found, sort_keys=True), encoding="utf-8")
    partial.replace(path)


def _batch_folders() -> dict[int, str]:
    """Bronze's landing batch folders: batch id -> path (none while bronze has no folder)."""
    try:
        entries = list(os.scandir(_bronze_folder()))
    except OSError:
        return {}
    return {int(m[1]): entry.path for entry in entries if (m := paths.BATCH_FOLDER.fullmatch(entry.name))}


def last_landed_folder() -> int | None:
    """The highest landing batch among bronze's partition folders; None when it has none
    (bronze is empty: a batch is registered once its folder holds every file). At least
    bronze's last registered batch: a landing killed before it registered its batch can
    leave a folder of a higher one (the next landing removes it)."""
    return max(_batch_folders(), default=None)


def new_bytes(dbt_args: list[str], full_check: bool) -> int | None:
    """Without Spark: the size of bronze's files in the landing batches after the last
    checked one, which a plain `cdc build` (no dbt arguments, no --full-check) takes on
    after a recorded build; None for any other build (the first, a full check, a
    selection or a full refresh), which may read every batch."""
    since = _last_checked(recorded())
    if dbt_args or full_check or since is None:
        return None
    return landed_bytes(after=since)


def _landed_files(after: int = -1) -> Iterator[os.DirEntry[str]]:
    """The files in bronze's landing batch folders after `after` (all of them by default).
    A folder that is gone by the time it is read has none: the next landing removes the
    folder of a landing killed before it registered its batch (last_landed_folder)."""
    for batch, folder in _batch_folders().items():
        if batch <= after:
            continue
        try:
            with os.scandir(folder) as entries:
                files = [entry for entry in entries if entry.is_file()]
        except OSError:
            continue
        yield from files


def landed_bytes(after: int = -1) -> int:
    """Without Spark: the size of bronze's files in its landing batches after `after`
    (all of them by default)."""
    return sum(entry.stat().st_size for entry in _landed_files(after))


def landed_messages(stop_above: int) -> int:
    """Without Spark: the messages (rows) in bronze's Parquet files, read from their footers
    (about 0.1 ms a file: 193 files in 15 ms), counted until the count is above `stop_above`
    (then a count above it). A file that cannot be read as Parquet counts none: a landing
    that was killed may leave one, which the next landing removes (cdclake.landing)."""
    import pyarrow.parquet as pq

    count = 0
    for entry in _landed_files():
        if entry.name.endswith(".parquet"):
            with contextlib.suppress(OSError, ValueError):
                count += pq.read_metadata(entry.path).num_rows
            if count > stop_above:
                return count
    return count


def nothing_new(last_folder: int, dbt_args: list[str], full_check: bool) -> bool:
    """Without Spark: a plain `cdc build` (no dbt arguments, no --full-check) has nothing
    to do, the last whole build having built and checked `last_folder` (last_landed_folder)
    with this project (else Spark and dbt decide)."""
    return not dbt_args and not full_check and up_to_date(recorded(), last_folder, project_digest())


def _last_checked(found: dict[str, str]) -> int | None:
    """The last landing batch a whole, successful `cdc build` checked; None when unknown."""
    text = found.get(CHECKED, "")
    return int(text) if text.isdigit() else None


def project_digest() -> str:
    """SHA-256 of the path and content of every file a build runs."""
    digest = hashlib.sha256()
    for part in _PROJECT_PARTS:
        root = paths.PROJECT_DIR / part
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file()
                                                       and "__pycache__" not in p.parts)
        for path in files:
            digest.update(str(path.relative_to(paths.PROJECT_DIR)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def is_whole_build(dbt_args: list[str]) -> bool:
    return not any(arg.split("=", 1)[0] in _SELECTING for arg in dbt_args)


def up_to_date(found: dict[str, str], last_batch: int, project: str) -> bool:
    """The last whole build (`found`: recorded) built and checked `last_batch` (bronze's
    last) with `project` (project_digest)."""
    return found.get(CHECKED) == str(last_batch) and built_with(found, project)


def built_with(found: dict[str, str], project: str) -> bool:
    """The last whole, successful build (`found`: recorded) ran `project` (project_digest),
    seeds and data tests included, and nothing ran dbt since."""
    return found.get(PROJECT) == project


def check_scope(found: dict[str, str], dbt_args: list[str], full_check: bool) -> int | None:
    """The bound of this build's checks (batches after it; `found`: recorded), or None to
    check every batch; sets or clears CDC_CHECK_SINCE_BATCH to match."""
    since = None if full_check or "--full-refresh" in dbt_args else _last_checked(found)
    if since is None:
        os.environ.pop(SINCE_VARIABLE, None)
    else:
        os.environ[SINCE_VARIABLE] = str(since)
    return since


def record(last_batch: int, project: str) -> None:
    """Note that a whole build of `project` (project_digest) built and checked every batch
    up to `last_batch`."""
    _write({CHECKED: str(int(last_batch)), PROJECT: project})


def forget_project() -> None:
    """Before any dbt run: the tables may change, so the next `cdc build` runs (the batch
    it checked stays: the next build's data tests start after it)."""
    found = recorded()
    if PROJECT in found:
        del found[PROJECT]
        _write(found)
