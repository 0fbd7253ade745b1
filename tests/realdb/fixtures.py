"""One call per database for tests: start the server, run the seeded workload, capture
the change log, stop the server. Call them from a session- or module-scoped fixture:
each takes a few seconds."""

from __future__ import annotations

from pathlib import Path

from realdb import capture_mariadb, capture_postgres
from realdb.model import Capture
from realdb.servers import mariadb_server, postgres_server
from realdb.workload import mariadb_workload, postgres_workload


def capture_mariadb_workload(tmp_dir: Path | str, seed: int = 1, scale: float = 1.0) -> Capture:
    with mariadb_server(tmp_dir) as server:
        return capture_mariadb.capture(server, mariadb_workload(seed, scale))


def capture_postgres_workload(tmp_dir: Path | str, seed: int = 1) -> Capture:
    with postgres_server(tmp_dir) as server:
        return capture_postgres.capture(server, postgres_workload(seed))
