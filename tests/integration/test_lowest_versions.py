"""No Kafka counterpart: issue 19's first Done-when point, on raw frames against a broker process.

Kafka 4.0 removed the oldest request versions (KIP-896); Kafka 2.4 through 3.9 accept them and
many clients in the wild (sarama 1.22's consumer group sends OffsetCommit v1) still send them.
This test sends the lowest version Kafka 3.9 accepts of every API the broker advertises and
checks, on the same connection, a well-formed answer (the whole frame parses as that version's
response, correlation id matching) and that the connection stays open; and that ApiVersions
advertises Kafka 3.9's minimums.

Produce v0 and Fetch v0 are in the table too (message formats v0/v1: the Produce v0 request carries a
magic 0 message, which the broker up-converts; Fetch v0 reads everything back down-converted to magic 0;
tests/integration/test_message_formats.py has the rest).
Controller-to-broker APIs (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown) are sent
with a stale controller epoch or an unknown broker id and must answer an error, not close.
"""
from __future__ import annotations

import struct
import zlib

import pytest

from clients import make_records, produce_kafka_python, raw_request
from harness import RawConnection, check_alive, parse_api_versions_v0
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.messages import (controlled_shutdown, create_topics, delete_topics, describe_configs, fetch,
                                         list_offsets, metadata, offset_commit, offset_fetch,
                                         offset_for_leader_epoch, produce)

# The minimum of "validVersions" in clients/src/main/resources/common/message/<Api>Request.json at Kafka's tag
# 3.9.0-rc3, for every API kafkalite serves (2.4.0's minimums are the same or lower: all 0).
KAFKA_39_MIN = {
    0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0, 8: 0, 9: 0, 10: 0, 11: 0, 12: 0, 13: 0, 14: 0, 15: 0,
    16: 0, 17: 0, 18: 0, 19: 0, 20: 0, 21: 0, 22: 0, 23: 0, 24: 0, 25: 0, 26: 0, 27: 0, 28: 0, 29: 0, 30: 0,
    31: 0, 32: 0, 33: 0, 34: 0, 35: 0, 36: 0, 37: 0, 42: 0, 43: 0, 44: 0, 45: 0, 46: 0, 47: 0, 50: 0, 51: 0,
    48: 0, 49: 0, 60: 0, 61: 0, 65: 0, 66: 0, 68: 0, 69: 0, 75: 0,
}
KNOWN_EXCEPTIONS: dict[int, str] = {}            # every served API answers its Kafka 3.9 minimum
ADVERTISED_MIN_EXCEPTIONS: dict[int, int] = {}

TOPIC, DELETED, GROUP = "lowest-versions", "lowest-versions-deleted", "lowest-versions-g"


def _bodies(broker_id_unknown: int = 999) -> dict:
    """Requests whose default body would say little: each names the test's topic or group."""
    part0 = {"partition_index": 0}
    return {
        # one magic 0 message (offset, size, crc, magic 0, attributes 0, key "k0", value "v0")
        ApiKeys.PRODUCE: produce.ProduceRequest(acks=1, timeout_ms=10000, topic_data=[produce.TopicProduceData(
            name=TOPIC, partition_data=[produce.PartitionProduceData(index=0, records=_magic0_message(b"k0", b"v0"))])]),
        ApiKeys.FETCH: fetch.FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=0, topics=[fetch.FetchTopic(
            topic=TOPIC, partitions=[fetch.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])]),
        ApiKeys.CREATE_TOPICS: create_topics.CreateTopicsRequest(topics=[
            create_topics.CreatableTopic(name=DELETED, num_partitions=1, replication_factor=1)], timeout_ms=30000),
        ApiKeys.METADATA: metadata.MetadataRequest(topics=[]),   # v0: an empty list asks for every topic
        ApiKeys.LIST_OFFSETS: list_offsets.ListOffsetsRequest(replica_id=-1, topics=[list_offsets.ListOffsetsTopic(
            name=TOPIC, partitions=[list_offsets.ListOffsetsPartition(**part0, timestamp=-1, max_num_offsets=10)])]),
        ApiKeys.OFFSET_COMMIT: offset_commit.OffsetCommitRequest(group_id=GROUP, topics=[
            offset_commit.OffsetCommitRequestTopic(name=TOPIC, partitions=[offset_commit.OffsetCommitRequestPartition(
                **part0, committed_offset=2, committed_metadata=None)])]),
        ApiKeys.OFFSET_FETCH: offset_fetch.OffsetFetchRequest(group_id=GROUP, topics=[
            offset_fetch.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])]),
        ApiKeys.OFFSET_FOR_LEADER_EPOCH: offset_for_leader_epoch.OffsetForLeaderEpochRequest(topics=[
            offset_for_leader_epoch.OffsetForLeaderTopic(topic=TOPIC, partitions=[
                offset_for_leader_epoch.OffsetForLeaderPartition(partition=0, leader_epoch=0)])]),
        ApiKeys.DESCRIBE_CONFIGS: describe_configs.DescribeConfigsRequest(resources=[
            describe_configs.DescribeConfigsResource(resource_type=2, resource_name=TOPIC, configuration_keys=None)]),
        ApiKeys.DELETE_TOPICS: delete_topics.DeleteTopicsRequest(topic_names=[DELETED], timeout_ms=30000),
        ApiKeys.CONTROLLED_SHUTDOWN: controlled_shutdown.ControlledShutdownRequest(broker_id=broker_id_unknown),
    }


def _magic0_message(key: bytes, value: bytes) -> bytes:
    body = b"\x00\x00" + struct.pack(">i", len(key)) + key + struct.pack(">i", len(value)) + value
    message = struct.pack(">I", zlib.crc32(body)) + body
    return struct.pack(">qi", 0, len(message)) + message


@pytest.fixture(scope="module")
def old_broker(tmp_path_factory):
    from harness import BrokerProcess
    b = BrokerProcess(tmp_path_factory.mktemp("lowest-versions"), {"num.partitions": 1})
    b.start()
    produce_kafka_python(b.bootstrap, TOPIC, make_records(3))   # auto-creates the topic, 3 records
    yield b
    b.stop()


def _advertised(port: int) -> dict[int, tuple[int, int]]:
    with RawConnection(port) as conn:
        conn.send_request(18, 0, 1)
        _, error, ranges = parse_api_versions_v0(conn.recv_frame())
        assert error == 0
        return ranges


def test_api_versions_advertises_kafka_39_minimums(old_broker):
    ranges = _advertised(old_broker.port)
    assert set(ranges) == set(KAFKA_39_MIN), "a served API is missing from the Kafka 3.9 table (or vice versa)"
    for key, (lo, _hi) in ranges.items():
        assert lo == ADVERTISED_MIN_EXCEPTIONS.get(key, KAFKA_39_MIN[key]), f"api key {key}"


def test_lowest_version_of_every_api_gets_a_well_formed_answer(old_broker):
    ranges = _advertised(old_broker.port)
    bodies = _bodies()
    answers = {}
    # CreateTopics first (DeleteTopics removes what it made), every other API in key order
    order = [ApiKeys.CREATE_TOPICS] + [ApiKeys(k) for k in sorted(ranges) if k != ApiKeys.CREATE_TOPICS.id]
    with RawConnection(old_broker.port, timeout=30) as conn:
        for corr, api in enumerate(order, start=100):
            if api.id in KNOWN_EXCEPTIONS:
                continue
            version = KAFKA_39_MIN[api.id]
            body = bodies.get(api) or api.request_class()
            try:
                answers[api] = raw_request(conn, api.id, version, body, correlation_id=corr)
            except ConnectionError as e:
                pytest.fail(f"{api.api_name} v{version}: {e}\n{old_broker.log_tail()}")
            check_alive(conn, corr + 1000)

    # what the old versions mean (Kafka 2.4's answers)
    [produced] = answers[ApiKeys.PRODUCE].responses[0].partition_responses
    assert (produced.error_code, produced.base_offset) == (0, 3)          # after kafka-python's 3 records
    [fetched_v0] = answers[ApiKeys.FETCH].responses[0].partitions
    assert (fetched_v0.error_code, fetched_v0.high_watermark) == (0, 4)
    records = bytes(fetched_v0.records)
    assert records[16] == 0 and records.endswith(_magic0_message(b"k0", b"v0")[8:])   # magic 0, offset 3 kept
    assert [t.error_code for t in answers[ApiKeys.CREATE_TOPICS].topics] == [0]
    assert [r.error_code for r in answers[ApiKeys.DELETE_TOPICS].responses] == [0]
    assert TOPIC in {t.name for t in answers[ApiKeys.METADATA].topics}     # v0: [] = every topic
    [lo_part] = answers[ApiKeys.LIST_OFFSETS].topics[0].partitions
    assert (lo_part.error_code, lo_part.old_style_offsets) == (0, [4, 0])   # log end, then the segment's base
    [commit] = answers[ApiKeys.OFFSET_COMMIT].topics[0].partitions
    assert commit.error_code == 0
    [fetched] = answers[ApiKeys.OFFSET_FETCH].topics[0].partitions
    assert (fetched.error_code, fetched.committed_offset) == (0, 2)      # v0 reads what v0 committed
    [epoch] = answers[ApiKeys.OFFSET_FOR_LEADER_EPOCH].topics[0].partitions
    assert (epoch.error_code, epoch.end_offset) == (0, 4)
    [described] = answers[ApiKeys.DESCRIBE_CONFIGS].results
    entries = {c.name: c for c in described.configs}
    assert described.error_code == 0 and entries["cleanup.policy"].is_default
    # controller-to-broker requests from a client: an error answer, not a closed connection
    for api in (ApiKeys.LEADER_AND_ISR, ApiKeys.STOP_REPLICA, ApiKeys.UPDATE_METADATA):
        assert answers[api].error_code != 0, api
    assert answers[ApiKeys.CONTROLLED_SHUTDOWN].error_code != 0


def test_offset_commit_v1_with_a_timestamp_then_v1_fetch_reads_it(old_broker):
    """sarama 1.22's consumer group commits with v1; offsets go to the group coordinator (not ZooKeeper)."""
    req = offset_commit.OffsetCommitRequest(group_id=GROUP + "-v1", generation_id=-1, member_id="", topics=[
        offset_commit.OffsetCommitRequestTopic(name=TOPIC, partitions=[offset_commit.OffsetCommitRequestPartition(
            partition_index=0, committed_offset=1, commit_timestamp=1_000_000, committed_metadata="m")])])
    fetch = offset_fetch.OffsetFetchRequest(group_id=GROUP + "-v1", topics=[
        offset_fetch.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])])
    with RawConnection(old_broker.port, timeout=30) as conn:
        [p] = raw_request(conn, 8, 1, req, correlation_id=1).topics[0].partitions
        assert p.error_code == 0
        [f] = raw_request(conn, 9, 1, fetch, correlation_id=2).topics[0].partitions
        assert (f.error_code, f.committed_offset, f.metadata) == (0, 1, "m")
        # v0 reads ZooKeeper, where nothing was committed for this group
        [z] = raw_request(conn, 9, 0, fetch, correlation_id=3).topics[0].partitions
        assert (z.error_code, z.committed_offset) == (0, -1)
        check_alive(conn, 4)


@pytest.mark.parametrize("api_version,commit_version", [((0, 8, 1), 0), ((0, 8, 2), 1)], ids=["0.8.1", "0.8.2"])
def test_kafka_python_pinned_to_an_old_broker_commits_and_reads_back(old_broker, api_version, commit_version):
    """kafka-python pinned to 0.8.1 sends Metadata v0 and OffsetCommit/OffsetFetch v0 (ZooKeeper, as 2.4 stores
    them); pinned to 0.8.2, FindCoordinator v0 and OffsetCommit/OffsetFetch v1 (the group coordinator)."""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata
    group = f"{GROUP}-kafka-python-{commit_version}"
    consumer = KafkaConsumer(bootstrap_servers=old_broker.bootstrap, group_id=group, api_version=api_version,
                             enable_auto_commit=False, request_timeout_ms=15000)
    try:
        tp = TopicPartition(TOPIC, 0)
        consumer.assign([tp])
        consumer.commit({tp: OffsetAndMetadata(2, "meta", -1)})
        assert consumer.committed(tp) == 2
    finally:
        consumer.close()
    # where the commit went: v0 reads ZooKeeper, v1 the group coordinator; the other store has nothing
    fetch = offset_fetch.OffsetFetchRequest(group_id=group, topics=[
        offset_fetch.OffsetFetchRequestTopic(name=TOPIC, partition_indexes=[0])])
    with RawConnection(old_broker.port, timeout=30) as conn:
        stored = {v: raw_request(conn, 9, v, fetch, correlation_id=v + 1).topics[0].partitions[0].committed_offset
                  for v in (0, 1)}
    assert stored == {commit_version: 2, 1 - commit_version: -1}


def test_offset_commit_v0_refuses_a_partition_the_broker_does_not_know(old_broker):
    """2.4 checks the partition before writing its znode: no /consumers node for partitions that do not exist."""
    req = offset_commit.OffsetCommitRequest(group_id=GROUP + "-bad", topics=[
        offset_commit.OffsetCommitRequestTopic(name=TOPIC, partitions=[
            offset_commit.OffsetCommitRequestPartition(partition_index=p, committed_offset=1, committed_metadata=None)
            for p in (0, 99)])])
    with RawConnection(old_broker.port, timeout=30) as conn:
        answer = raw_request(conn, 8, 0, req, correlation_id=1).topics[0].partitions
        assert [(p.partition_index, p.error_code) for p in answer] == [(0, 0), (99, 3)]   # UNKNOWN_TOPIC_OR_PARTITION
        check_alive(conn, 2)


def test_a_v0_group_joins_syncs_heartbeats_commits_and_leaves(old_broker):
    """The group APIs at v0 doing real work on one connection: JoinGroup v0 has no rebalance timeout (the session
    timeout stands in, as in 2.4), then SyncGroup, Heartbeat, OffsetCommit v1 with the generation, DescribeGroups and
    LeaveGroup, all at their lowest versions."""
    from support import wait_until
    from kafkalite.protocol.messages import (describe_groups as dg, find_coordinator as fc, heartbeat as hb,
                                             join_group as jg, leave_group as lg, sync_group as sg)
    group = GROUP + "-members"
    with RawConnection(old_broker.port, timeout=30) as conn:
        corr = iter(range(1, 1000))
        wait_until(lambda: raw_request(conn, 10, 0, fc.FindCoordinatorRequest(key=group),
                                       correlation_id=next(corr)).error_code == 0, 20, "the group coordinator")
        joined = raw_request(conn, 11, 0, jg.JoinGroupRequest(
            group_id=group, session_timeout_ms=10_000, member_id="", protocol_type="consumer",
            protocols=[jg.JoinGroupRequestProtocol(name="range", metadata=b"sub")]), correlation_id=next(corr))
        assert (joined.error_code, joined.protocol_name, joined.leader) == (0, "range", joined.member_id)
        member, generation = joined.member_id, joined.generation_id
        synced = raw_request(conn, 14, 0, sg.SyncGroupRequest(
            group_id=group, generation_id=generation, member_id=member,
            assignments=[sg.SyncGroupRequestAssignment(member_id=member, assignment=b"all of it")]),
            correlation_id=next(corr))
        assert (synced.error_code, synced.assignment) == (0, b"all of it")
        beat = hb.HeartbeatRequest(group_id=group, generation_id=generation, member_id=member)
        assert raw_request(conn, 12, 0, beat, correlation_id=next(corr)).error_code == 0
        committed = raw_request(conn, 8, 1, offset_commit.OffsetCommitRequest(
            group_id=group, generation_id=generation, member_id=member, topics=[offset_commit.OffsetCommitRequestTopic(
                name=TOPIC, partitions=[offset_commit.OffsetCommitRequestPartition(
                    partition_index=0, committed_offset=3, committed_metadata=None)])]), correlation_id=next(corr))
        assert committed.topics[0].partitions[0].error_code == 0
        [described] = raw_request(conn, 15, 0, dg.DescribeGroupsRequest(groups=[group]),
                                  correlation_id=next(corr)).groups
        assert (described.group_state, described.protocol_data, [m.member_id for m in described.members]) == \
            ("Stable", "range", [member])
        assert raw_request(conn, 13, 0, lg.LeaveGroupRequest(group_id=group, member_id=member),
                           correlation_id=next(corr)).error_code == 0
        check_alive(conn, next(corr))
