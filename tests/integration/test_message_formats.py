"""No Kafka counterpart (Kafka's LogValidatorTest, LazyDownConversionRecordsTest and FetchRequestDownConversion
tests cover these with its own classes): issue 19's message formats v0 and v1 against a broker process.

Producers of the old formats write through Produce v0-2 and the broker stores magic 2 batches (up-conversion,
kafkalite/log/log_validator.py); consumers of the old formats read through Fetch v0-3 and the broker answers
magic 0 or 1 message sets (down-conversion, kafkalite/record/lazy_down_conversion_records.py). The legacy
messages here are built by ``legacy_message_set`` below from the format's definition (struct + zlib.crc32 +
the codecs), not with kafkalite's record classes, and the fetched message sets are decoded with
kafka-python's legacy record reader, so neither side of the conversion checks itself. A v2 consumer
(confluent-kafka / librdkafka) reads the up-converted data.
"""
from __future__ import annotations

import struct
import time
import zlib

import pytest

import clients
from harness import RawConnection, check_alive
from kafkalite.protocol.messages.fetch import FetchPartition, FetchRequest, FetchTopic

CORRUPT_MESSAGE, INVALID_RECORD, INVALID_TIMESTAMP, UNSUPPORTED_VERSION = 2, 87, 32, 35
GZIP, SNAPPY, LZ4 = 1, 2, 3
LOG_APPEND_TIME_BIT = 0x08


# ---------------------------------------------------------------- the old formats, from their definition
def legacy_message(magic: int, offset: int, key: bytes | None, value: bytes | None, timestamp: int = -1,
                   attributes: int = 0) -> bytes:
    """offset i64, size i32, crc u32 (CRC-32 of the rest), magic i8, attributes i8, [timestamp i64], key, value."""
    body = struct.pack(">bb", magic, attributes)
    if magic == 1:
        body += struct.pack(">q", timestamp)
    for blob in (key, value):
        body += struct.pack(">i", -1) if blob is None else struct.pack(">i", len(blob)) + blob
    message = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", offset, len(message)) + message


def compress(codec: int, data: bytes, magic: int = 1) -> bytes:
    import cramjam
    if codec == LZ4 and magic == 0:   # Kafka 0.8-0.9 hashed the frame magic into the header checksum (KAFKA-3160)
        from kafkalite.record.kafka_lz4 import with_broken_flag_descriptor_checksum
        return with_broken_flag_descriptor_checksum(bytes(cramjam.lz4.compress(data)))
    if codec == GZIP:
        c = zlib.compressobj(wbits=31)
        return c.compress(data) + c.flush()
    if codec == SNAPPY:
        return bytes(cramjam.snappy.compress_raw(data))        # one raw block, as librdkafka's old producer sends
    return bytes(cramjam.lz4.compress(data))                     # an LZ4 frame (magic 1, KIP-57)


def legacy_message_set(magic: int, records: list[tuple], codec: int = 0, attributes: int = 0) -> bytes:
    """``records``: (key, value, timestamp). Uncompressed: one message each (offsets 0..n-1). Compressed: one
    wrapper whose inner offsets are relative (magic 1) or absolute (magic 0), both 0..n-1 here, and whose
    offset is the last inner one; a magic 1 wrapper's timestamp is the largest inner timestamp."""
    inner = b"".join(legacy_message(magic, i, k, v, ts, attributes) for i, (k, v, ts) in enumerate(records))
    if codec == 0:
        return inner
    max_ts = max(ts for _, _, ts in records)
    return legacy_message(magic, len(records) - 1, None, compress(codec, inner, magic), max_ts, codec | attributes)


def decode_legacy(data: bytes) -> list[tuple]:
    """(offset, magic, key, value, timestamp, timestamp_type, wrapper codec) of every message in a fetched
    message set, by kafka-python's legacy reader (a trailing partial message is skipped, as clients do)."""
    from kafka.record.legacy_records import LegacyRecordBatch
    out, pos = [], 0
    while pos + 12 <= len(data):
        _offset, size = struct.unpack_from(">qi", data, pos)
        if pos + 12 + size > len(data):
            break
        entry = data[pos:pos + 12 + size]
        magic = entry[16]
        assert magic in (0, 1), f"magic {magic} in a down-converted fetch"
        if entry[17] & 0x07 in (SNAPPY, LZ4):      # kafka-python has no codec libraries for these here
            out += _decode_wrapper_by_hand(entry)
            pos += 12 + size
            continue
        batch = LegacyRecordBatch(bytearray(entry), magic)
        assert batch.validate_crc()
        codec = entry[17] & 0x07
        for r in batch:
            out.append((r.offset, magic, r.key, r.value, r.timestamp, r.timestamp_type, codec))
        pos += 12 + size
    return out


def _decompress(codec: int, data: bytes, magic: int) -> bytes:
    import cramjam
    if codec == LZ4:
        if magic == 0:
            from kafkalite.record.kafka_lz4 import with_broken_flag_descriptor_checksum, with_proper_flag_descriptor_checksum
            assert data == with_broken_flag_descriptor_checksum(data), "magic 0 LZ4 keeps 0.8-0.9's header checksum"
            data = with_proper_flag_descriptor_checksum(data)
        return bytes(cramjam.lz4.decompress(data))
    assert data[:8] == b"\x82SNAPPY\x00", "Kafka's snappy wrappers use the xerial framing"
    pos, out = 16, b""
    while pos < len(data):
        (n,) = struct.unpack_from(">i", data, pos)
        out += bytes(cramjam.snappy.decompress_raw(data[pos + 4:pos + 4 + n]))
        pos += 4 + n
    return out


def _decode_wrapper_by_hand(entry: bytes) -> list[tuple]:
    wrapper_offset, _ = struct.unpack_from(">qi", entry, 0)
    crc, magic, attributes = struct.unpack_from(">Ibb", entry, 12)
    assert crc == zlib.crc32(entry[16:]), "wrapper CRC"
    ts_pos = 18
    wrapper_ts = struct.unpack_from(">q", entry, ts_pos)[0] if magic == 1 else -1
    pos = ts_pos + (8 if magic == 1 else 0)
    assert struct.unpack_from(">i", entry, pos)[0] == -1, "a wrapper has no key"
    (value_len,) = struct.unpack_from(">i", entry, pos + 4)
    inner = decode_legacy(_decompress(attributes & 0x07, entry[pos + 8:pos + 8 + value_len], magic))
    base = wrapper_offset - inner[-1][0] if magic == 1 else 0
    lat = magic == 1 and attributes & LOG_APPEND_TIME_BIT
    return [(base + o, m, k, v, wrapper_ts if lat else ts, 1 if lat else tt, attributes & 0x07)
            for o, m, k, v, ts, tt, _c in inner]


def fetch(conn, topic: str, version: int, offset: int = 0, partition_max_bytes: int = 1 << 20,
          max_bytes: int = 1 << 20, correlation_id: int = 7):
    body = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, max_bytes=max_bytes, topics=[
        FetchTopic(topic=topic, partitions=[FetchPartition(partition=0, fetch_offset=offset,
                                                           partition_max_bytes=partition_max_bytes)])])
    response = clients.raw_request(conn, 1, version, body, correlation_id)
    [t] = response.responses
    [p] = t.partitions
    return p


def fetch_all(conn, topic: str, version: int, high_watermark: int) -> list[tuple]:
    """Fetch from 0 until the high watermark, as an old consumer does: a down-converted answer is at most
    max(stored size, first converted batch) long, so it may end in a partial message fetched again next time."""
    out, offset = [], 0
    for corr in range(100, 120):
        p = fetch(conn, topic, version, offset=offset, correlation_id=corr)
        assert (p.error_code, p.high_watermark) == (0, high_watermark)
        got = [g for g in decode_legacy(bytes(p.records)) if g[0] >= offset]
        assert got, f"Fetch v{version} from {offset} made no progress"
        out += got
        offset = got[-1][0] + 1
        if offset >= high_watermark:
            return out
    raise AssertionError("no end")


def produce(conn, topic: str, version: int, message_set: bytes, correlation_id: int = 3):
    [r] = clients.raw_produce(conn, topic, {0: message_set}, version=version, correlation_id=correlation_id).values()
    return r


@pytest.fixture
def topic(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    return unique_topic


NOW = int(time.time() * 1000)
RECORDS = [(b"k-0", b"first", NOW - 3), (None, b"no-key", NOW - 2), (b"k-2", b"x" * 300, NOW - 1), (b"k-3", None, NOW)]
CASES = [  # (produce version, magic, codec)
    (0, 0, 0), (1, 0, GZIP), (1, 0, LZ4), (2, 1, 0), (2, 1, GZIP), (2, 1, SNAPPY), (2, 1, LZ4),
]


@pytest.mark.parametrize("version,magic,codec", CASES, ids=[f"produce-v{v}-magic{m}-codec{c}" for v, m, c in CASES])
def test_old_formats_are_up_converted_and_read_back_by_every_fetch_version(broker, topic, version, magic, codec):
    with RawConnection(broker.port) as conn:
        r = produce(conn, topic, version, legacy_message_set(magic, RECORDS, codec))
        assert (r.error_code, r.base_offset) == (0, 0)
        if version >= 2:
            assert r.log_append_time_ms == -1                     # CreateTime topic
        r = produce(conn, topic, version, legacy_message_set(magic, RECORDS[:1], codec), correlation_id=4)
        assert (r.error_code, r.base_offset) == (0, 4)
        expected = [(i, k, v) for i, (k, v, _) in enumerate(RECORDS + RECORDS[:1])]
        stamps = [ts if magic == 1 else -1 for _, _, ts in RECORDS + RECORDS[:1]]
        for fetch_version, to_magic in ((0, 0), (1, 0), (2, 1), (3, 1)):
            got = fetch_all(conn, topic, fetch_version, 5)
            assert [(o, k, v) for o, _, k, v, *_ in got] == expected, f"Fetch v{fetch_version}"
            assert {m for _, m, *_ in got} == {to_magic}
            assert {c for *_, c in got} == {codec}, "a compressed batch comes back as a wrapper of the same codec"
            if to_magic == 1:
                assert [ts for *_, ts, _tt, _c in got] == stamps
        # offsets kept: a fetch from the middle of the (uncompressed or compressed) data starts there
        got = decode_legacy(bytes(fetch(conn, topic, 3, offset=2).records))
        assert got[0][0] == (2 if codec == 0 else 0)           # a wrapper comes whole, uncompressed starts at 2
        check_alive(conn, 99)
    consumed = clients.read_confluent(broker.bootstrap, topic, [0], 5)
    assert [(c.offset, c.key, c.value) for c in consumed] == expected
    if magic == 1:
        assert [c.timestamp for c in consumed] == stamps and {c.timestamp_type for c in consumed} == {"create"}


def test_v2_data_is_down_converted_for_fetch_v0_to_v3(broker, topic):
    """What a v2 producer wrote (keys, values, headers, timestamps, gzip) reaches an old consumer."""
    records = clients.make_records(30, timestamp_base=NOW)
    clients.produce_confluent(broker.bootstrap, topic, records, {"compression.type": "gzip", "linger.ms": 50})
    with RawConnection(broker.port) as conn:
        for fetch_version in (0, 3):
            got = fetch_all(conn, topic, fetch_version, len(records))
            assert [(o, k, v) for o, _, k, v, *_ in got] == [(i, r.key, r.value) for i, r in enumerate(records)]
            if fetch_version == 3:
                assert [g[4] for g in got] == [r.timestamp for r in records]


def test_log_append_time_topic(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"message.timestamp.type": "LogAppendTime"})
    before = int(time.time() * 1000)
    with RawConnection(broker.port) as conn:
        r = produce(conn, unique_topic, 2, legacy_message_set(1, RECORDS, GZIP))
        assert r.error_code == 0 and r.log_append_time_ms >= before
        got = fetch_all(conn, unique_topic, 3, len(RECORDS))
        assert [(g[4], g[5]) for g in got] == [(r.log_append_time_ms, 1)] * len(RECORDS)   # 1 = LogAppendTime
        # a producer may not claim LogAppendTime itself
        r = produce(conn, unique_topic, 2, legacy_message_set(1, RECORDS, 0, attributes=LOG_APPEND_TIME_BIT),
                    correlation_id=5)
        assert r.error_code == INVALID_TIMESTAMP


def _corrupt_value_byte(message_set: bytes) -> bytes:
    bad = bytearray(message_set)
    bad[-1] ^= 0x55
    return bytes(bad)


def test_crc_corrupt_legacy_messages_are_refused_and_nothing_is_appended(broker, topic):
    with RawConnection(broker.port) as conn:
        assert produce(conn, topic, 2, legacy_message_set(1, RECORDS[:1])).error_code == 0
        before = clients.segment_sizes(broker.log_dirs, topic, 0)
        # the outer message's CRC, uncompressed, for each old format
        for version, magic in ((0, 0), (2, 1)):
            r = produce(conn, topic, version, _corrupt_value_byte(legacy_message_set(magic, RECORDS)), correlation_id=5)
            assert r.error_code == CORRUPT_MESSAGE, f"magic {magic}"
        # an inner message of a gzip wrapper, the wrapper's own CRC right (the inner CRC is checked on its own)
        inner = bytearray(b"".join(legacy_message(1, i, k, v, ts) for i, (k, v, ts) in enumerate(RECORDS)))
        inner[40] ^= 0x55
        wrapper = legacy_message(1, len(RECORDS) - 1, None, compress(GZIP, bytes(inner)), NOW, GZIP)
        assert produce(conn, topic, 2, wrapper, correlation_id=6).error_code == CORRUPT_MESSAGE
        # v3+ carries magic 2 only, whatever the CRC
        assert produce(conn, topic, 3, legacy_message_set(1, RECORDS), correlation_id=8).error_code == INVALID_RECORD
        check_alive(conn, 99)
        assert clients.segment_sizes(broker.log_dirs, topic, 0) == before
        assert fetch(conn, topic, 3).high_watermark == 1


def test_malformed_compressed_sets_are_invalid(broker, topic):
    with RawConnection(broker.port) as conn:
        two_wrappers = legacy_message_set(1, RECORDS[:2], GZIP) + legacy_message_set(1, RECORDS[2:], GZIP)
        assert produce(conn, topic, 2, two_wrappers).error_code == INVALID_RECORD
        # magic 1 inner offsets must run 0, 1, 2, ...
        inner = b"".join(legacy_message(1, 5 * i, k, v, ts) for i, (k, v, ts) in enumerate(RECORDS))
        wrapper = legacy_message(1, 15, None, compress(GZIP, inner), NOW, GZIP)
        assert produce(conn, topic, 2, wrapper, correlation_id=4).error_code == INVALID_RECORD
        # every message of a request has the first one's magic
        mixed = legacy_message(0, 0, None, b"a") + legacy_message(1, 1, None, b"b", NOW)
        assert produce(conn, topic, 1, mixed, correlation_id=5).error_code == INVALID_RECORD
        assert fetch(conn, topic, 3).high_watermark == 0


def test_fetch_v3_sends_the_first_batch_whole_and_v2_keeps_the_hard_limit(broker, topic):
    clients.produce_confluent(broker.bootstrap, topic, [clients.Produced(0, b"big", b"B" * 5000, (), NOW)])
    with RawConnection(broker.port) as conn:
        # v3: max_bytes (and the partition's) smaller than the first batch: it comes whole (minOneMessage)
        got = decode_legacy(bytes(fetch(conn, topic, 3, partition_max_bytes=100, max_bytes=100).records))
        assert [(o, v) for o, _, _, v, *_ in got] == [(0, b"B" * 5000)]
        # v2: a hard limit; the partial batch converts to nothing (an old consumer must raise its fetch size)
        p = fetch(conn, topic, 2, partition_max_bytes=100)
        assert p.error_code == 0 and decode_legacy(bytes(p.records or b"")) == []


def test_down_conversion_can_be_disabled_per_topic(broker, unique_topic):
    clients.create_topic(broker.bootstrap, unique_topic, 1, {"message.downconversion.enable": "false"})
    clients.produce_confluent(broker.bootstrap, unique_topic, clients.make_records(3))
    with RawConnection(broker.port) as conn:
        assert fetch(conn, unique_topic, 3).error_code == UNSUPPORTED_VERSION
        assert fetch(conn, unique_topic, 4).error_code == 0        # v4+ reads magic 2 itself


@pytest.mark.parametrize("api_version,magic", [((0, 10), 1), ((0, 9), 0)], ids=["0.10-magic1", "0.9-magic0"])
def test_kafka_python_pinned_to_an_old_broker_produces_and_consumes(broker, topic, api_version, magic):
    """kafka-python pinned to 0.10 sends Produce v2 (magic 1) and Fetch v2; pinned to 0.9, Produce v1 (magic 0)
    and Fetch v1 (it drops record headers there, so the records have none)."""
    from kafka import KafkaConsumer, TopicPartition
    records = [clients.Produced(0, b"key-%d" % i, b"value-%d" % i, (), NOW + i) for i in range(20)]
    clients.produce_kafka_python(broker.bootstrap, topic, records, api_version=api_version,
                                 compression_type="gzip", linger_ms=20)
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, api_version=api_version, group_id=None,
                             enable_auto_commit=False, consumer_timeout_ms=10000)
    try:
        tp = TopicPartition(topic, 0)
        consumer.assign([tp])
        consumer.seek(tp, 0)
        got = []
        for m in consumer:
            got.append(m)
            if len(got) == len(records):
                break
    finally:
        consumer.close()
    assert [(m.offset, m.key, m.value) for m in got] == [(i, r.key, r.value) for i, r in enumerate(records)]
    if magic == 1:
        assert [m.timestamp for m in got] == [r.timestamp for r in records]
    consumed = clients.read_confluent(broker.bootstrap, topic, [0], len(records))
    assert [(c.key, c.value) for c in consumed] == [(r.key, r.value) for r in records]
    assert [c.timestamp for c in consumed] == ([r.timestamp for r in records] if magic == 1 else [-1] * len(records))


def test_transaction_markers_are_dropped_and_zstd_cannot_be_down_converted(broker, topic, unique_topic):
    """Kafka's RecordsUtil.downConvert: control batches go (an old consumer reads uncommitted data, markers
    would be garbage to it); a zstd batch has no magic 0/1 form: UNSUPPORTED_COMPRESSION_TYPE."""
    txn = clients.ConfluentTxnProducer(broker.bootstrap, f"{topic}-txn")
    try:
        txn.init()
        for commit in (True, False):
            txn.begin()
            txn.send(topic, 0, b"committed" if commit else b"aborted")
            txn.flush()                                   # written before the abort, not purged by it
            txn.commit() if commit else txn.abort()
    finally:
        txn.close()
    from support import wait_until
    with RawConnection(broker.port) as conn:
        # data 0, marker 1, data 2, marker 3 (the abort's marker is written after EndTxn returns)
        wait_until(lambda: fetch(conn, topic, 3).high_watermark == 4, 15, "both markers written", interval=0.05)
        got = decode_legacy(bytes(fetch(conn, topic, 3).records))
        assert [(o, v) for o, _, _, v, *_ in got] == [(0, b"committed"), (2, b"aborted")]
    zstd_topic = unique_topic + "-zstd"
    clients.create_topic(broker.bootstrap, zstd_topic, 1)
    clients.produce_confluent(broker.bootstrap, zstd_topic, clients.make_records(3), {"compression.type": "zstd"})
    with RawConnection(broker.port) as conn:
        assert fetch(conn, zstd_topic, 3).error_code == 76       # UNSUPPORTED_COMPRESSION_TYPE
        assert fetch(conn, zstd_topic, 11).error_code == 0


@pytest.mark.parametrize("fallback,codec,magic", [("0.9.0", "lz4", 0), ("0.10.0", "snappy", 1)],
                         ids=["librdkafka-0.9-lz4", "librdkafka-0.10-snappy"])
def test_librdkafka_pinned_to_an_old_broker(broker, topic, fallback, codec, magic):
    """librdkafka without ApiVersions (``broker.version.fallback``) sends Produce v1 with magic 0 (its LZ4 frames
    carry 0.8-0.9's header checksum) or Produce v2 with magic 1, and fetches with Fetch v1 / v2."""
    pinned = {"api.version.request": False, "broker.version.fallback": fallback, "log_level": 0}
    records = [clients.Produced(0, b"key-%d" % i, b"value-%d" % i * 10, (), NOW + i) for i in range(25)]
    clients.produce_confluent(broker.bootstrap, topic, records, {**pinned, "compression.type": codec})
    for config in (pinned, None):                  # read back pinned (down-converted) and current (stored v2)
        got = clients.read_confluent(broker.bootstrap, topic, [0], len(records), timeout=30, config=config)
        assert [(c.offset, c.key, c.value) for c in got] == [(i, r.key, r.value) for i, r in enumerate(records)]
        if magic == 1:
            assert [c.timestamp for c in got] == [r.timestamp for r in records]
