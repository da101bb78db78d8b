"""No Kafka counterpart (the scenario of NetworkClientTest/ApiVersions with a whole producer): kafkalite's
KafkaProducer against a socket-level broker double that knows only old versions -- ApiVersions v0-2, Metadata
v0-4, Produce v3 -- negotiates down (S42) and its Produce request arrives at v3 with a valid v2 batch."""
import struct

import pytest

from kafkalite.clients.producer.kafka_producer import KafkaProducer
from kafkalite.protocol import schema
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.api_versions import ApiVersion, ApiVersionsResponse
from kafkalite.protocol.messages.metadata import (
    MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic)
from kafkalite.protocol.messages.produce import (
    PartitionProduceResponse, ProduceRequest, ProduceResponse, TopicProduceResponse)
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.response_header import ResponseHeader
from kafkalite.record.memory_records import MemoryRecords
from socket_doubles import SocketBrokerDouble, recv_frame

pytestmark = pytest.mark.timeout(60)

SUPPORTED = {ApiKeys.API_VERSIONS.id: (0, 2), ApiKeys.METADATA.id: (0, 4), ApiKeys.PRODUCE.id: (3, 3)}



class OldBroker(SocketBrokerDouble):
    def __init__(self):
        self.headers: list[RequestHeader] = []
        self.records: list[MemoryRecords] = []
        super().__init__(4)

    def _respond(self, conn, header, body, version):
        payload = ResponseHeader(correlation_id=header.correlation_id).to_bytes(0) + schema.write(body, version)
        conn.sendall(struct.pack(">i", len(payload)) + payload)

    def _serve(self, conn):
        try:
            while True:
                frame = recv_frame(conn)
                header, offset = RequestHeader.parse(frame)
                self.headers.append(header)
                lo, hi = SUPPORTED.get(header.api_key, (0, -1))
                if header.api_key == ApiKeys.API_VERSIONS.id:
                    if header.api_version > hi:   # KIP-511: refuse, in v0, with our own range
                        self._respond(conn, header, ApiVersionsResponse(
                            error_code=Errors.UNSUPPORTED_VERSION.code,
                            api_keys=[ApiVersion(api_key=18, min_version=0, max_version=2)]), 0)
                    else:
                        self._respond(conn, header, ApiVersionsResponse(error_code=0, api_keys=[
                            ApiVersion(api_key=k, min_version=a, max_version=b) for k, (a, b) in SUPPORTED.items()]),
                            header.api_version)
                elif not lo <= header.api_version <= hi:
                    return   # an old broker closes the connection on a version it does not know
                elif header.api_key == ApiKeys.METADATA.id:
                    self._respond(conn, header, MetadataResponse(
                        brokers=[MetadataResponseBroker(node_id=0, host="127.0.0.1", port=self.port)],
                        controller_id=0, topics=[MetadataResponseTopic(error_code=0, name="old", partitions=[
                            MetadataResponsePartition(error_code=0, partition_index=0, leader_id=0,
                                                      replica_nodes=[0], isr_nodes=[0])])]), header.api_version)
                elif header.api_key == ApiKeys.PRODUCE.id:
                    body, _ = schema.read(ProduceRequest, header.api_version, frame, offset)
                    partitions = []
                    for topic in body.topic_data:
                        for p in topic.partition_data:
                            self.records.append(MemoryRecords(bytes(p.records)))
                            partitions.append(PartitionProduceResponse(index=p.index, error_code=0,
                                                                       base_offset=len(self.records) - 1))
                    self._respond(conn, header, ProduceResponse(responses=[
                        TopicProduceResponse(name="old", partition_responses=partitions)]), header.api_version)
                else:
                    return
        except (EOFError, OSError):
            pass
        finally:
            conn.close()



def test_producer_negotiates_down_to_produce_v3():
    broker = OldBroker()
    producer = KafkaProducer({"bootstrap.servers": f"127.0.0.1:{broker.port}", "max.block.ms": 10000,
                              "request.timeout.ms": 10000})
    try:
        metadata = producer.send("old", b"hello", key=b"k").get(20)
        assert (metadata.topic, metadata.partition, metadata.offset) == ("old", 0, 0)
    finally:
        producer.close(5)
        broker.close()
    api_versions = [h.api_version for h in broker.headers if h.api_key == ApiKeys.API_VERSIONS.id]
    assert api_versions[:2] == [ApiKeys.API_VERSIONS.max_version, 2]     # refused, then the broker's newest
    assert {h.api_version for h in broker.headers if h.api_key == ApiKeys.METADATA.id} == {4}
    assert [h.api_version for h in broker.headers if h.api_key == ApiKeys.PRODUCE.id] == [3]
    batch = broker.records[0].first_batch()
    assert batch.is_valid() and batch.magic == 2
    assert [(r.key, r.value) for r in broker.records[0].records()] == [(b"k", b"hello")]
