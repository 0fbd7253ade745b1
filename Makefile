# One entry point for users and CI. Every target creates the virtualenv and
# installs the pinned dependencies itself, so a fresh clone needs only
# python3.11, a Java 17 JDK, Maven and make.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JARS := $(VENV)/share/cdc-lakehouse/jars
BROKER_JARS := $(VENV)/share/cdc-lakehouse/kafka-broker
PLUGIN_SOURCES := $(wildcard jvm/src/main/java/io/github/cdclakehouse/*.java)
# the name cdclake/jars.py looks for
PLUGIN_JAR := cdc-lakehouse-spark-plugin.jar
# the installer of the Python packages (pinned like them), and pip's command and options
UV := uv==0.13.9
PIP := $(BIN)/python -m pip install --quiet --disable-pip-version-check

.PHONY: setup demo test test-packages test-kafka lint docs clean

$(STAMP): requirements.lock pyproject.toml pom.xml $(PLUGIN_SOURCES)
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "error: $(PYTHON) not found (Python 3.11 is required)"; exit 1; }
	@command -v java >/dev/null 2>&1 || { echo "error: java not found (Java 17 is required by Spark)"; exit 1; }
	@command -v mvn >/dev/null 2>&1 || { echo "error: mvn not found (Maven fetches the JVM jars of pom.xml)"; exit 1; }
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	# Maven fetches the JVM jars of pom.xml (Delta Lake, Spark's Kafka source) into the
	# virtualenv while the Python packages install: both wait on downloads, 38 s each with
	# nothing cached. Every Spark session puts the jars on its class path (cdclake/jars.py);
	# nothing is fetched at run time. uv installs the pinned packages (pip took 87 s); it
	# trusts the system's certificates, as pip does here (PIP_CERT), but reads none of pip's
	# settings (an index mirror in pip.conf): where it fails, pip installs them. The project
	# installs in compat mode, which puts its folder on sys.path: dbt finds its plugin
	# dbt_cdclake there (it scans sys.path for dbt_* modules, which the default editable
	# finder hides)
	rm -rf $(JARS)
	mvn -q -B dependency:copy-dependencies -Dcdc.jars=$(abspath $(JARS)) & maven=$$!; \
	$(PIP) $(UV) && \
	{ UV_NATIVE_TLS=1 $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python -r requirements.lock || \
	  { echo "uv could not install requirements.lock (it reads no pip configuration): installing it with pip"; \
	    $(PIP) -r requirements.lock; }; } && \
	$(PIP) --no-deps --config-settings editable_mode=compat -e .; python=$$?; \
	wait $$maven; maven=$$?; \
	[ $$maven -eq 0 ] || echo "error: Maven could not fetch the jars of pom.xml (exit $$maven)"; \
	[ $$python -eq 0 ] && [ $$maven -eq 0 ]
	# the project's Spark plugin (jvm/), compiled against pyspark's own jars into the same folder
	@command -v javac >/dev/null 2>&1 || { echo "error: javac not found (a Java 17 JDK compiles the plugin in jvm/)"; exit 1; }
	@classes=$$(mktemp -d) && spark_jars=$$($(BIN)/python -c "import pyspark, os; print(os.path.join(os.path.dirname(pyspark.__file__), 'jars'))") && \
		javac --release 17 -nowarn -d $$classes -cp "$$spark_jars/*" $(PLUGIN_SOURCES) && \
		jar cf $(JARS)/$(PLUGIN_JAR) -C $$classes . && rm -rf $$classes
	# Spark's classes in a class-data-sharing archive, from a training build of a sample:
	# every cdc process starts about 5 s faster, a cold build 9% (cdclake/class_archive.py)
	$(BIN)/python -m cdclake.class_archive
	@touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/cdc demo

# The Debian packages of the tests, installed once when missing (with sudo unless root), in
# one apt-get: Chromium for the docs-site test (tests/examples/test_docs_site.py opens the
# built site in headless Chromium), MariaDB and PostgreSQL 15 for the real-database tests
# (tests/realdb, tests/test_realdb_capture.py start private servers from the packages'
# binaries, never the system services). `make demo` needs none of them.
CHROMIUM := /usr/bin/chromium
MARIADBD := /usr/sbin/mariadbd
POSTGRES := /usr/lib/postgresql/15/bin/postgres
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

test-packages:
	@missing=""; \
	test -x $(CHROMIUM) || missing="chromium chromium-driver"; \
	test -x $(MARIADBD) || missing="$$missing mariadb-server"; \
	test -x $(POSTGRES) || missing="$$missing postgresql"; \
	[ -z "$$missing" ] || { \
		command -v apt-get >/dev/null 2>&1 || { echo "error: no apt-get to install$$missing: install Chromium, MariaDB and PostgreSQL 15"; exit 1; }; \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends $$missing; }

# sqlfluff over the models and macros (.sqlfluff, README "Edit a model"; in two processes:
# 32 s on 2 cores) but the decoders' one-line staging models (.sqlfluffignore), and
# over the decoders as rendered into those models (lint/rendered_staging.py), then ruff over
# the Python (cdclake, udfs, dbt_cdclake, tests, bench) and mypy over the product's
# (cdclake, udfs, dbt_cdclake); paths and rules in pyproject.toml, README "Edit the
# Python". Any finding fails the target.
lint: $(STAMP)
	$(BIN)/sqlfluff lint --processes 2 models macros
	$(BIN)/python lint/rendered_staging.py
	$(BIN)/ruff check
	$(BIN)/mypy

# The tests of `cdc ingest` (tests/test_kafka_ingest.py) start a Kafka broker of their own:
# its jars (tests/kafka/pom.xml) into the virtualenv, with Maven, once.
$(BROKER_JARS)/.fetched: tests/kafka/pom.xml
	rm -rf $(BROKER_JARS)
	mvn -q -B -f tests/kafka/pom.xml dependency:copy-dependencies -Dbroker.jars=$(abspath $(BROKER_JARS))
	@touch $@

test-kafka: $(BROKER_JARS)/.fetched

# The lint runs beside the tests, at the lowest priority. Alone it takes 32 s and 62 CPU-s:
# beside the tests it takes the cores they leave idle (one idles while Spark plans a query
# or dbt parses), and adds at most its CPU time shared over both cores (about 30 s) when
# they leave none; after the tests it would add its whole 32 s. Its report comes after the
# tests' summary, and a lint finding fails the target as a failed test does. The setup, the
# packages and the broker's jars go at once: on a fresh machine apt-get and Maven download
# while the setup keeps the cores busy (each one's output comes whole). With an empty Maven
# repository, the two Maven fetches one after the other took 74 s, at once 37 s.
test:
	@$(MAKE) --no-print-directory -j3 --output-sync=target $(STAMP) test-packages test-kafka
	@log=$$(mktemp); nice -n 19 $(MAKE) --no-print-directory lint >$$log 2>&1 & lint=$$!; \
	$(BIN)/python -m pytest tests $(PYTEST_ARGS); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests selected"; rc=0; fi; \
	wait $$lint; lint_rc=$$?; echo "== make lint (run beside the tests)"; cat $$log; rm -f $$log; \
	if [ $$lint_rc -ne 0 ]; then echo "error: make lint failed (exit $$lint_rc)"; exit $$lint_rc; fi; exit $$rc

docs: $(STAMP)
	$(BIN)/cdc docs

clean:
	rm -rf .cdc target logs dbt_packages
