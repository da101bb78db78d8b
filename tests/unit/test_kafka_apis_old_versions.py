"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (the offset-commit cases), for the
old OffsetCommit versions issue 19 accepts again: v1's per-partition commit timestamp becomes the commit's time
(-1: the broker's clock), v2-4's retention time sets the expiry, and v0 goes to ZooKeeper, not the coordinator;
every version answers UNKNOWN_TOPIC_OR_PARTITION for a partition the topic lacks (2.4 looks up the partition).
Also JoinGroup v0/v1 (sarama 1.22 sends v1): v0's session timeout stands in for the rebalance timeout."""
import pytest

from test_kafka_apis import BodyRequest, apis_with

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import offset_commit as oc


class CommitRecorder:
    def __init__(self):
        self.calls = []

    def handle_commit_offsets(self, group_id, member_id, group_instance_id, generation_id, offsets, callback,
                              api_version=9):
        self.calls.append((group_id, member_id, generation_id, offsets))
        callback({tp: Errors.NONE for tp in offsets})


class ZkRecorder:
    def __init__(self):
        self.offsets = {}

    def set_or_create_consumer_offset(self, group, tp, offset):
        self.offsets[(group, tp)] = offset


def commit(version, commit_timestamp=-1, retention_time_ms=-1, partition=0):
    return oc.OffsetCommitRequest(group_id="g", generation_id=3 if version else -1, member_id="m" if version else "",
                                  retention_time_ms=retention_time_ms, topics=[oc.OffsetCommitRequestTopic(
                                      name="foo", partitions=[oc.OffsetCommitRequestPartition(
                                          partition_index=partition, committed_offset=15,
                                          commit_timestamp=commit_timestamp, committed_metadata=None)])])


@pytest.mark.parametrize("version,commit_timestamp,retention,expected", [
    (1, 500, -1, (500, None)),        # v1: the client's timestamp
    (1, -1, -1, (1000, None)),        # v1 default: now
    (2, -1, 60_000, (1000, 61_000)),  # v2-4: retention from now
    (5, -1, -1, (1000, None)),        # v5+: the broker's offsets.retention.minutes rules
])
def test_commit_timestamp_and_expiry_by_version(version, commit_timestamp, retention, expected):
    coordinator, sent = CommitRecorder(), []
    body = commit(version, commit_timestamp if version == 1 else -1, retention if 2 <= version <= 4 else -1)
    apis_with(coordinator, sent).handle_offset_commit_request(BodyRequest(body, version))
    [(group_id, member_id, generation_id, offsets)] = coordinator.calls
    assert (group_id, member_id, generation_id) == ("g", "m", 3)
    [om] = offsets.values()
    assert (om.commit_timestamp, om.expire_timestamp) == expected
    assert sent[0].topics[0].partitions[0].error_code == 0


def test_v0_goes_to_zookeeper_not_the_coordinator():
    coordinator, sent, zk = CommitRecorder(), [], ZkRecorder()
    apis = apis_with(coordinator, sent)
    apis.zk_client = zk
    apis.config = type("C", (), {"get": staticmethod(lambda name: 4096)})()
    apis.handle_offset_commit_request(BodyRequest(commit(0), 0))
    apis.handle_offset_commit_request(BodyRequest(commit(0, partition=1), 0))   # foo has one partition
    assert coordinator.calls == []
    assert zk.offsets == {("g", TopicPartition("foo", 0)): 15}
    assert [r.topics[0].partitions[0].error_code for r in sent] == [0, Errors.UNKNOWN_TOPIC_OR_PARTITION.code]


@pytest.mark.parametrize("version", [1, 2, 5, 8])
@pytest.mark.parametrize("partition", [-1, 1])   # foo has one partition
def test_offset_commit_with_invalid_partition(version, partition):
    # Kafka: KafkaApisTest.testOffsetCommitWithInvalidPartition -- 2.4 looks the partition up
    # (metadataCache.contains(topicPartition)), not only the topic: a partition the topic lacks answers
    # UNKNOWN_TOPIC_OR_PARTITION and never reaches the coordinator, in every version
    coordinator, sent = CommitRecorder(), []
    apis_with(coordinator, sent).handle_offset_commit_request(BodyRequest(commit(version, partition=partition), version))
    assert coordinator.calls == []
    [topic] = sent[0].topics
    assert [(p.partition_index, p.error_code) for p in topic.partitions] == \
        [(partition, Errors.UNKNOWN_TOPIC_OR_PARTITION.code)]


class JoinRecorder:
    def __init__(self):
        self.timeouts = []

    def handle_join_group(self, group_id, member_id, group_instance_id, require_known_member_id, client_id,
                          client_host, rebalance_timeout_ms, session_timeout_ms, protocol_type, protocols, callback):
        self.timeouts.append((rebalance_timeout_ms, session_timeout_ms, require_known_member_id))


@pytest.mark.parametrize("version,expected", [
    (0, (10_000, 10_000, False)),   # v0 has no rebalance timeout: the session timeout stands in
    (1, (60_000, 10_000, False)),   # v1 (sarama 1.22's): the member's own
    (4, (60_000, 10_000, True)),    # KIP-394: from v4 a new member must rejoin with the id it is given
])
def test_join_group_rebalance_timeout_by_version(version, expected):
    # Kafka 2.4: KafkaApis.handleJoinGroupRequest -- "Only return MEMBER_ID_REQUIRED error if joinGroupRequest
    # version is >= 4"; v0's rebalanceTimeoutMs is its sessionTimeoutMs
    from kafkalite.protocol.messages import join_group as jg
    coordinator = JoinRecorder()
    apis = apis_with(coordinator, [])
    request = BodyRequest(jg.JoinGroupRequest(
        group_id="g", session_timeout_ms=10_000, rebalance_timeout_ms=60_000 if version else -1, member_id="",
        protocol_type="consumer", protocols=[jg.JoinGroupRequestProtocol(name="range", metadata=b"")]), version)
    request.context = type("Ctx", (), {"client_address": "127.0.0.1"})()
    apis.handle_join_group_request(request)
    assert coordinator.timeouts == [expected]
