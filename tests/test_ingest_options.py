"""What `cdc ingest` and `cdc run` make of their arguments before Spark starts: the
subscription, the Kafka client options (flags and a properties file), that secrets are
never shown, the interval of `cdc run` and its line per cycle."""

from __future__ import annotations

from pathlib import Path

import pytest

from cdclake.cli import EXIT_USAGE, _subscription as subscription_of, main, parse_args
from cdclake.ingest import IngestError, Subscription, printable, read_client_config
from cdclake.lag import KafkaLag, PartitionLag
from cdclake.runner import Cycle, parse_interval


def test_a_client_properties_file_gives_the_kafka_options(tmp_path: Path):
    config = tmp_path / "client.properties"
    config.write_text("# SASL over TLS\nsecurity.protocol=SASL_SSL\nsasl.mechanism = SCRAM-SHA-512\n\n"
                      "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                      'username="u" password="p=q";\n! a comment too\nssl.truststore.location: /etc/ts.jks\n')
    assert read_client_config(config) == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": 'org.apache.kafka.common.security.scram.ScramLoginModule required '
                            'username="u" password="p=q";',
        "ssl.truststore.location": "/etc/ts.jks"}


def test_a_line_that_is_no_property_names_its_place(tmp_path: Path):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SSL\njust words\n")
    with pytest.raises(IngestError, match=r"client.properties:2: not a `key=value` line"):
        read_client_config(config)


def test_secrets_are_masked_and_the_rest_shown():
    shown = printable({"sasl.jaas.config": "... password=\"p\";", "ssl.keystore.password": "k",
                       "ssl.key.password": "k", "sasl.oauthbearer.token.endpoint.url": "https://idp",
                       "ssl.truststore.location": "/etc/ts.jks", "security.protocol": "SASL_SSL",
                       "basic.auth.user.info": "u:p", "sasl.client.callback.handler.class": "x"})
    assert shown["sasl.jaas.config"] == shown["ssl.keystore.password"] == shown["ssl.key.password"] == "*****"
    assert shown["sasl.oauthbearer.token.endpoint.url"] == "*****"
    assert shown["ssl.truststore.location"] == "/etc/ts.jks"
    assert shown["security.protocol"] == "SASL_SSL"


def test_flags_win_over_the_file_and_become_the_sources_options(tmp_path: Path):
    config = tmp_path / "client.properties"
    config.write_text("security.protocol=SSL\nclient.id=from-file\n")
    args = parse_args(["ingest", "--bootstrap-servers", "b1:9092,b2:9092", "--topics", "a, b,",
                       "--kafka-config", str(config), "--kafka-option", "kafka.client.id=from-flag",
                       "--max-offsets-per-batch", "1000", "--starting-offsets", "latest"])
    sub = subscription_of(args)
    assert sub.topics == ("a", "b")
    options = sub.source_options()
    assert options["kafka.bootstrap.servers"] == "b1:9092,b2:9092"
    assert options["kafka.client.id"] == "from-flag"
    assert options["kafka.security.protocol"] == "SSL"
    assert options["subscribe"] == "a,b" and "subscribePattern" not in options
    assert options["maxOffsetsPerTrigger"] == "1000"
    assert options["startingOffsets"] == "latest"
    assert options["failOnDataLoss"] == "true" and options["includeHeaders"] == "true"
    # Spark's admin client and consumers wait --timeout (default 30 s), as cdc's own does
    assert options["kafka.default.api.timeout.ms"] == options["kafka.request.timeout.ms"] == "30000"


def test_a_client_option_wins_over_the_timeout():
    args = parse_args(["ingest", "--bootstrap-servers", "b:9092", "--topics", "a", "--timeout", "5",
                       "--kafka-option", "request.timeout.ms=40000"])
    options = subscription_of(args).source_options()
    assert options["kafka.request.timeout.ms"] == "40000"
    assert options["kafka.default.api.timeout.ms"] == "5000"


def test_a_subscription_has_one_checkpoint_of_its_own():
    one = Subscription("b:9092", topics=("a", "b"))
    assert one.name == Subscription("other:9092", topics=("b", "a")).name  # the brokers may move
    assert one.name != Subscription("b:9092", topics=("a",)).name
    assert one.name != Subscription("b:9092", topic_pattern="a|b").name
    assert one.checkpoint().name == one.name


@pytest.mark.parametrize(("argv", "error"), [
    (["--topics", "a", "--topic-pattern", "a.*"], "not allowed with argument"),
    (["--topic-pattern", "a(["], "is not a regular expression"),
    (["--topics", "a", "--max-offsets-per-batch", "0"], "--max-offsets-per-batch must be at least 1"),
    (["--topics", "a", "--kafka-option", "linger.ms"], "--kafka-option 'linger.ms': give KEY=VALUE"),
    (["--topics", "a", "--kafka-option", "bootstrap.servers=x:1"], "with --bootstrap-servers"),
    (["--topics", "a", "--format", "nope"], "unknown format 'nope'"),
    (["--topics", "a", "--kafka-config", "/no/such/file"], "cannot read /no/such/file"),
    (["--topics", ","], "give the topics"),
])
def test_bad_arguments_are_usage_errors_before_spark_starts(argv, error, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    try:
        code = main(["ingest", "--bootstrap-servers", "127.0.0.1:1", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == EXIT_USAGE
    assert error in capsys.readouterr().err
    assert not (tmp_path / "metastore_db").exists()  # no Spark session was started


@pytest.mark.parametrize(("text", "seconds"), [("30s", 30), ("2m", 120), ("1h", 3600), ("45", 45), ("0.5s", 0.5)])
def test_run_intervals(text, seconds):
    assert parse_interval(text) == seconds


@pytest.mark.parametrize("text", ["0s", "1.5x", "soon", "1d", ""])
def test_a_bad_interval_is_a_usage_error(text, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CDC_HOME", str(tmp_path))
    code = main(["run", "--every", text, "--bootstrap-servers", "127.0.0.1:1", "--topics", "a"])
    assert code == EXIT_USAGE
    assert "give a time such as 30s, 2m or 1h" in capsys.readouterr().err


def test_a_cycle_is_one_line():
    lag = KafkaLag([PartitionLag("t", 0, 120, 100, None), PartitionLag("t", 1, 7, 7, None)], 12.4)
    assert Cycle(3, 1840, (31, 33), None, 1795, 2, True, 21.44, lag).line() == (
        "cycle 3: 1840 records (landing batches 31-33), 1795 changes, 2 rejects, build 21.4 s, "
        "lag 20 records, 12 s")
    down = Cycle(4, 0, None, "cannot list the topics of k:9092: TimeoutException: ...", 0, 0, None, 0.1, None)
    assert down.line() == ("cycle 4: ingest failed (cannot list the topics of k:9092: TimeoutException: ...), "
                           "0 changes, 0 rejects, nothing to build, lag unknown")
    assert "build FAILED after 3.0 s" in Cycle(5, 1, (40, 40), None, 0, 0, False, 3.0, lag).line()
    assert "1 records (landing batch 40)," in Cycle(5, 1, (40, 40), None, 0, 0, False, 3.0, lag).line()
