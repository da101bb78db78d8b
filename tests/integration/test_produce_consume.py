"""No Kafka counterpart (Kafka's own ProducerSendTest / PlaintextConsumerTest run its Java
clients): each real client -- kafka-python, confluent-kafka (librdkafka), aiokafka, kcat and
kafkajs -- produces 10,000 keyed records with headers and reads them back by assigning
partitions and starting at offset 0 (no group). Keys, values, headers and CreateTime timestamps
must come back unchanged, with offsets 0, 1, 2, ... in every partition.

The cases share the settings of issue 3 out among the clients (which codecs each has here is
checked at import: kafka-python has only gzip without python-snappy/lz4/zstandard; aiokafka's
codecs are backed by cramjam; kafkajs ships gzip only; kcat 1.7.1 uses librdkafka 2.0.2):

  client          acks  idempotence  compression  partitions
  kafka-python    all   on (default) gzip         3
  kafka-python    0     off          none         1
  confluent       all   on           zstd         3
  confluent       1     off          lz4          1
  aiokafka        1     off          snappy       3
  aiokafka        all   on           lz4          1
  kcat            1     off          snappy       1
  kafkajs         all   off          gzip         3
"""
import struct
import time

import pytest

import clients
from clients import make_records

COUNT = 10_000


def check_read_back(produced, consumed, partitions, exact_timestamps=True, window=None):
    """Same records per partition, in order, at offsets 0..n-1."""
    by_partition = {p: [r for r in produced if r.partition == p] for p in range(partitions)}
    assert len(consumed) == len(produced), f"read {len(consumed)} records, produced {len(produced)}"
    for p, expected in by_partition.items():
        got = sorted((c for c in consumed if c.partition == p), key=lambda c: c.offset)
        assert [c.offset for c in got] == list(range(len(expected))), f"offsets of partition {p} not contiguous"
        for want, have in zip(expected, got):
            assert (have.key, have.value) == (want.key, want.value), f"partition {p} offset {have.offset}"
            assert tuple(have.headers) == tuple(want.headers), f"headers at {p}/{have.offset}"
            assert have.timestamp_type == "create"
            if exact_timestamps:
                assert have.timestamp == want.timestamp, f"timestamp at {p}/{have.offset}"
            else:
                assert window[0] <= have.timestamp <= window[1], f"timestamp {have.timestamp} outside {window}"


CODEC_IDS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}


def stored_codecs(log_dirs, topic) -> set[int]:
    """The compression ids in the attributes of the batches stored for partition 0 (a client may
    leave a batch uncompressed when compressing would not make it smaller, as kafka-python does)."""
    data = (log_dirs / f"{topic}-0" / "00000000000000000000.log").read_bytes()
    codecs, pos = set(), 0
    while pos + 23 <= len(data):
        (length,) = struct.unpack_from(">i", data, pos + 8)
        codecs.add(struct.unpack_from(">h", data, pos + 21)[0] & 0x07)
        pos += 12 + length
    return codecs


def _kafka_python_codecs():
    from kafka.codec import has_gzip, has_lz4, has_snappy, has_zstd
    return {"gzip": has_gzip(), "snappy": has_snappy(), "lz4": has_lz4(), "zstd": has_zstd()}


CASES = [
    pytest.param("kafka-python", 3, {"compression_type": "gzip"}, id="kafka-python-idempotent-acks_all-gzip-3p"),
    pytest.param("kafka-python", 1, {"acks": 0, "enable_idempotence": False},
                 id="kafka-python-acks0-none"),
    pytest.param("confluent", 3, {"enable.idempotence": True, "acks": "all", "compression.type": "zstd"},
                 id="confluent-idempotent-acks_all-zstd-3p"),
    pytest.param("confluent", 1, {"acks": 1, "enable.idempotence": False, "compression.type": "lz4"},
                 id="confluent-acks1-lz4"),
    pytest.param("aiokafka", 3, {"acks": 1, "compression_type": "snappy"}, id="aiokafka-acks1-snappy-3p"),
    pytest.param("aiokafka", 1, {"acks": "all", "enable_idempotence": True, "compression_type": "lz4"},
                 id="aiokafka-idempotent-acks_all-lz4"),
    pytest.param("kcat", 1, {"acks": 1, "codec": "snappy"}, id="kcat-acks1-snappy"),
    pytest.param("kafkajs", 3, {"acks": -1, "compression": "gzip"}, id="kafkajs-acks_all-gzip-3p"),
]


@pytest.mark.timeout(240)
@pytest.mark.parametrize("client, partitions, settings", CASES)
def test_produce_and_read_back(broker, unique_topic, tmp_path, client, partitions, settings):
    if client == "kafka-python" and settings.get("compression_type") not in (None, "gzip"):
        assert _kafka_python_codecs()[settings["compression_type"]], "codec missing for kafka-python"
    clients.create_topic(broker.bootstrap, unique_topic, partitions)
    now = int(time.time() * 1000)
    all_partitions = list(range(partitions))

    if client == "kcat":
        records = make_records(COUNT, 1, timestamp_base=None, headers=False)
        records = [r.__class__(r.partition, r.key, r.value, (("h-const", b"kafkalite"),), None) for r in records]
        before = int(time.time() * 1000)
        clients.produce_kcat(broker.bootstrap, unique_topic, records, tmp_path,
                             extra=("-X", f"acks={settings['acks']}", "-X", f"compression.codec={settings['codec']}"))
        after = int(time.time() * 1000)
        consumed = clients.read_kcat(broker.bootstrap, unique_topic, COUNT)
        check_read_back(records, consumed, 1, exact_timestamps=False, window=(before - 1000, after + 1000))
        assert CODEC_IDS[settings["codec"]] in stored_codecs(broker.log_dirs, unique_topic)
        return

    records = make_records(COUNT, partitions, timestamp_base=now - 3_600_000)
    if client == "kafka-python":
        clients.produce_kafka_python(broker.bootstrap, unique_topic, records, **settings)
        consumed = clients.read_kafka_python(broker.bootstrap, unique_topic, all_partitions, COUNT)
    elif client == "confluent":
        clients.produce_confluent(broker.bootstrap, unique_topic, records, settings)
        consumed = clients.read_confluent(broker.bootstrap, unique_topic, all_partitions, COUNT)
    elif client == "aiokafka":
        clients.produce_aiokafka(broker.bootstrap, unique_topic, records, **settings)
        consumed = clients.read_aiokafka(broker.bootstrap, unique_topic, all_partitions, COUNT)
    else:
        clients.produce_kafkajs(broker.bootstrap, unique_topic, records, tmp_path, **settings)
        consumed = clients.read_kafkajs(broker.bootstrap, unique_topic, all_partitions, COUNT)
    check_read_back(records, consumed, partitions)
    codec = next((v for k, v in settings.items() if k in ("compression_type", "compression.type", "compression")),
                 "none")
    stored = stored_codecs(broker.log_dirs, unique_topic)
    assert CODEC_IDS[codec] in stored and (codec != "none" or stored == {0}), f"stored codecs {stored}"


def test_kafka_python_acks0_gets_no_response_and_connection_survives(broker, unique_topic):
    """acks=0 (G7): the broker sends nothing back, so kafka-python sees no stray correlation id;
    a later acks=1 produce on the same producer still succeeds at the next offset."""
    from kafka import KafkaProducer
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks=0, enable_idempotence=False)
    try:
        for i in range(100):
            producer.send(unique_topic, key=b"k%d" % i, value=b"v", partition=0)
        producer.flush(30)
    finally:
        producer.close(10)
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks=1, enable_idempotence=False)
    try:
        md = producer.send(unique_topic, key=b"last", value=b"v", partition=0).get(timeout=30)
    finally:
        producer.close(10)
    assert md.offset == 100
