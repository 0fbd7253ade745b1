"""The docs site (issue 5): every model, column, seed and macro of the project is
described; the site `cdc docs` builds renders the project's models in headless Chromium;
`cdc docs --serve` serves it on 127.0.0.1. The site is that of the examples lake (one
build serves this folder, tests/examples/conftest.py)."""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import signal
import socketserver
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from cdclake import paths
from cdclake.cli import main as cdc_main
from ports import free_port

PROJECT = "cdc_lakehouse"
CHROMIUM = Path("/usr/bin/chromium")
# a rendering takes seconds; a page that never settles is a failure, not a hang
CHROMIUM_SECONDS = 120
MODEL_PAGE = "index.html#!/model/model.cdc_lakehouse.cdc_current_rows"
# `{% macro name(args) %}` and `{% test name(args) %}` definitions in the project's files
MACRO_DEFINITION = re.compile(r"\{%-?\s*(macro|test)\s+(\w+)\s*\((.*?)\)\s*-?%\}", re.S)


@pytest.fixture(scope="module")
def site(examples) -> Path:
    """The built docs site: `cdc docs` over the examples lake."""
    assert cdc_main(["docs"]) == 0  # `cdc docs`: dbt docs generate in this process
    return Path(os.environ["DBT_TARGET_PATH"])


def _load(site: Path, name: str) -> dict[str, Any]:
    return json.loads((site / name).read_text(encoding="utf-8"))


def _blank(text: str | None) -> bool:
    return not (text or "").strip()


def _arguments(signature: str) -> list[str]:
    """Argument names of a macro signature such as `v, path='$.a'`."""
    return [part.split("=", 1)[0].strip() for part in signature.split(",") if part.strip()]


# `{% materialization name, adapter='spark' %}`: dbt names its macro materialization_<name>_<adapter>
MATERIALIZATION_DEFINITION = re.compile(r"\{%-?\s*materialization\s+(\w+)\s*,\s*(?:adapter\s*=\s*)?'?(\w+)'?")


def _defined_macros() -> dict[str, list[str]]:
    """Macro name -> argument names, for every macro, materialization and generic test in
    the project's files."""
    found: dict[str, list[str]] = {}
    for folder in ("macros", "data-tests"):
        for sql in sorted((paths.PROJECT_DIR / folder).rglob("*.sql")):
            text = sql.read_text(encoding="utf-8")
            for kind, name, signature in MACRO_DEFINITION.findall(text):
                # dbt names the macro of a generic test `test_<name>`
                found[f"test_{name}" if kind == "test" else name] = _arguments(signature)
            for name, adapter in MATERIALIZATION_DEFINITION.findall(text):
                found[f"materialization_{name}_{adapter}"] = []
    return found


def undocumented(manifest: dict[str, Any], catalog: dict[str, Any]) -> list[str]:
    """Everything of the project the docs site shows without a description, and
    documented macro arguments or columns that do not exist."""
    missing: list[str] = []
    for uid, node in manifest["nodes"].items():
        if node["package_name"] == PROJECT and node["resource_type"] in ("model", "seed", "snapshot"):
            if _blank(node["description"]):
                missing.append(f"{uid}: no description")
            missing += [f"{uid}.{name}: no description" for name, column in node["columns"].items()
                        if _blank(column["description"])]
    for uid, source in manifest["sources"].items():
        if source["package_name"] == PROJECT and _blank(source["description"]):
            missing.append(f"{uid}: no description")
    for uid, macro in manifest["macros"].items():
        if macro["package_name"] != PROJECT:
            continue
        if _blank(macro["description"]):
            missing.append(f"{uid}: no description")
        missing += [f"{uid}({argument['name']}): no description" for argument in macro["arguments"]
                    if _blank(argument["description"])]
    # the columns the tables really have (catalog) against the documented ones (manifest)
    for kind, entries in (("nodes", catalog["nodes"]), ("sources", catalog["sources"])):
        for uid, entry in entries.items():
            if uid.split(".")[1] != PROJECT:
                continue
            documented = {name.lower(): column for name, column in manifest[kind][uid]["columns"].items()}
            actual = {name.lower() for name in entry["columns"]}
            missing += [f"{uid}.{name}: column not described" for name in sorted(actual)
                        if _blank(documented.get(name, {}).get("description"))]
            missing += [f"{uid}.{name}: described but the table has no such column"
                        for name in sorted(set(documented) - actual)]
    return missing


def test_every_model_column_seed_and_macro_is_described(site):
    manifest, catalog = _load(site, "manifest.json"), _load(site, "catalog.json")
    missing = undocumented(manifest, catalog)
    assert not missing, f"{len(missing)} gaps in the docs site:\n" + "\n".join(missing)

    # not vacuous: the tables were in the catalog, and every macro of the files was checked
    tables = {uid for uid in catalog["nodes"] if uid.split(".")[1] == PROJECT}
    assert {"model.cdc_lakehouse.cdc_current_rows", "model.cdc_lakehouse.cdc_changes",
            "seed.cdc_lakehouse.topic_formats"} <= tables
    assert "source.cdc_lakehouse.bronze.kafka_messages" in catalog["sources"]
    macros = {m["name"]: m for m in manifest["macros"].values() if m["package_name"] == PROJECT}
    defined = _defined_macros()
    assert set(macros) == set(defined)
    wrong_arguments = [f"{name}: documents {[a['name'] for a in macros[name]['arguments']]}, defines {args}"
                       for name, args in sorted(defined.items())
                       if [a["name"] for a in macros[name]["arguments"]] != args]
    assert not wrong_arguments, "macro arguments in macros/_macros.yml:\n" + "\n".join(wrong_arguments)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # `format`: the base class's name
        pass


def _chromium(*args: str) -> str:
    """Run headless Chromium; its stdout. Fails when it is missing or does not finish."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make test` (its set-up installs the Debian packages "
                    "chromium and chromium-driver) or `make test-packages`")
    profile = Path(os.environ["CDC_HOME"]) / "chromium-profile"
    browser = subprocess.Popen(
        [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=15000", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = browser.communicate(timeout=CHROMIUM_SECONDS)
    except subprocess.TimeoutExpired:
        # a page that never settles (the bare shell without manifest.json does that) keeps
        # Chromium running: end it and its helper processes
        os.killpg(browser.pid, signal.SIGKILL)
        browser.communicate()
        pytest.fail(f"chromium {' '.join(args)} did not finish in {CHROMIUM_SECONDS} s: the page never settled")
    assert browser.returncode == 0, f"chromium exited {browser.returncode}:\n{err[-3000:]}"
    return out


def test_the_site_renders_the_models_in_headless_chromium(site):
    manifest = _load(site, "manifest.json")
    shell = (site / "index.html").read_text(encoding="utf-8")
    # index.html alone is the blank shell: the names only appear once its script has
    # loaded manifest.json and catalog.json and rendered them
    assert "cdc_current_rows" not in shell

    handler = functools.partial(_QuietHandler, directory=str(site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/{MODEL_PAGE}"
        try:
            dom = _chromium("--dump-dom", url)
            screenshot = Path(os.environ["CDC_HOME"]) / "docs-site.png"
            _chromium(f"--screenshot={screenshot}", "--window-size=1400,1000", url)
        finally:
            server.shutdown()

    # every model and seed of the project is in the navigation tree
    nodes = [uid for uid, node in manifest["nodes"].items()
             if node["package_name"] == PROJECT and node["resource_type"] in ("model", "seed")]
    absent = [uid for uid in nodes if f'data-nav-unique-id="{uid}"' not in dom]
    assert len(nodes) > 20 and not absent, f"not in the rendered navigation: {absent}"
    # the model page shows the model, its description and its columns
    current_rows = manifest["nodes"]["model.cdc_lakehouse.cdc_current_rows"]
    assert current_rows["description"].split(":")[0] in dom  # "The current state of every source table"
    assert "last_landing_batch_id" in dom
    assert "cdc_changes" in dom
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    print(f"docs site screenshot: {screenshot}")


def test_cdc_docs_serve_serves_the_site_on_localhost(site, monkeypatch):
    # `dbt docs serve` keeps no handle on its server: the servers this process creates are
    # noted, so the test can stop it (not gc.get_objects() while dbt works in another
    # thread: a tuple that dbt is still building would then be referenced twice, and
    # CPython's tuple resize fails with SystemError "bad argument to internal function")
    started: list[socketserver.TCPServer] = []

    class NotedServer(socketserver.TCPServer):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(socketserver, "TCPServer", NotedServer)
    port = free_port()
    outcome: dict[str, int] = {}
    working_dir = os.getcwd()  # dbt docs serve changes into the target folder
    serving = threading.Thread(
        target=lambda: outcome.update(rc=cdc_main(["docs", "--serve", "--port", str(port)])), daemon=True)
    serving.start()
    server = None
    try:
        deadline = time.monotonic() + 300
        while server is None and serving.is_alive() and time.monotonic() < deadline:
            time.sleep(0.5)
            server = next((s for s in started if s.server_address[1] == port), None)
        assert server is not None, f"cdc docs --serve is not serving on port {port} ({outcome})"
        assert server.server_address[0] == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=30) as page:
            assert page.status == 200
            assert page.read() == (site / "index.html").read_bytes()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/manifest.json", timeout=30) as served:
            assert "model.cdc_lakehouse.cdc_current_rows" in json.loads(served.read())["nodes"]
    finally:
        if server is not None:
            server.shutdown()
        serving.join(timeout=60)
        os.chdir(working_dir)
    assert outcome == {"rc": 0}
