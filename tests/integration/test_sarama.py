"""No Kafka counterpart: Debian's sarama (the Go client, 1.22.1, golang-github-shopify-sarama-dev) against
a broker process and a three-broker cluster.

``tests/go/sarama_check`` is a small Go program built once per test session from Debian's Go sources in
GOPATH mode, without the module proxy (``GO111MODULE=off GOPROXY=off GOPATH=/usr/share/gocode``). It
produces keyed records with a SyncProducer (acks=all), reads every partition back with partition
consumers, and runs a ConsumerGroup member (or the standalone OffsetManager) that marks part of a topic,
commits and leaves; the next run must resume at the committed offsets: no duplicates, no gaps.

What sarama 1.22 sends, by ``Config.Version`` (read off the broker's request log):
- 2.x (any 1.0+): Metadata v5, Produce v3, Fetch v4, ListOffsets v1, FindCoordinator v0, JoinGroup v1,
  SyncGroup v0, Heartbeat v0, LeaveGroup v0, OffsetFetch v1, and OffsetCommit v1 (per-partition
  timestamp -1) or, with ``Consumer.Offsets.Retention`` set, OffsetCommit v2 (retention time).
- its default, V0_8_2_0: Metadata v0 (the client's first refresh is an empty topic list: "all topics"),
  ListOffsets v0, Produce v0 and Fetch v0 with message format v0; its ConsumerGroup refuses versions
  below 0.10.2, so the default version commits through the standalone OffsetManager.

Needs ``go`` and the sarama sources; without them (``.ci/run`` installs both) the tests are skipped with
the reason, unless ``CI`` is set: then they fail, so CI cannot silently lose them.
"""
from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import uuid
from pathlib import Path

import pytest

import clients
from harness import REPO_ROOT, BrokerProcess, free_port

from kafkalite.protocol.api_keys import ApiKeys

GOPATH = Path("/usr/share/gocode")
SARAMA_SOURCES = GOPATH / "src/github.com/Shopify/sarama"
PROGRAM = REPO_ROOT / "tests/go/sarama_check"
V2 = "2.1.0"     # any 1.0+ version makes sarama 1.22 send the same request versions


@pytest.fixture(scope="session")
def sarama_check(tmp_path_factory) -> Path:
    """The built ``sarama_check`` binary (in a temporary directory; never committed)."""
    go = shutil.which("go")
    missing = [what for what, ok in (("go (apt-get install golang-go)", go),
                                     ("sarama (apt-get install golang-github-shopify-sarama-dev)",
                                      SARAMA_SOURCES.is_dir())) if not ok]
    if missing:
        reason = "sarama tests need " + " and ".join(missing)
        if os.environ.get("CI"):
            pytest.fail(f"CI is set but {reason}", pytrace=False)
        pytest.skip(reason)
    out = tmp_path_factory.mktemp("sarama-build")
    env = {**os.environ, "GO111MODULE": "off", "GOPROXY": "off", "GOFLAGS": "", "GOPATH": str(GOPATH),
           "GOCACHE": str(out / "go-cache"), "CGO_ENABLED": "1"}   # sarama 1.22's zstd is cgo (DataDog/zstd)
    binary = out / "sarama_check"
    proc = subprocess.run([go, "build", "-o", str(binary), "."], cwd=PROGRAM, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"go build of {PROGRAM} failed:\n{proc.stderr[-4000:]}"
    return binary


@pytest.fixture(scope="module")
def traced_broker(tmp_path_factory):
    """One broker for this module, with the request log on: tests read which versions sarama sent."""
    b = BrokerProcess(tmp_path_factory.mktemp("sarama-broker"), {"kafkalite.request.trace": "true"})
    b.start()
    yield b
    b.stop()


def command_line(binary: Path, command: str, bootstrap: str, topic: str, *args, version: str = V2) -> list[str]:
    return [str(binary), command, "-bootstrap", bootstrap, "-topic", topic, "-version", version, "-timeout", "60s",
            *map(str, args)]


def run(binary: Path, command: str, bootstrap: str, topic: str, *args, version: str = V2) -> list[dict]:
    """``sarama_check <command>``; its stdout's JSON lines."""
    proc = subprocess.run(command_line(binary, command, bootstrap, topic, *args, version=version),
                          capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, f"sarama_check {command} exited {proc.returncode}:\n{proc.stderr[-4000:]}"
    return [json.loads(line) for line in proc.stdout.splitlines()]


def sent_versions(broker: BrokerProcess) -> set[str]:
    """``{"OFFSET_COMMIT v1", ...}``: the requests clientId sarama-check sent, from the request log."""
    found = set()
    for line in broker.log_text().splitlines():
        if "Completed request:" in line and "clientId=sarama-check " in line:
            api, version = line.split("Completed request:", 1)[1].split()[:2]
            found.add(f"{api} {version}")
    return found


def produce(binary, bootstrap, topic, count, *args, version=V2) -> list[dict]:
    produced = run(binary, "produce", bootstrap, topic, "-n", count, *args, version=version)
    assert [r["key"] for r in produced] == [f"key-{i}" for i in range(count)]
    return produced


def check_offsets_dense(records: list[dict]) -> None:
    """Offsets per partition are 0, 1, 2, ... in the order the records were produced."""
    by_partition: dict[int, list[int]] = {}
    for r in records:
        by_partition.setdefault(r["partition"], []).append(r["offset"])
    for offsets in by_partition.values():
        assert offsets == list(range(len(offsets)))


@pytest.mark.parametrize("compression,idempotent", [("none", False), ("gzip", False), ("snappy", False),
                                                    ("lz4", False), ("none", True)],
                         ids=["none", "gzip", "snappy", "lz4", "idempotent"])
def test_sarama_produces_and_consumes_keyed_records(sarama_check, traced_broker, unique_topic, compression,
                                                    idempotent):
    """zstd is left out: sarama 1.22 sends it in Produce v3, which Kafka 2.4 refuses (zstd needs Produce v7).
    The idempotent producer gets its producer id with InitProducerId v0."""
    clients.create_topic(traced_broker.bootstrap, unique_topic, 3)
    produced = produce(sarama_check, traced_broker.bootstrap, unique_topic, 30, "-compression", compression,
                       *(["-idempotent"] if idempotent else []))
    check_offsets_dense(produced)
    assert len({r["partition"] for r in produced}) == 3, "sarama's hash partitioner spreads 30 keys"
    consumed = run(sarama_check, "consume", traced_broker.bootstrap, unique_topic)
    assert sorted((r["partition"], r["offset"], r["key"], r["value"]) for r in consumed) == \
        sorted((r["partition"], r["offset"], r["key"], r["key"].replace("key", "value")) for r in produced)
    # another client reads the same records: sarama's v2 batches are ordinary batches
    by_kcat = clients.read_kcat(traced_broker.bootstrap, unique_topic, 30)
    assert sorted((c.partition, c.offset, c.key.decode()) for c in by_kcat) == \
        sorted((r["partition"], r["offset"], r["key"]) for r in produced)
    assert {"METADATA v5", "PRODUCE v3", "FETCH v4", "LIST_OFFSETS v1"} <= sent_versions(traced_broker)
    # the batches lie on disk as sarama sent them: compressed with its codec (attributes' low 3 bits)
    # and with the producer id an idempotent producer was given (-1 otherwise; sarama writes first sequence 0
    # either way, and Kafka keeps a batch's header as it came)
    first_batch = (traced_broker.log_dirs / f"{unique_topic}-0" / "00000000000000000000.log").read_bytes()[:61]
    producer_id, _epoch, first_sequence = struct.unpack(">qhi", first_batch[43:57])
    assert (first_batch[16], struct.unpack(">h", first_batch[21:23])[0] & 7) == \
        (2, ["none", "gzip", "snappy", "lz4"].index(compression))
    assert (producer_id >= 0, first_sequence) == (idempotent, 0)
    if idempotent:
        assert "INIT_PRODUCER_ID v0" in sent_versions(traced_broker)


def committed(bootstrap: str, group: str, topic: str) -> dict[int, int]:
    got = clients.committed_offsets(bootstrap, group, topic, range(3))
    return {p: o for p, o in got.items() if o is not None}


def next_offsets(records: list[dict]) -> dict[int, int]:
    """{partition: the offset after the last record read}"""
    out: dict[int, int] = {}
    for r in records:
        out[r["partition"]] = max(out.get(r["partition"], 0), r["offset"] + 1)
    return out


def check_resumed(first: list[dict], second: list[dict], produced: list[dict]) -> None:
    """The second run starts each partition where the first run's commit left it: together they read every
    record exactly once, and each partition's records in offset order."""
    seen = [(r["partition"], r["offset"]) for r in first + second]
    assert len(seen) == len(set(seen)), "a record was read twice"
    assert sorted(seen) == sorted((r["partition"], r["offset"]) for r in produced), "a record was never read"
    resumed_at = {}
    for r in second:
        resumed_at.setdefault(r["partition"], r["offset"])
    stopped_at = next_offsets(first)
    for partition, offset in resumed_at.items():
        assert offset == stopped_at.get(partition, 0)
    for run_records in (first, second):
        for partition in {r["partition"] for r in run_records}:
            offsets = [r["offset"] for r in run_records if r["partition"] == partition]
            assert offsets == sorted(offsets) and offsets == list(range(offsets[0], offsets[0] + len(offsets)))


@pytest.mark.parametrize("retention,commit_version", [("0s", "OFFSET_COMMIT v1"), ("1h", "OFFSET_COMMIT v2")])
def test_sarama_consumer_group_commits_and_resumes(sarama_check, traced_broker, unique_topic, retention,
                                                   commit_version):
    bootstrap, group = traced_broker.bootstrap, f"sarama-{uuid.uuid4().hex[:8]}"
    clients.create_topic(bootstrap, unique_topic, 3)
    produced = produce(sarama_check, bootstrap, unique_topic, 40)
    first = run(sarama_check, "group", bootstrap, unique_topic, "-group", group, "-max", 15, "-retention", retention)
    assert len(first) == 15
    # the session committed what it marked before it left: librdkafka's OffsetFetch sees it
    assert committed(bootstrap, group, unique_topic) == next_offsets(first)
    second = run(sarama_check, "group", bootstrap, unique_topic, "-group", group, "-max", 25, "-retention", retention)
    check_resumed(first, second, produced)
    assert committed(bootstrap, group, unique_topic) == next_offsets(produced)
    assert {commit_version, "OFFSET_FETCH v1", "FIND_COORDINATOR v0", "JOIN_GROUP v1", "SYNC_GROUP v0",
            "HEARTBEAT v0", "LEAVE_GROUP v0"} <= sent_versions(traced_broker)


def test_sarama_two_members_rebalance_without_duplicates_or_gaps(sarama_check, traced_broker, unique_topic, tmp_path):
    """Two ConsumerGroup members in one group. A needs 30 records, B 10, and the topic gets 40 in two halves:
    A reads from the first half, B joins (JoinGroup v1 rebalance, A told by Heartbeat v0, A's marks committed
    as its session ends), then the second half arrives. Whatever the split, the two finish only if every record
    was read once: B's partitions resume at A's commits, and when one member leaves the other takes over at
    the leaver's commits."""
    bootstrap, group = traced_broker.bootstrap, f"sarama-{uuid.uuid4().hex[:8]}"
    clients.create_topic(bootstrap, unique_topic, 3)
    produced = run(sarama_check, "produce", bootstrap, unique_topic, "-n", 20)
    # A's stdout and B's stderr are read as they come (pipes, one reader each); the other streams go to files
    a_err_path, b_out_path = tmp_path / "a.stderr", tmp_path / "b.stdout"
    b = None
    with open(a_err_path, "w") as a_err_file, open(b_out_path, "w") as b_out_file:
        a = subprocess.Popen(command_line(sarama_check, "group", bootstrap, unique_topic, "-group", group, "-max", 30),
                             stdout=subprocess.PIPE, stderr=a_err_file, text=True, stdin=subprocess.DEVNULL)
        try:
            a_first = a.stdout.readline()       # A is reading: a member of generation 1
            assert a_first, f"member A read nothing: {a_err_path.read_text()[-3000:]}"
            b = subprocess.Popen(command_line(sarama_check, "group", bootstrap, unique_topic, "-group", group,
                                              "-max", 10),
                                 stdout=b_out_file, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
            b_log = []
            for line in b.stderr:               # until B holds partitions: the rebalance is done
                b_log.append(line)
                if " claims " in line:
                    break
            assert b_log and " claims " in b_log[-1], f"member B never joined: {''.join(b_log)[-3000:]}"
            produced += run(sarama_check, "produce", bootstrap, unique_topic, "-n", 20, "-first", 20)
            b_log.append(b.stderr.read())       # to B's exit (the program's own -timeout bounds it)
            a_out = a_first + a.stdout.read()
            a.wait(timeout=30)
            b.wait(timeout=30)
        finally:
            for p in (a, b):
                if p is not None and p.poll() is None:
                    p.kill()
                    p.wait()
    a_err = a_err_path.read_text()
    assert (a.returncode, b.returncode) == (0, 0), f"A: {a_err[-3000:]}\nB: {''.join(b_log)[-3000:]}"
    by_a = [json.loads(line) for line in a_out.splitlines()]
    by_b = [json.loads(line) for line in b_out_path.read_text().splitlines()]
    assert (len(by_a), len(by_b)) == (30, 10)
    seen = [(r["partition"], r["offset"]) for r in by_a + by_b]
    assert len(seen) == len(set(seen)), "a record was read twice"
    assert sorted(seen) == sorted((r["partition"], r["offset"]) for r in produced), "a record was never read"
    assert committed(bootstrap, group, unique_topic) == next_offsets(produced)
    assert a_err.count(" claims ") >= 2, "A went through the rebalance B's join started"


@pytest.mark.parametrize("version", [V2, "default"])
def test_sarama_offset_manager_commits_and_resumes(sarama_check, traced_broker, unique_topic, version):
    """The standalone OffsetManager: generation -1 and no member id (Kafka's "simple consumer" commit to a
    group with no members); with the default version, the whole run speaks Kafka 0.8.2's versions."""
    if version == "default" and (ApiKeys.PRODUCE.min_accepted_version > 0 or ApiKeys.FETCH.min_version > 0):
        pytest.skip("sarama's default version produces and fetches message format v0 (Produce v0, Fetch v0), "
                    "which this broker does not accept yet")
    bootstrap, group = traced_broker.bootstrap, f"sarama-{uuid.uuid4().hex[:8]}"
    clients.create_topic(bootstrap, unique_topic, 3)
    produced = produce(sarama_check, bootstrap, unique_topic, 30, version=version)
    first = run(sarama_check, "offsets", bootstrap, unique_topic, "-group", group, "-max", 12, version=version)
    assert len(first) == 12
    assert committed(bootstrap, group, unique_topic) == next_offsets(first)
    second = run(sarama_check, "offsets", bootstrap, unique_topic, "-group", group, "-max", 18, version=version)
    check_resumed(first, second, produced)
    assert committed(bootstrap, group, unique_topic) == next_offsets(produced)


def test_sarama_default_version_reads_metadata_v0_and_list_offsets_v0(sarama_check, traced_broker, unique_topic):
    """sarama's default version asks Metadata v0 with an empty list (all topics, as Kafka 2.4 answers v0) and
    ListOffsets v0 (max_num_offsets=1: the newest or the oldest segment-boundary offset)."""
    bootstrap = traced_broker.bootstrap
    clients.create_topic(bootstrap, unique_topic, 3)
    produced = produce(sarama_check, bootstrap, unique_topic, 20)
    marks = run(sarama_check, "watermarks", bootstrap, unique_topic, version="default")
    counts = {p: sum(1 for r in produced if r["partition"] == p) for p in range(3)}
    assert [(m["partition"], m["oldest"], m["newest"]) for m in marks] == [(p, 0, counts[p]) for p in range(3)]
    assert unique_topic in marks[0]["topics"]
    assert {"METADATA v0", "LIST_OFFSETS v0"} <= sent_versions(traced_broker)


def test_sarama_cluster_admin(sarama_check, traced_broker, unique_topic):
    """sarama's ClusterAdmin, at the versions it picks for 2.x: CreateTopics v2, DescribeConfigs v0 (ListTopics:
    is_default is "the source is the default", so server.properties' log.segment.bytes shows), CreatePartitions
    v0, AlterConfigs v0, DeleteRecords v0, ListGroups v0, DescribeGroups v0, OffsetFetch v1, DeleteTopics v1;
    ListTopics' own Metadata request is v0 with an empty list, whatever the configured version."""
    bootstrap, group = traced_broker.bootstrap, f"sarama-{uuid.uuid4().hex[:8]}"
    source = unique_topic + "-src"
    clients.create_topic(bootstrap, source, 3)
    produce(sarama_check, bootstrap, source, 12)
    first = run(sarama_check, "group", bootstrap, source, "-group", group, "-max", 5)
    steps = {s.pop("step"): s for s in run(sarama_check, "admin", bootstrap, unique_topic, "-group", group,
                                          "-offsets-of", source)}
    assert list(steps) == ["created", "described", "listed", "configs", "records", "groups", "deleted"]
    assert steps["described"]["partitions"] == 3
    assert steps["listed"] == {"partitions": 3, "replication_factor": 1,
                               "configs": {"retention.ms": "3600000", "segment.bytes": "1073741824"}}
    assert steps["configs"]["configs"] == {
        "segment.ms": {"value": "600000", "default": False, "read_only": False},
        "cleanup.policy": {"value": "delete", "default": True, "read_only": False}}
    assert steps["records"] == {"oldest": 2, "partitions": 4}
    stopped = next_offsets(first)
    assert steps["groups"] == {"protocol_type": "consumer", "state": "Empty", "members": 0,
                               "error": "kafka server: Not an error, why are you printing me?",
                               "offsets": {f"{source}/{p}": stopped.get(p, -1) for p in range(3)}}
    assert {"CREATE_TOPICS v2", "METADATA v0", "DESCRIBE_CONFIGS v0", "CREATE_PARTITIONS v0", "ALTER_CONFIGS v0",
            "DELETE_RECORDS v0", "LIST_GROUPS v0", "DESCRIBE_GROUPS v0", "DELETE_TOPICS v1"} <= \
        sent_versions(traced_broker)


PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
              'password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";')


@pytest.fixture(scope="module")
def sasl_broker(tmp_path_factory):
    plain_port, sasl_port = free_port(), free_port()
    b = BrokerProcess(tmp_path_factory.mktemp("sarama-sasl"), {
        "listeners": f"PLAINTEXT://127.0.0.1:{plain_port},SASL_PLAINTEXT://127.0.0.1:{sasl_port}",
        "sasl.enabled.mechanisms": "PLAIN", "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "connection.failed.authentication.delay.ms": "50"}, port=plain_port)
    b.sasl_bootstrap = f"127.0.0.1:{sasl_port}"
    b.start()
    yield b
    b.stop()


def test_sarama_sasl_plain(sarama_check, sasl_broker, unique_topic):
    """SASL/PLAIN: from Version 1.0 sarama sends SaslHandshake v1 and SaslAuthenticate v0; with its default
    version SaslHandshake v0 and then the token as a raw frame, and a wrong password makes the broker close the
    connection (v1 answers an error instead)."""
    bootstrap, alice = sasl_broker.sasl_bootstrap, ("-sasl-user", "alice", "-sasl-password", "alice-secret")
    clients.create_topic(sasl_broker.bootstrap, unique_topic, 1)
    produced = run(sarama_check, "produce", bootstrap, unique_topic, "-n", 5, *alice)
    consumed = run(sarama_check, "consume", bootstrap, unique_topic, *alice)
    assert [(r["offset"], r["key"]) for r in consumed] == [(r["offset"], r["key"]) for r in produced]
    [marks] = run(sarama_check, "watermarks", bootstrap, unique_topic, *alice, version="default")
    assert (marks["oldest"], marks["newest"]) == (0, 5)
    for version, error in ((V2, "SASL Authentication failed"), ("default", "run out of available brokers")):
        proc = subprocess.run(command_line(sarama_check, "watermarks", bootstrap, unique_topic, "-sasl-user", "alice",
                                           "-sasl-password", "wrong", version=version),
                              capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
        assert proc.returncode != 0 and error in proc.stderr, proc.stderr[-3000:]


@pytest.mark.cluster
def test_sarama_on_three_brokers(sarama_check, kafka_cluster_factory, unique_topic):
    """Leaders on every broker, replication factor 3 with acks=all, and the group's coordinator on one of
    them: sarama finds it with FindCoordinator v0 and commits and resumes there."""
    cluster = kafka_cluster_factory(3, replication_factor=3, min_insync_replicas=2)
    bootstrap, group = cluster.bootstrap_servers, f"sarama-{uuid.uuid4().hex[:8]}"
    clients.create_topic(bootstrap, unique_topic, 3, replication_factor=3)
    produced = produce(sarama_check, bootstrap, unique_topic, 30)
    check_offsets_dense(produced)
    consumed = run(sarama_check, "consume", bootstrap, unique_topic)
    assert sorted((r["partition"], r["offset"], r["key"]) for r in consumed) == \
        sorted((r["partition"], r["offset"], r["key"]) for r in produced)
    first = run(sarama_check, "group", bootstrap, unique_topic, "-group", group, "-max", 10)
    second = run(sarama_check, "group", bootstrap, unique_topic, "-group", group, "-max", 20)
    check_resumed(first, second, produced)
