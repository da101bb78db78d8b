"""No Kafka counterpart (Kafka tests its tools in TopicCommandWithAdminClientTest, ConsumerGroupCommandTest,
ConsoleConsumerTest, ConfigCommandTest): each of kafkalite's command-line tools run end to end, as a user
runs it (``bin/<tool>``), against a broker started from server.properties. Expected lines are written
out here in Kafka's formats (TopicCommand.printDescription, ConsumerGroupCommand.printOffsets,
DefaultMessageFormatter, ConfigCommand.describeResourceConfig, ConsumerPerformance.printHeader)."""
from __future__ import annotations

import re

import pytest

from harness import run_tool as run

@pytest.fixture
def topic(broker, unique_topic):
    out = run("kafka-topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", unique_topic,
              "--partitions", "3", "--replication-factor", "1", "--config", "cleanup.policy=compact")
    assert out.stdout.splitlines()[-1] == f"Created topic {unique_topic}."
    return unique_topic


def produce(broker, topic: str, lines: list[str]) -> None:
    run("kafka-console-producer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
        "--property", "parse.key=true", "--property", "key.separator=:", stdin="".join(l + "\n" for l in lines))


def test_kafka_topics_create_list_describe_alter_delete(broker, topic):
    b = broker.bootstrap
    assert topic in run("kafka-topics", "--bootstrap-server", b, "--list").stdout.splitlines()
    lines = run("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic).stdout.splitlines()
    # the broker has DescribeTopicPartitions: Kafka 3.7's lines (TopicId, Elr, LastKnownElr)
    head = re.fullmatch(rf"Topic: {topic}\tTopicId: [A-Za-z0-9_-]{{22}}\tPartitionCount: 3\tReplicationFactor: 1\t"
                        rf"Configs: (.*)", lines[0])
    assert head, lines[0]
    assert "cleanup.policy=compact" in head.group(1).split(",")
    assert lines[1:] == [f"\tTopic: {topic}\tPartition: {p}\tLeader: 0\tReplicas: 0\tIsr: 0\tElr: \tLastKnownElr: "
                         for p in range(3)]
    paged = run("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic,
                "--partition-size-limit-per-response", "1").stdout.splitlines()
    assert paged == lines                                   # three pages of one partition, the same answer

    again = run("kafka-topics", "--bootstrap-server", b, "--create", "--topic", topic, "--partitions", "1",
                check=False)
    assert again.returncode == 1
    assert again.stdout.strip() == f"Error while executing topic command : Topic {topic} already exists"

    run("kafka-topics", "--bootstrap-server", b, "--alter", "--topic", topic, "--partitions", "5")
    lines = run("kafka-topics", "--bootstrap-server", b, "--describe", "--topic", topic).stdout.splitlines()
    assert "PartitionCount: 5" in lines[0] and len(lines) == 6

    run("kafka-topics", "--bootstrap-server", b, "--delete", "--topic", topic)
    from harness import wait_until
    wait_until(lambda: topic not in run("kafka-topics", "--bootstrap-server", b, "--list").stdout.splitlines(),
               timeout=20, message="topic deleted")


def test_console_producer_and_consumer_with_keys_and_properties(broker, topic):
    produce(broker, topic, ["k1:v1", "k2:v2", "k3:v3", "k1:v4"])
    out = run("kafka-console-consumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
              "--from-beginning", "--max-messages", "4", "--property", "print.key=true",
              "--property", "key.separator=:", "--property", "print.partition=true",
              "--property", "print.offset=true", "--property", "print.headers=true")
    assert out.stderr.splitlines()[-1] == "Processed a total of 4 messages"
    rows = out.stdout.splitlines()
    parsed = [re.fullmatch(r"Partition:(\d+):Offset:(\d+):NO_HEADERS:(k\d):(v\d)", r) for r in rows]
    assert all(parsed), rows
    by_key = {}
    for m in parsed:
        by_key.setdefault(m.group(3), []).append((int(m.group(1)), int(m.group(2)), m.group(4)))
    # same key, same partition, in order
    assert [v for _, _, v in by_key["k1"]] == ["v1", "v4"]
    assert by_key["k1"][0][0] == by_key["k1"][1][0] and by_key["k1"][0][1] < by_key["k1"][1][1]
    assert sorted(v for vals in by_key.values() for _, _, v in vals) == ["v1", "v2", "v3", "v4"]


def test_console_consumer_timestamp_and_default_format(broker, topic):
    produce(broker, topic, ["a:hello"])
    out = run("kafka-console-consumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
              "--from-beginning", "--max-messages", "1", "--property", "print.timestamp=true")
    assert re.fullmatch(r"CreateTime:\d{13}\thello", out.stdout.strip()), out.stdout
    plain = run("kafka-console-consumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
                "--from-beginning", "--max-messages", "1")
    assert plain.stdout == "hello\n"


def test_console_producer_rejects_a_line_without_key(broker, topic):
    out = run("kafka-console-producer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
              "--property", "parse.key=true", "--property", "key.separator=:", stdin="nokey\n", check=False)
    assert out.returncode == 1
    assert "No key found on line 1: nokey" in out.stderr


def test_consumer_groups_list_describe_and_reset(broker, topic, unique_topic):
    b = broker.bootstrap
    group = f"g-{unique_topic}"
    produce(broker, topic, [f"k{i}:v{i}" for i in range(6)])
    run("kafka-console-consumer", "--bootstrap-server", b, "--topic", topic, "--from-beginning",
        "--group", group, "--max-messages", "6")
    assert group in run("kafka-consumer-groups", "--bootstrap-server", b, "--list").stdout.splitlines()

    out = run("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group", group)
    assert f"Consumer group '{group}' has no active members." in out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ""
    gw, tw = max(15, len(group)), max(15, len(topic))
    header = (f"{'GROUP':<{gw}} {'TOPIC':<{tw}} {'PARTITION':<10} {'CURRENT-OFFSET':<15} {'LOG-END-OFFSET':<15} "
              f"{'LAG':<15} {'CONSUMER-ID':<15} {'HOST':<15} CLIENT-ID")
    assert lines[1] == header
    rows = [l.split() for l in lines[2:]]
    assert [r[2] for r in rows] == ["0", "1", "2"]
    assert all(r[0] == group and r[1] == topic and r[3] == r[4] and r[5] == "0" and r[6:] == ["-", "-", "-"]
               for r in rows)
    assert sum(int(r[4]) for r in rows) == 6
    assert lines[2] == (f"{group:<{gw}} {topic:<{tw}} {'0':<10} {rows[0][3]:<15} {rows[0][4]:<15} {'0':<15} "
                        f"{'-':<15} {'-':<15} -")

    dry = run("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", group,
              "--topic", topic, "--to-earliest", "--dry-run")
    assert dry.stdout.splitlines()[1] == "%-30s %-30s %-10s %-15s" % ("GROUP", "TOPIC", "PARTITION", "NEW-OFFSET")
    assert dry.stdout.splitlines()[2:] == ["%-30s %-30s %-10s %-15s" % (group, topic, p, 0) for p in range(3)]
    still = run("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group", group).stdout
    assert sum(int(l.split()[5]) for l in still.splitlines()[2:]) == 0   # dry run changed nothing

    run("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", group, "--topic", topic,
        "--to-earliest", "--execute")
    after = run("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group", group).stdout
    rows = [l.split() for l in after.splitlines()[2:]]
    assert all(r[3] == "0" for r in rows) and sum(int(r[5]) for r in rows) == 6

    run("kafka-consumer-groups", "--bootstrap-server", b, "--reset-offsets", "--group", group, "--topic", topic,
        "--to-latest", "--execute")
    rows = [l.split() for l in run("kafka-consumer-groups", "--bootstrap-server", b, "--describe", "--group",
                                   group).stdout.splitlines()[2:]]
    assert all(r[3] == r[4] and r[5] == "0" for r in rows)


def test_consumer_groups_describe_unknown_group(broker, unique_topic):
    out = run("kafka-consumer-groups", "--bootstrap-server", broker.bootstrap, "--describe", "--group",
              f"nobody-{unique_topic}")
    assert out.stdout.strip() == f"Error: Consumer group 'nobody-{unique_topic}' does not exist."


def test_kafka_configs_describe_and_alter_topic(broker, topic):
    b = broker.bootstrap
    args = ["--bootstrap-server", b, "--entity-type", "topics", "--entity-name", topic]
    out = run("kafka-configs", *args, "--describe").stdout.splitlines()
    assert out[0] == f"Dynamic configs for topic {topic} are:"
    assert re.fullmatch(r"  cleanup\.policy=compact sensitive=false synonyms=\{.*\}", out[1]), out
    assert len(out) == 2

    alter = run("kafka-configs", *args, "--alter", "--add-config", "retention.ms=86400000,segment.ms=3600000")
    assert alter.stdout.strip() == f"Completed updating config for topic {topic}."
    run("kafka-configs", *args, "--alter", "--delete-config", "cleanup.policy")
    out = run("kafka-configs", *args, "--describe").stdout.splitlines()
    names = sorted(line.split("=")[0].strip() for line in out[1:])
    assert names == ["retention.ms", "segment.ms"]
    assert any(line.startswith("  retention.ms=86400000 sensitive=false synonyms={") for line in out)


def test_kafka_configs_describe_broker(broker):
    out = run("kafka-configs", "--bootstrap-server", broker.bootstrap, "--entity-type", "brokers",
              "--entity-name", "0", "--describe", "--all").stdout.splitlines()
    assert out[0] == "All configs for broker 0 are:"
    assert all(re.fullmatch(r"  [a-z0-9_.\-]+=.* sensitive=(true|false) synonyms=\{.*\}", l) for l in out[1:])
    assert any(l.startswith("  log.dirs=") for l in out[1:])


def test_consumer_perf_test_header_and_summary(broker, topic):
    produce(broker, topic, [f"k{i}:value-{i:04d}" for i in range(50)])
    out = run("kafka-consumer-perf-test", "--bootstrap-server", broker.bootstrap, "--topic", topic,
              "--messages", "50").stdout.splitlines()
    assert out[0] == ("start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, "
                      "rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec")
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}"
    m = re.fullmatch(rf"({date}), ({date}), (\d+\.\d{{4}}), ([\d.]+|Infinity|inf), 50, ([\d.]+|inf), (\d+), "
                     rf"(-?\d+), ([\d.]+|inf), ([\d.]+|inf)", out[1])
    assert m, out
    # 50 records of key k<i> (2-3 bytes) and value value-NNNN (10 bytes)
    assert float(m.group(3)) == round((10 * 2 + 40 * 3 + 50 * 10) / (1024 * 1024), 4)
    assert len(out) == 2   # no progress line when stdout is not a terminal
