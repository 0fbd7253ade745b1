"""Throw-away MariaDB and PostgreSQL servers for tests.

Each context manager starts a private server process on a free port of 127.0.0.1 with its
data under the caller's tmp_dir (never the system service, never a system socket), waits
until it accepts connections, and stops it afterwards (killing it when it does not stop).
The servers are configured for change capture: MariaDB writes a ROW binlog with full
images and full row metadata, PostgreSQL runs with wal_level=logical.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pymysql

from ports import free_port

MARIADBD = Path("/usr/sbin/mariadbd")
MARIADB_INSTALL_DB = Path("/usr/bin/mariadb-install-db")
PG_BIN = Path("/usr/lib/postgresql/15/bin")
# the OS user PostgreSQL runs as when we are root (postgres refuses to run as root);
# Debian's postgresql package creates it
PG_OS_USER = "postgres"
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


class ServerUnavailable(RuntimeError):
    """A server binary is missing or the server did not come up."""


def _require(binary: Path, package: str) -> None:
    if not binary.exists():
        raise ServerUnavailable(
            f"{binary} not found: install the Debian package '{package}' "
            f"(`make test-packages` installs it with MariaDB, PostgreSQL 15 and Chromium)"
        )


def _log_tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _wait_until_up(proc: subprocess.Popen[bytes], probe: Callable[[], Any], log: Path) -> None:
    """Poll `probe` (a connection attempt) until it succeeds; fail early, with the
    server's log, when the process dies or the time runs out."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        if proc.poll() is not None:
            raise ServerUnavailable(f"server exited with {proc.returncode}:\n{_log_tail(log)}")
        try:
            probe().close()
            return
        except Exception as exc:  # any connection error means "not yet"
            if time.monotonic() > deadline:
                raise ServerUnavailable(f"server not up after {START_TIMEOUT_S}s ({exc}):\n{_log_tail(log)}") from exc
            time.sleep(0.1)


def _stop(proc: subprocess.Popen[bytes], sig: int) -> None:
    """Ask the server to shut down with `sig`; kill it if it does not within the timeout."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(STOP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _run(cmd: list[str], log: Path, **kwargs: Any) -> None:
    with log.open("ab") as out:
        rc = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False, **kwargs).returncode
    if rc != 0:
        raise ServerUnavailable(f"{cmd[0]} failed with {rc}:\n{_log_tail(log)}")


# ---------------------------------------------------------------- MariaDB


@dataclass(frozen=True)
class MariaDBServer:
    host: str
    port: int
    user: str
    password: str
    version: str = ""

    def connection_settings(self) -> dict[str, Any]:
        """PyMySQL keyword arguments (also what pymysqlreplication takes)."""
        return {"host": self.host, "port": self.port, "user": self.user, "password": self.password}

    def connect(self, **kwargs: Any) -> pymysql.connections.Connection:
        """A PyMySQL connection, utf8mb4, autocommit, session time zone UTC."""
        return pymysql.connect(
            **self.connection_settings(),
            charset="utf8mb4",
            autocommit=True,
            init_command="SET time_zone = '+00:00'",
            **kwargs,
        )


def _mariadb_init_sql(user: str, password: str) -> str:
    """Run by the server at start (--init-file), outside the binlog: the TCP user the
    tests and the binlog reader use. ALL PRIVILEGES includes the replication rights
    (REPLICATION SLAVE, BINLOG MONITOR = the old REPLICATION CLIENT)."""
    return (
        "SET SESSION sql_log_bin = 0;\n"
        f"CREATE USER IF NOT EXISTS '{user}'@'127.0.0.1' IDENTIFIED BY '{password}';\n"
        f"GRANT ALL PRIVILEGES ON *.* TO '{user}'@'127.0.0.1' WITH GRANT OPTION;\n"
    )


def _mariadb_args(base: Path, port: int) -> list[str]:
    args = [
        str(MARIADBD),
        "--no-defaults",  # not /etc/mysql: nothing of the system service
        f"--datadir={base / 'data'}",
        f"--socket={base / 'mysqld.sock'}",
        f"--pid-file={base / 'mysqld.pid'}",
        f"--log-error={base / 'error.log'}",
        f"--init-file={base / 'init.sql'}",
        f"--port={port}",
        "--bind-address=127.0.0.1",
        "--skip-name-resolve",
        "--log-bin=mysql-bin",
        "--binlog-format=ROW",
        "--binlog-row-image=FULL",
        "--binlog-row-metadata=FULL",
        "--server-id=1",
        "--gtid-domain-id=0",
        "--default-time-zone=+00:00",
        "--character-set-server=utf8mb4",
        "--explicit-defaults-for-timestamp=ON",
        # a test server: durability does not matter, speed does
        "--innodb-buffer-pool-size=64M",
        "--innodb-log-file-size=16M",
        "--innodb-flush-log-at-trx-commit=0",
        "--sync-binlog=0",
        "--skip-innodb-doublewrite",
    ]
    if os.geteuid() == 0:
        args.append("--user=root")
    return args


@contextlib.contextmanager
def mariadb_server(tmp_dir: Path | str) -> Iterator[MariaDBServer]:
    """A private mariadbd with a ROW binlog (FULL images, FULL metadata), time zone UTC,
    and a TCP user with all rights, replication included."""
    _require(MARIADBD, "mariadb-server")
    _require(MARIADB_INSTALL_DB, "mariadb-server")
    Path(tmp_dir).mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="mariadb-", dir=tmp_dir))
    log = base / "error.log"
    install = [str(MARIADB_INSTALL_DB), "--no-defaults", f"--datadir={base / 'data'}",
               "--auth-root-authentication-method=socket", "--skip-test-db", "--skip-name-resolve"]
    if os.geteuid() == 0:
        install.append("--user=root")
    _run(install, base / "install.log")
    server = MariaDBServer("127.0.0.1", free_port(), "cdc", "cdc-test-pw")
    (base / "init.sql").write_text(_mariadb_init_sql(server.user, server.password))
    proc = subprocess.Popen(_mariadb_args(base, server.port), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait_until_up(proc, server.connect, log)
        with contextlib.closing(server.connect()) as conn, conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            version = cur.fetchone()[0]
        yield MariaDBServer(server.host, server.port, server.user, server.password, version)
    finally:
        _stop(proc, signal.SIGTERM)


# ---------------------------------------------------------------- PostgreSQL


@dataclass(frozen=True)
class PostgresServer:
    host: str
    port: int
    user: str
    password: str  # "": the server trusts TCP connections from 127.0.0.1 (a test server)
    dbname: str = "postgres"
    version: str = ""

    def conninfo(self) -> str:
        return f"host={self.host} port={self.port} user={self.user} dbname={self.dbname}"

    def connect(self, **kwargs: Any) -> psycopg.Connection[Any]:
        """A psycopg 3 connection, autocommit, session time zone UTC."""
        return psycopg.connect(self.conninfo(), autocommit=True, options="-c TimeZone=UTC", **kwargs)


def _pg_os_user() -> pwd.struct_passwd:
    """The OS user the server runs as: ourselves, or when we are root (PostgreSQL refuses
    to run as root) the 'postgres' user, created when the package did not."""
    if os.geteuid() != 0:
        return pwd.getpwuid(os.geteuid())
    try:
        return pwd.getpwnam(PG_OS_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--user-group", "--no-create-home",
                        "--shell", "/usr/sbin/nologin", PG_OS_USER], check=True)
        return pwd.getpwnam(PG_OS_USER)


def _searchable_by(path: Path, user: pwd.struct_passwd) -> bool:
    """Whether `user` may reach `path` (search right on every ancestor), e.g. not through
    pytest's /tmp/pytest-of-root, which is mode 0700."""
    groups = set(os.getgrouplist(user.pw_name, user.pw_gid))
    resolved = path.resolve()
    for directory in (resolved, *resolved.parents):
        st = directory.stat()
        if st.st_uid == user.pw_uid:
            allowed = st.st_mode & 0o100
        elif st.st_gid in groups:
            allowed = st.st_mode & 0o010
        else:
            allowed = st.st_mode & 0o001
        if not allowed:
            return False
    return True


@contextlib.contextmanager
def _pg_data_dir(tmp_dir: Path, user: pwd.struct_passwd) -> Iterator[Path]:
    """The data directory, owned by the server's user: under tmp_dir when that user can
    reach it, else (root running under a private tmp dir) a private directory in the
    system temp dir, removed afterwards."""
    if _searchable_by(tmp_dir, user):
        data = Path(tempfile.mkdtemp(prefix="pgdata-", dir=tmp_dir))
        os.chown(data, user.pw_uid, user.pw_gid)
        yield data
        return
    outside = Path(tempfile.mkdtemp(prefix="realdb-pgdata-"))
    os.chown(outside, user.pw_uid, user.pw_gid)
    try:
        yield outside
    finally:
        shutil.rmtree(outside, ignore_errors=True)


def _as_user(user: pwd.struct_passwd) -> dict[str, Any]:
    """subprocess arguments that run the child as `user` (no-ops when we are that user)."""
    if os.geteuid() == user.pw_uid:
        return {}
    return {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": [], "cwd": "/"}


@contextlib.contextmanager
def postgres_server(tmp_dir: Path | str) -> Iterator[PostgresServer]:
    """A private PostgreSQL 15 with wal_level=logical, time zone UTC, TCP on 127.0.0.1
    only (no Unix socket, so nothing in /var/run/postgresql)."""
    for name in ("initdb", "postgres"):
        _require(PG_BIN / name, "postgresql")
    Path(tmp_dir).mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="postgres-", dir=tmp_dir))
    log = base / "postgres.log"
    user = _pg_os_user()
    server = PostgresServer("127.0.0.1", free_port(), "cdc", "")
    with _pg_data_dir(Path(tmp_dir), user) as data:
        # the child writes to file descriptors we opened, so the log needs no access rights
        _run([str(PG_BIN / "initdb"), "-D", str(data), "-U", server.user, "--auth=trust",
              "--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
             base / "initdb.log", **_as_user(user))
        settings = {
            "listen_addresses": "127.0.0.1", "port": str(server.port),
            "unix_socket_directories": "", "wal_level": "logical",
            "max_replication_slots": "4", "max_wal_senders": "4", "timezone": "UTC",
            # fsync off makes commits cheap; synchronous_commit stays on, because logical
            # decoding reads only WAL that is flushed
            "fsync": "off", "full_page_writes": "off",
        }
        cmd = [str(PG_BIN / "postgres"), "-D", str(data)]
        for key, value in settings.items():
            cmd += ["-c", f"{key}={value}"]
        with log.open("ab") as out:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True, **_as_user(user))
        try:
            _wait_until_up(proc, server.connect, log)
            with server.connect() as conn:
                version = conn.execute("SHOW server_version").fetchone()[0]
            yield PostgresServer(server.host, server.port, server.user, server.password,
                                 server.dbname, version)
        finally:
            _stop(proc, signal.SIGINT)  # "fast" shutdown
