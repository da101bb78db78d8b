"""No Kafka counterpart: group requests with bad fields, sent over a raw socket (issue 4,
"Done when": bad input).

Kafka 2.4's GroupCoordinator answers, and changes nothing:
- Heartbeat from a member with another generation: ILLEGAL_GENERATION; from a member id the
  group does not hold: UNKNOWN_MEMBER_ID (``handleHeartbeat``); JoinGroup, SyncGroup and
  OffsetCommit check the same (``doJoinGroup``, ``doSyncGroup``, ``doCommitOffsets``).
- JoinGroup with a session timeout below ``group.min.session.timeout.ms`` or above
  ``group.max.session.timeout.ms``: INVALID_SESSION_TIMEOUT, checked before the group is even
  looked up, so no group is created and a known member stays as it was (``handleJoinGroup``).
- OffsetFetch for a group it never saw: offset -1 and no error for every partition
  (``handleFetchOffsets``).
- OffsetCommit with generation -1 and an empty member id, the form a consumer that only
  ``assign()``s sends: accepted while the group has no members (``handleCommitOffsets``).
After each bad request a real client (kafka-python) still joins that group and consumes.
Requests are built and parsed with ``kafkalite.protocol``; every wait is bounded.
"""
import pytest

from clients import create_topic, raw_request
from harness import BrokerProcess, RawConnection, wait_until
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages.consumer_protocol import (
    ConsumerProtocolAssignment, ConsumerProtocolSubscription, ConsumerProtocolTopicPartition,
    serialize_assignment, serialize_subscription)
from kafkalite.protocol.messages.describe_groups import DescribeGroupsRequest
from kafkalite.protocol.messages.find_coordinator import FindCoordinatorRequest
from kafkalite.protocol.messages.heartbeat import HeartbeatRequest
from kafkalite.protocol.messages.join_group import JoinGroupRequest, JoinGroupRequestProtocol
from kafkalite.protocol.messages.leave_group import LeaveGroupRequest, MemberIdentity
from kafkalite.protocol.messages.offset_commit import (
    OffsetCommitRequest, OffsetCommitRequestPartition, OffsetCommitRequestTopic)
from kafkalite.protocol.messages.offset_fetch import OffsetFetchRequest, OffsetFetchRequestTopic
from kafkalite.protocol.messages.sync_group import SyncGroupRequest, SyncGroupRequestAssignment

kafka = pytest.importorskip("kafka")

FIND_COORDINATOR, JOIN_GROUP, HEARTBEAT, LEAVE_GROUP, SYNC_GROUP = 10, 11, 12, 13, 14
OFFSET_COMMIT, OFFSET_FETCH, DESCRIBE_GROUPS = 8, 9, 15
MAX_SESSION_MS = 30000
PARTITIONS, RECORDS = 3, 30
OVERRIDES = {"group.initial.rebalance.delay.ms": "0", "offsets.topic.num.partitions": "4",
             "offsets.topic.replication.factor": "1", "group.min.session.timeout.ms": "1000",
             "group.max.session.timeout.ms": str(MAX_SESSION_MS), "auto.create.topics.enable": "true"}


@pytest.fixture(scope="module")
def gbroker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("group-bad-input-broker"), OVERRIDES)
    b.start()
    yield b
    b.stop()
    print(f"\n--- last lines of {b.log_path}:\n{b.log_tail(60)}")


@pytest.fixture
def topic(gbroker, unique_topic):
    """A 3-partition topic holding RECORDS records, values "0".."29"."""
    create_topic(gbroker.bootstrap, unique_topic, PARTITIONS)
    producer = kafka.KafkaProducer(bootstrap_servers=gbroker.bootstrap, acks=1)
    for i in range(RECORDS):
        producer.send(unique_topic, value=str(i).encode(), partition=i % PARTITIONS)
    producer.flush(timeout=30)
    producer.close()
    return unique_topic


@pytest.fixture
def conn(gbroker):
    with RawConnection(gbroker.port, timeout=20) as c:
        yield c


class Raw:
    """Numbered requests on one connection."""

    def __init__(self, conn):
        self.conn, self.correlation_id = conn, 0

    def __call__(self, api_key, version, body):
        self.correlation_id += 1
        return raw_request(self.conn, api_key, version, body, correlation_id=self.correlation_id)


def find_coordinator(raw, group):
    """Until the coordinator is known (the first call creates ``__consumer_offsets``)."""
    def found():
        r = raw(FIND_COORDINATOR, 3, FindCoordinatorRequest(key=group, key_type=0))
        return r if r.error_code == 0 else None
    return wait_until(found, timeout=20, message=f"a coordinator for {group}", interval=0.1)


def join(raw, group, topic, session_ms=6000, member_id="", version=5):
    body = JoinGroupRequest(
        group_id=group, session_timeout_ms=session_ms, rebalance_timeout_ms=10000, member_id=member_id,
        protocol_type="consumer",
        protocols=[JoinGroupRequestProtocol(
        name="range", metadata=serialize_subscription(ConsumerProtocolSubscription(topics=[topic])))])
    return raw(JOIN_GROUP, version, body)


def join_and_sync(raw, group, topic):
    """One member joins (rejoining with the id MEMBER_ID_REQUIRED hands it) and, as leader, assigns
    itself every partition; returns (member id, generation)."""
    find_coordinator(raw, group)

    def joined():
        r = join(raw, group, topic)
        if r.error_code == Errors.MEMBER_ID_REQUIRED.code:
            r = join(raw, group, topic, member_id=r.member_id)
        return r if r.error_code == 0 else None   # COORDINATOR_LOAD_IN_PROGRESS: try again
    r = wait_until(joined, timeout=20, message="JoinGroup to succeed", interval=0.1)
    assert r.leader == r.member_id and [m.member_id for m in r.members] == [r.member_id]
    plan = serialize_assignment(ConsumerProtocolAssignment(assigned_partitions=[
        ConsumerProtocolTopicPartition(topic=topic, partitions=list(range(PARTITIONS)))]))
    mine = SyncGroupRequestAssignment(member_id=r.member_id, assignment=plan)
    s = raw(SYNC_GROUP, 3, SyncGroupRequest(group_id=group, generation_id=r.generation_id, member_id=r.member_id,
                                            assignments=[mine]))
    assert (s.error_code, s.assignment) == (0, plan)
    return r.member_id, r.generation_id


def heartbeat(raw, group, member_id, generation):
    return Errors.for_code(raw(HEARTBEAT, 3, HeartbeatRequest(
        group_id=group, generation_id=generation, member_id=member_id)).error_code)


def describe(raw, group):
    [g] = raw(DESCRIBE_GROUPS, 4, DescribeGroupsRequest(groups=[group])).groups
    assert g.error_code == 0, g
    return g.group_state, [m.member_id for m in g.members]


def joined_consumer(bootstrap, topic, group):
    """A kafka-python group member that knows the topic's partitions before it subscribes (see
    ``subscribe_knowing_partitions`` in test_consumer_group_protocols.py for why)."""
    c = kafka.KafkaConsumer(bootstrap_servers=bootstrap, group_id=group, auto_offset_reset="earliest",
                            session_timeout_ms=6000, heartbeat_interval_ms=500, enable_auto_commit=False)
    wait_until(lambda: c.partitions_for_topic(topic) == set(range(PARTITIONS)), timeout=15,
               message=f"kafka-python to know the partitions of {topic}")
    c.subscribe([topic])
    return c


def real_client_consumes(bootstrap, topic, group):
    """kafka-python joins ``group`` and reads every record of ``topic`` from the start."""
    c = joined_consumer(bootstrap, topic, group)
    try:
        got = []
        wait_until(lambda: got.extend(r.value for recs in c.poll(timeout_ms=200).values() for r in recs)
                   or len(got) >= RECORDS, timeout=30, message=f"{group}: a real member to read everything")
        assert sorted(got, key=int) == [str(i).encode() for i in range(RECORDS)]
        assert {tp.partition for tp in c.assignment()} == set(range(PARTITIONS))
    finally:
        c.close()


def test_heartbeat_with_wrong_generation_or_unknown_member(gbroker, topic, conn):
    raw, group = Raw(conn), topic + "-group"
    member_id, generation = join_and_sync(raw, group, topic)
    assert heartbeat(raw, group, member_id, generation) is Errors.NONE
    assert heartbeat(raw, group, member_id, generation + 1) is Errors.ILLEGAL_GENERATION
    assert heartbeat(raw, group, member_id, generation - 1) is Errors.ILLEGAL_GENERATION
    assert heartbeat(raw, group, "no-such-member", generation) is Errors.UNKNOWN_MEMBER_ID
    assert heartbeat(raw, "no-such-group", member_id, generation) is Errors.UNKNOWN_MEMBER_ID
    # the same checks guard JoinGroup, SyncGroup and OffsetCommit
    assert Errors.for_code(join(raw, group, topic, member_id="no-such-member").error_code) is Errors.UNKNOWN_MEMBER_ID
    sync = raw(SYNC_GROUP, 3, SyncGroupRequest(group_id=group, generation_id=generation + 1, member_id=member_id,
                                               assignments=[]))
    assert Errors.for_code(sync.error_code) is Errors.ILLEGAL_GENERATION
    for bad_generation, bad_member, error in [(generation + 1, member_id, Errors.ILLEGAL_GENERATION),
                                              (generation, "no-such-member", Errors.UNKNOWN_MEMBER_ID)]:
        r = raw(OFFSET_COMMIT, 7, OffsetCommitRequest(
            group_id=group, generation_id=bad_generation, member_id=bad_member, topics=[OffsetCommitRequestTopic(
                name=topic, partitions=[OffsetCommitRequestPartition(partition_index=0, committed_offset=5,
                                                                     committed_metadata="")])]))
        assert Errors.for_code(r.topics[0].partitions[0].error_code) is error
    # nothing changed: the member is still in, in the same generation
    assert describe(raw, group) == ("Stable", [member_id])
    assert heartbeat(raw, group, member_id, generation) is Errors.NONE
    fetched = raw(OFFSET_FETCH, 5, OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=[0])]))
    assert fetched.topics[0].partitions[0].committed_offset == -1   # no rejected commit was stored

    left = raw(LEAVE_GROUP, 3, LeaveGroupRequest(group_id=group, members=[MemberIdentity(member_id=member_id)]))
    assert (left.error_code, [m.error_code for m in left.members]) == (0, [0])
    assert describe(raw, group) == ("Empty", [])
    real_client_consumes(gbroker.bootstrap, topic, group)


@pytest.mark.parametrize("session_ms", [1, MAX_SESSION_MS + 1])
def test_join_with_session_timeout_out_of_range(gbroker, topic, conn, session_ms):
    raw, group = Raw(conn), topic + "-group"
    find_coordinator(raw, group)
    r = join(raw, group, topic, session_ms=session_ms)
    assert Errors.for_code(r.error_code) is Errors.INVALID_SESSION_TIMEOUT
    assert r.generation_id == -1 and r.members == []
    assert describe(raw, group) == ("Dead", [])      # the group was never created
    # a known member asking for a bad timeout stays as it was
    member_id, generation = join_and_sync(raw, group, topic)
    r = join(raw, group, topic, session_ms=session_ms, member_id=member_id)
    assert Errors.for_code(r.error_code) is Errors.INVALID_SESSION_TIMEOUT
    assert describe(raw, group) == ("Stable", [member_id])
    assert heartbeat(raw, group, member_id, generation) is Errors.NONE
    raw(LEAVE_GROUP, 3, LeaveGroupRequest(group_id=group, members=[MemberIdentity(member_id=member_id)]))
    real_client_consumes(gbroker.bootstrap, topic, group)


@pytest.mark.parametrize("version", [1, 5, 7])
def test_offset_fetch_for_unknown_group(gbroker, topic, conn, version):
    raw, group = Raw(conn), topic + "-never-used"
    find_coordinator(raw, group)
    r = raw(OFFSET_FETCH, version, OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=list(range(PARTITIONS)))]))
    assert r.error_code == 0
    [t] = r.topics
    assert t.name == topic
    assert [(p.partition_index, p.committed_offset, p.error_code) for p in t.partitions] == \
        [(p, -1, 0) for p in range(PARTITIONS)]


@pytest.mark.parametrize("version", [2, 7, 8])
def test_offset_commit_outside_group_on_empty_group(gbroker, topic, conn, version):
    raw, group = Raw(conn), f"{topic}-simple-v{version}"
    find_coordinator(raw, group)
    commit = OffsetCommitRequest(group_id=group, generation_id=-1, member_id="", topics=[OffsetCommitRequestTopic(
        name=topic, partitions=[
            OffsetCommitRequestPartition(partition_index=0, committed_offset=7, committed_metadata="seven"),
            OffsetCommitRequestPartition(partition_index=2, committed_offset=3, committed_metadata=None)])])
    committed = wait_until(lambda: (lambda r: r if r.topics[0].partitions[0].error_code == 0 else None)(
        raw(OFFSET_COMMIT, version, commit)), timeout=20, message="the commit to be accepted", interval=0.1)
    assert [(t.name, [(p.partition_index, p.error_code) for p in t.partitions]) for t in committed.topics] == \
        [(topic, [(0, 0), (2, 0)])]
    r = raw(OFFSET_FETCH, 5, OffsetFetchRequest(
        group_id=group, topics=[OffsetFetchRequestTopic(name=topic, partition_indexes=list(range(PARTITIONS)))]))
    assert [(p.partition_index, p.committed_offset, p.metadata, p.error_code) for p in r.topics[0].partitions] == \
        [(0, 7, "seven", 0), (1, -1, "", 0), (2, 3, "", 0)]
    assert describe(raw, group) == ("Empty", [])
    # The group now exists with offsets only; a real member can still join it (and resumes there).
    c = joined_consumer(gbroker.bootstrap, topic, group)
    try:
        got = []
        wait_until(lambda: got.extend((r.partition, r.offset) for recs in c.poll(timeout_ms=200).values()
                                      for r in recs) or len(got) >= RECORDS - 10, timeout=30,
                   message="a real member to read from the committed offsets")
        per_partition = RECORDS // PARTITIONS
        assert sorted(got) == [(0, o) for o in range(7, per_partition)] + \
            [(1, o) for o in range(per_partition)] + [(2, o) for o in range(3, per_partition)]
    finally:
        c.close()
