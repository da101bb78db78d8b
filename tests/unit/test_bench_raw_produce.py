"""No Kafka counterpart: bench/raw_produce.py (issue 18's broker-alone large-batch row) without a broker.

The prepared request must be a Produce v7 request the broker reads as meant (topic, partition, acks, one
batch of the records asked for), and the reader must count every bad response as an error: a non-zero
error_code, an out-of-order correlation id, a missing response. Canned responses go through a socketpair
or a one-connection listener on 127.0.0.1.
"""
import socket
import struct
import threading

from bench import raw_produce
from kafkalite.protocol.messages.produce import (
    PartitionProduceResponse, ProduceResponse, TopicProduceResponse,
)
from kafkalite.protocol.produce_fast_path import read_produce_request, write_produce_response
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body
from kafkalite.record.memory_records import MemoryRecords

NOT_LEADER_FOR_PARTITION = 6


def _response_frame(correlation_id: int, topic: str, error_code: int = 0) -> bytes:
    body = write_produce_response(ProduceResponse(responses=[TopicProduceResponse(name=topic, partition_responses=[
        PartitionProduceResponse(index=0, error_code=error_code, base_offset=0 if error_code == 0 else -1)])]), 7)
    return struct.pack(">ii", 4 + len(body), correlation_id) + body


def test_prepared_request_is_a_produce_v7_request_of_one_batch():
    batch = raw_produce.prepare_batch(record_size=1000, records_per_batch=7)
    body = raw_produce.prepare_request("raw-topic", batch)
    frame = raw_produce.request_header(42, len(body)) + body
    assert struct.unpack_from(">i", frame)[0] == len(frame) - 4

    header, offset = RequestHeader.parse(memoryview(frame), 4)
    assert (header.api_key, header.api_version, header.correlation_id) == (0, 7, 42)
    assert header.client_id == "bench-raw"

    for request in (read_produce_request(7, memoryview(frame), offset), parse_request_body(header, frame, offset)):
        assert request is not None
        assert request.transactional_id is None and request.acks == 1 and request.timeout_ms == 30000
        [topic] = request.topic_data
        assert topic.name == "raw-topic"
        [part] = topic.partition_data
        assert part.index == 0
        [b] = list(MemoryRecords.readable_records(bytes(part.records)).batches())
        assert b.count == 7
        b.ensure_valid()   # the CRC holds: the broker will accept the same bytes again and again
        assert [len(r.value) for r in MemoryRecords.readable_records(bytes(part.records)).records()] == [1000] * 7


def test_reader_counts_error_codes_wrong_correlation_ids_and_missing_responses():
    a, b = socket.socketpair()
    try:
        b.sendall(_response_frame(0, "t") + _response_frame(1, "t", NOT_LEADER_FOR_PARTITION)
                  + _response_frame(7, "t") + _response_frame(3, "t"))
        b.close()
        got = raw_produce.read_responses(a, 5, "t")
    finally:
        a.close()
    # 1: error code, 2: correlation id 7 where 2 was due, 4: never came
    assert got["responses"] == 4
    assert got["errors"] == 3
    assert "error codes [6]" in got["first_error"]


def test_reader_accepts_good_responses():
    a, b = socket.socketpair()
    try:
        b.sendall(b"".join(_response_frame(i, "t") for i in range(3)))
        got = raw_produce.read_responses(a, 3, "t")
    finally:
        a.close()
        b.close()
    assert got == {"responses": 3, "errors": 0, "first_error": None}


def test_worker_reports_no_throughput_when_the_broker_answers_with_errors():
    srv = socket.create_server(("127.0.0.1", 0))
    port = srv.getsockname()[1]

    def broker():   # reads each request whole, answers NOT_LEADER_FOR_PARTITION to the second
        conn, _ = srv.accept()
        with conn, conn.makefile("rb") as f:
            i = 0
            while head := f.read(4):
                request = f.read(struct.unpack(">i", head)[0])
                cid = struct.unpack_from(">i", request, 4)[0]
                conn.sendall(_response_frame(cid, "t", NOT_LEADER_FOR_PARTITION if i == 1 else 0))
                i += 1

    th = threading.Thread(target=broker, daemon=True)
    th.start()
    try:
        out = raw_produce.raw_produce(f"127.0.0.1:{port}", "t", total_mb=3, record_size=16384,
                                      records_per_batch=63, create_topic=False)
    finally:
        th.join(10)
        srv.close()
    assert out["requests"] == 3
    assert out["errors"] == 1
    assert out["mb_per_s"] is None and out["records_per_s"] is None
