"""No Kafka counterpart (Kafka's ProduceRequestTest and LogValidatorTest cover these with its
own request classes): raw Produce requests, built with kafkalite.protocol and
MemoryRecordsBuilder, carrying bad batches. Each rejected partition gets Kafka's error code,
the other partitions of the same request are appended, the connection stays usable, and the
rejected partition's segment files do not grow by a single byte (read from ``log.dirs``).

  wrong CRC-32C                      -> CORRUPT_MESSAGE (2)
  a magic 0 or 1 message set in v3+  -> INVALID_RECORD (87, 2.4's org.apache.kafka.common.InvalidRecordException;
                                        Produce v0-2 up-convert it: test_message_formats.py)
  a batch above max.message.bytes    -> MESSAGE_TOO_LARGE (10)
  an unknown partition or topic      -> UNKNOWN_TOPIC_OR_PARTITION (3)
  a record without a key on a        -> INVALID_RECORD (87), naming the record from Produce v8 on (KIP-467's
  compacted topic                       record_errors and error_message); confluent-kafka and kafka-python
                                        report it as a failed delivery
"""
import struct
import zlib

import pytest

import clients
from harness import RawConnection, check_alive

CORRUPT_MESSAGE, MESSAGE_TOO_LARGE, UNKNOWN_TOPIC_OR_PARTITION, INVALID_RECORD = 2, 10, 3, 87
MAX_MESSAGE_BYTES = 2000


@pytest.fixture
def topic(broker, unique_topic):
    """Two partitions, max.message.bytes 2000, one valid batch already in each."""
    clients.create_topic(broker.bootstrap, unique_topic, 2, {"max.message.bytes": MAX_MESSAGE_BYTES})
    with RawConnection(broker.port) as conn:
        result = clients.raw_produce(conn, unique_topic, {0: clients.build_batch([b"seed-0"]),
                                                          1: clients.build_batch([b"seed-1"])})
    assert {p: r.error_code for p, r in result.items()} == {0: 0, 1: 0}
    return unique_topic


def corrupt(batch: bytearray) -> bytearray:
    bad = bytearray(batch)
    bad[-2] ^= 0x55            # a byte of the last record: the stored CRC no longer matches
    return bad


def legacy_message(magic: int, value: bytes, key: bytes | None = None) -> bytes:
    """A one-message v0/v1 message set (offset, size, crc, magic, attributes, [timestamp], key, value)."""
    body = struct.pack(">bb", magic, 0)
    if magic == 1:
        body += struct.pack(">q", 1_700_000_000_000)
    for blob in (key, value):
        body += struct.pack(">i", -1) if blob is None else struct.pack(">i", len(blob)) + blob
    message = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", 0, len(message)) + message


def sizes(broker, topic):
    return {p: clients.segment_sizes(broker.log_dirs, topic, p) for p in (0, 1)}


@pytest.mark.parametrize("version", [3, 7])
def test_wrong_crc_fails_only_that_partition(broker, topic, version):
    before = sizes(broker, topic)
    good = clients.build_batch([b"good-%d" % i for i in range(5)])
    with RawConnection(broker.port) as conn:
        result = clients.raw_produce(conn, topic, {0: corrupt(clients.build_batch([b"x"] * 5)), 1: good},
                                     version=version)
        assert result[0].error_code == CORRUPT_MESSAGE
        assert (result[1].error_code, result[1].base_offset) == (0, 1)
        check_alive(conn, 99)
    after = sizes(broker, topic)
    assert after[0] == before[0], "bytes of a corrupt batch reached the log"
    [seg] = after[1]
    assert after[1][seg] == before[1][seg] + len(good)
    _assert_next_offset(broker, topic, 0, 1)


@pytest.mark.parametrize("magic", [0, 1])
def test_legacy_magic_is_rejected(broker, topic, magic):
    before = sizes(broker, topic)
    with RawConnection(broker.port) as conn:
        [r] = clients.raw_produce(conn, topic, {0: legacy_message(magic, b"old-format")}).values()
        assert r.error_code in (INVALID_RECORD, CORRUPT_MESSAGE), f"magic {magic} got error {r.error_code}"
        check_alive(conn, 99)
    assert sizes(broker, topic) == before
    _assert_next_offset(broker, topic, 0, 1)


def test_batch_above_max_message_bytes(broker, topic):
    before = sizes(broker, topic)
    big = clients.build_batch([b"v" * (MAX_MESSAGE_BYTES + 500)])
    assert len(big) > MAX_MESSAGE_BYTES
    with RawConnection(broker.port) as conn:
        result = clients.raw_produce(conn, topic, {0: big, 1: clients.build_batch([b"small"])})
        assert result[0].error_code == MESSAGE_TOO_LARGE
        assert result[1].error_code == 0
    assert sizes(broker, topic)[0] == before[0]
    _assert_next_offset(broker, topic, 0, 1)


def test_unknown_partition_and_topic(broker, topic):
    before = sizes(broker, topic)
    with RawConnection(broker.port) as conn:
        result = clients.raw_produce(conn, topic, {7: clients.build_batch([b"nowhere"]),
                                                   1: clients.build_batch([b"somewhere"])})
        assert result[7].error_code == UNKNOWN_TOPIC_OR_PARTITION
        assert result[1].error_code == 0
        missing = topic + "-missing"
        [r] = clients.raw_produce(conn, missing, {0: clients.build_batch([b"nowhere"])}, correlation_id=2).values()
        assert r.error_code == UNKNOWN_TOPIC_OR_PARTITION
        check_alive(conn, 99)
    assert sizes(broker, topic)[0] == before[0]
    assert not (broker.log_dirs / f"{topic}-7").exists()
    assert not (broker.log_dirs / f"{topic}-missing-0").exists(), "a produce created a log for an unknown topic"


def _assert_next_offset(broker, topic, partition, expected):
    """The partition's log end offset did not move: the next good batch lands at ``expected``."""
    with RawConnection(broker.port) as conn:
        [r] = clients.raw_produce(conn, topic, {partition: clients.build_batch([b"next"])}).values()
    assert (r.error_code, r.base_offset) == (0, expected)


def test_a_record_without_a_key_on_a_compacted_topic(broker, unique_topic):
    from kafkalite.protocol.messages.produce import BatchIndexAndErrorMessage
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"cleanup.policy": "compact"})
    before = clients.segment_sizes(broker.log_dirs, unique_topic, 0)
    keyless_second = clients.build_batch([b"v1", b"v2"], keys=[b"k1", None])
    with RawConnection(broker.port) as conn:
        for version, correlation_id in ((7, 1), (8, 2)):
            [r] = clients.raw_produce(conn, unique_topic, {0: keyless_second}, version=version,
                                      correlation_id=correlation_id).values()
            assert (r.error_code, r.base_offset, r.log_start_offset) == (INVALID_RECORD, -1, 0)
        # v8 names the record and says why; v7 has no field for it
        assert r.record_errors == [BatchIndexAndErrorMessage(batch_index=1, batch_index_error_message=None)]
        assert r.error_message.startswith("Compacted topic cannot accept message without key")
        check_alive(conn, 99)
    assert clients.segment_sizes(broker.log_dirs, unique_topic, 0) == before, "a refused batch reached the log"


def test_real_producers_see_a_keyless_record_refused_on_a_compacted_topic(broker, unique_topic):
    from confluent_kafka import KafkaError, Producer
    from kafka import KafkaProducer
    from kafka.errors import InvalidRecordError
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"cleanup.policy": "compact"})
    reports = []
    producer = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 0, "retries": 0})
    producer.produce(unique_topic, value=b"no-key", on_delivery=lambda err, msg: reports.append(err))
    assert producer.flush(30) == 0
    producer.produce(unique_topic, key=b"k", value=b"keyed", on_delivery=lambda err, msg: reports.append(err))
    assert producer.flush(30) == 0   # the next batch (a batch is refused whole)
    assert reports[0] is not None and reports[0].code() == KafkaError.INVALID_RECORD
    assert reports[1] is None
    kp = KafkaProducer(bootstrap_servers=broker.bootstrap, retries=0, linger_ms=0)
    try:
        with pytest.raises(InvalidRecordError):
            kp.send(unique_topic, value=b"no-key").get(timeout=30)
        assert kp.send(unique_topic, key=b"k2", value=b"keyed").get(timeout=30).offset == 1   # after confluent's
    finally:
        kp.close(timeout=10)
