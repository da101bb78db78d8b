"""Kafka's AuthorizerIntegrationTest (core/src/test/scala/integration/kafka/api/AuthorizerIntegrationTest.scala),
the ACL matrix: for each API a client may call, a principal without the ACL gets Kafka's error code and nothing
changes (no record written, no topic created or deleted, no offset committed, no config changed, no group
joined); the same principal with exactly the ACLs Kafka requires succeeds. Then literal against prefixed
patterns, deny over allow, super users, and what a real client sees.

Every case runs as three principals: ``User:ANONYMOUS`` on the PLAINTEXT listener (which also holds ClusterAction,
as that broker's own controller connects that way), a client certificate's principal on an SSL listener with
mutual TLS (the brokers' inter-broker listener, their certificate holding ClusterAction), and ``User:alice``
authenticated with SASL PLAIN on a SASL_PLAINTEXT listener.
"""
from __future__ import annotations

import uuid
from contextlib import contextmanager

import attrs
import pytest

from acl_harness import ANONYMOUS, SASL_ALICE, AclBroker, binding, make_certs, ssl_principal
from clients import build_batch, raw_fetch_body, raw_produce

from kafkalite.common.acl.acl_operation import AclOperation as Op
from kafkalite.common.acl.acl_permission_type import AclPermissionType as Perm
from kafkalite.common.resource.pattern_type import PatternType
from kafkalite.common.resource.resource_pattern import CLUSTER_NAME
from kafkalite.common.resource.resource_type import ResourceType as RT
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (alter_configs as AC, create_partitions as CP, create_topics as CT,
                                         delete_groups as DG, delete_records as DR, delete_topics as DT,
                                         describe_configs as DC, describe_groups as DGR, find_coordinator as FC,
                                         heartbeat as HB, join_group as JG, leave_group as LG, list_groups as LGS,
                                         list_offsets as LO, metadata as MD, offset_commit as OC,
                                         offset_delete as OD, offset_fetch as OF, sync_group as SG)
from kafkalite.protocol.messages import (add_offsets_to_txn as AOT, add_partitions_to_txn as APT,
                                         describe_producers as DP, describe_transactions as DTX, end_txn as ET,
                                         init_producer_id as IPI, list_transactions as LTX, txn_offset_commit as TOC)

PRINCIPAL = ANONYMOUS   # the principal of the single-principal tests below; the matrix runs as each of PRINCIPALS
PRINCIPALS = [ANONYMOUS, ssl_principal("alice"), SASL_ALICE]
BROKER_FIXTURE = {ANONYMOUS: "acl_broker", ssl_principal("alice"): "ssl_acl_broker", SASL_ALICE: "sasl_acl_broker"}
TAF, GAF, CAF = Errors.TOPIC_AUTHORIZATION_FAILED, Errors.GROUP_AUTHORIZATION_FAILED, Errors.CLUSTER_AUTHORIZATION_FAILED
TIAF = Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


@pytest.fixture
def acl_broker(tmp_path):
    b = AclBroker(tmp_path).start()
    yield b
    b.stop()


@pytest.fixture
def sasl_acl_broker(tmp_path):
    b = AclBroker(tmp_path, sasl=True).start()
    yield b
    b.stop()


@pytest.fixture
def ssl_acl_broker(tmp_path, certs):
    b = AclBroker(tmp_path, certs=certs).start()
    yield b
    b.stop()


@attrs.define
class Ids:
    topic: str
    group: str
    new_topic: str
    txn: str
    producer_id: int = -1
    producer_epoch: int = -1


@pytest.fixture
def ids():
    u = uuid.uuid4().hex[:8]
    return Ids(topic=f"t-{u}", group=f"g-{u}", new_topic=f"new-{u}", txn=f"tx-{u}")


@contextmanager
def granted(broker: AclBroker, *bindings):
    broker.grant(*bindings)
    try:
        yield
    finally:
        broker.revoke(*bindings)


def allow(rt, name, *ops, pattern=PatternType.LITERAL, principal=PRINCIPAL):
    return [binding(principal, rt, name, op, pattern) for op in ops]


def err(code) -> Errors:
    return Errors.for_code(code)


# ---------------------------------------------------------------- the requests, one function per API
def produce(conn, ids):
    r = raw_produce(conn, ids.topic, {0: build_batch([b"secret"])}, version=8)
    return err(r[0].error_code)


def fetch(conn, ids):
    r = conn.request(1, 11, raw_fetch_body(ids.topic, [0], 0, 0))
    return err(r.responses[0].partitions[0].error_code)


def list_offsets(conn, ids):
    r = conn.request(2, 5, LO.ListOffsetsRequest(replica_id=-1, topics=[LO.ListOffsetsTopic(
        name=ids.topic, partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1)])]))
    return err(r.topics[0].partitions[0].error_code)


def metadata_named(conn, ids):
    r = conn.request(3, 9, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name=ids.topic)],
                                              allow_auto_topic_creation=False))
    return err(r.topics[0].error_code)


def metadata_auto_create(conn, ids):
    r = conn.request(3, 9, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name=ids.new_topic)],
                                              allow_auto_topic_creation=True))
    e = err(r.topics[0].error_code)
    return Errors.NONE if e is Errors.LEADER_NOT_AVAILABLE else e   # created, leader on its way


def create_topics(conn, ids):
    r = conn.request(19, 5, CT.CreateTopicsRequest(topics=[CT.CreatableTopic(
        name=ids.new_topic, num_partitions=1, replication_factor=1, assignments=[], configs=[])], timeout_ms=10000))
    return err(r.topics[0].error_code)


def delete_topics(conn, ids):
    r = conn.request(20, 4, DT.DeleteTopicsRequest(topic_names=[ids.topic], timeout_ms=10000))
    return err(r.responses[0].error_code)


def create_partitions(conn, ids):
    r = conn.request(37, 1, CP.CreatePartitionsRequest(topics=[CP.CreatePartitionsTopic(
        name=ids.topic, count=2, assignments=None)], timeout_ms=10000))
    return err(r.results[0].error_code)


def delete_records(conn, ids):
    r = conn.request(21, 1, DR.DeleteRecordsRequest(topics=[DR.DeleteRecordsTopic(
        name=ids.topic, partitions=[DR.DeleteRecordsPartition(partition_index=0, offset=1)])], timeout_ms=10000))
    return err(r.topics[0].partitions[0].error_code)


def describe_topic_partitions(conn, ids):
    from kafkalite.protocol.messages import describe_topic_partitions as DTP
    r = conn.request(75, 0, DTP.DescribeTopicPartitionsRequest(topics=[DTP.DescribeTopicPartitionsTopicRequest(
        name=ids.topic)]))
    return err(r.topics[0].error_code)


def describe_topic_configs(conn, ids):
    r = conn.request(32, 2, DC.DescribeConfigsRequest(resources=[DC.DescribeConfigsResource(
        resource_type=2, resource_name=ids.topic, configuration_keys=None)]))
    return err(r.results[0].error_code)


def describe_broker_configs(conn, ids):
    r = conn.request(32, 2, DC.DescribeConfigsRequest(resources=[DC.DescribeConfigsResource(
        resource_type=4, resource_name="0", configuration_keys=None)]))
    return err(r.results[0].error_code)


def alter_topic_configs(conn, ids):
    r = conn.request(33, 1, AC.AlterConfigsRequest(resources=[AC.AlterConfigsResource(
        resource_type=2, resource_name=ids.topic, configs=[AC.AlterableConfig(name="retention.ms",
                                                                                value="12345")])]))
    return err(r.responses[0].error_code)


def describe_client_quotas(conn, ids):
    from kafkalite.protocol.messages import describe_client_quotas as DCQ
    r = conn.request(48, 1, DCQ.DescribeClientQuotasRequest(components=[], strict=False))
    return err(r.error_code)


def alter_client_quotas(conn, ids):
    from kafkalite.protocol.messages import alter_client_quotas as ACQ
    r = conn.request(49, 1, ACQ.AlterClientQuotasRequest(entries=[ACQ.EntryData(
        entity=[ACQ.EntityData(entity_type="client-id", entity_name=ids.group)],
        ops=[ACQ.OpData(key="producer_byte_rate", value=1048576.0)])]))
    return err(r.entries[0].error_code)


def offset_commit(conn, ids):
    r = conn.request(8, 7, OC.OffsetCommitRequest(group_id=ids.group, generation_id=-1, member_id="", topics=[
        OC.OffsetCommitRequestTopic(name=ids.topic, partitions=[OC.OffsetCommitRequestPartition(
            partition_index=0, committed_offset=7, committed_metadata="")])]))
    return err(r.topics[0].partitions[0].error_code)


def offset_commit_v0(conn, ids):   # issue 19: v0 writes ZooKeeper, past the group coordinator
    r = conn.request(8, 0, OC.OffsetCommitRequest(group_id=ids.group, topics=[
        OC.OffsetCommitRequestTopic(name=ids.topic, partitions=[OC.OffsetCommitRequestPartition(
            partition_index=0, committed_offset=7, committed_metadata="")])]))
    return err(r.topics[0].partitions[0].error_code)


def list_offsets_v0(conn, ids):   # issue 19: the legacy path
    r = conn.request(2, 0, LO.ListOffsetsRequest(replica_id=-1, topics=[LO.ListOffsetsTopic(
        name=ids.topic, partitions=[LO.ListOffsetsPartition(partition_index=0, timestamp=-1, max_num_offsets=1)])]))
    return err(r.topics[0].partitions[0].error_code)


def offset_fetch(conn, ids):
    r = conn.request(9, 5, OF.OffsetFetchRequest(group_id=ids.group, topics=[
        OF.OffsetFetchRequestTopic(name=ids.topic, partition_indexes=[0])]))
    if r.error_code:
        return err(r.error_code)
    return err(r.topics[0].partitions[0].error_code)


def find_group_coordinator(conn, ids):
    return err(conn.request(10, 2, FC.FindCoordinatorRequest(key=ids.group, key_type=0)).error_code)


def find_txn_coordinator(conn, ids):
    return err(conn.request(10, 2, FC.FindCoordinatorRequest(key=ids.txn, key_type=1)).error_code)


def join_group(conn, ids):
    r = conn.request(11, 5, JG.JoinGroupRequest(group_id=ids.group, session_timeout_ms=10000,
                                                rebalance_timeout_ms=10000, member_id="", protocol_type="consumer",
                                                protocols=[JG.JoinGroupRequestProtocol(name="range",
                                                                                       metadata=b"")]))
    return err(r.error_code)


def sync_group(conn, ids):
    return err(conn.request(14, 3, SG.SyncGroupRequest(group_id=ids.group, generation_id=1, member_id="m",
                                                       assignments=[])).error_code)


def heartbeat(conn, ids):
    return err(conn.request(12, 3, HB.HeartbeatRequest(group_id=ids.group, generation_id=1,
                                                       member_id="m")).error_code)


def leave_group(conn, ids):
    return err(conn.request(13, 3, LG.LeaveGroupRequest(group_id=ids.group, members=[
        LG.MemberIdentity(member_id="m")])).error_code)


def consumer_group_heartbeat(conn, ids):   # issue 19: KIP-848
    from kafkalite.protocol.messages import consumer_group_heartbeat as CGH
    r = conn.request(68, 1, CGH.ConsumerGroupHeartbeatRequest(
        group_id=ids.group, member_id="acl-member", member_epoch=0, rebalance_timeout_ms=10000,
        subscribed_topic_names=[ids.topic], topic_partitions=[]))
    return err(r.error_code)


def consumer_group_describe(conn, ids):   # issue 19: KIP-848
    from kafkalite.protocol.messages import consumer_group_describe as CGD
    return err(conn.request(69, 0, CGD.ConsumerGroupDescribeRequest(group_ids=[ids.group])).groups[0].error_code)


def describe_groups(conn, ids):
    return err(conn.request(15, 3, DGR.DescribeGroupsRequest(groups=[ids.group])).groups[0].error_code)


def list_groups(conn, ids):
    r = conn.request(16, 2, LGS.ListGroupsRequest())
    return Errors.NONE if ids.group in {g.group_id for g in r.groups} else GAF   # "not listed" stands for denied


def delete_groups(conn, ids):
    return err(conn.request(42, 1, DG.DeleteGroupsRequest(groups_names=[ids.group])).results[0].error_code)


def offset_delete(conn, ids):
    r = conn.request(47, 0, OD.OffsetDeleteRequest(group_id=ids.group, topics=[OD.OffsetDeleteRequestTopic(
        name=ids.topic, partitions=[OD.OffsetDeleteRequestPartition(partition_index=0)])]))
    if r.error_code:
        return err(r.error_code)
    return err(r.topics[0].partitions[0].error_code)


def init_idempotent(conn, ids):
    r = conn.request(22, 2, IPI.InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=60000))
    return err(r.error_code)


def init_transactional(conn, ids):
    r = conn.request(22, 2, IPI.InitProducerIdRequest(transactional_id=ids.txn, transaction_timeout_ms=60000))
    if r.error_code == 0:
        ids.producer_id, ids.producer_epoch = r.producer_id, r.producer_epoch
    return err(r.error_code)


def add_partitions_to_txn(conn, ids):
    r = conn.request(24, 1, APT.AddPartitionsToTxnRequest(
        transactional_id=ids.txn, producer_id=ids.producer_id, producer_epoch=ids.producer_epoch,
        topics=[APT.AddPartitionsToTxnTopic(name=ids.topic, partitions=[0])]))
    return err(r.results[0].results[0].error_code)


def add_offsets_to_txn(conn, ids):
    return err(conn.request(25, 1, AOT.AddOffsetsToTxnRequest(
        transactional_id=ids.txn, producer_id=ids.producer_id, producer_epoch=ids.producer_epoch,
        group_id=ids.group)).error_code)


def end_txn(conn, ids):
    return err(conn.request(26, 1, ET.EndTxnRequest(
        transactional_id=ids.txn, producer_id=ids.producer_id, producer_epoch=ids.producer_epoch,
        committed=True)).error_code)


def txn_offset_commit(conn, ids):
    r = conn.request(28, 2, TOC.TxnOffsetCommitRequest(
        transactional_id=ids.txn, group_id=ids.group, producer_id=ids.producer_id,
        producer_epoch=ids.producer_epoch, topics=[TOC.TxnOffsetCommitRequestTopic(name=ids.topic, partitions=[
            TOC.TxnOffsetCommitRequestPartition(partition_index=0, committed_offset=5, committed_metadata="")])]))
    return err(r.topics[0].partitions[0].error_code)


def describe_transactions(conn, ids):
    r = conn.request(65, 0, DTX.DescribeTransactionsRequest(transactional_ids=[ids.txn]))
    return err(r.transaction_states[0].error_code)


def list_transactions(conn, ids):
    r = conn.request(66, 0, LTX.ListTransactionsRequest(state_filters=[], producer_id_filters=[]))
    return Errors.NONE if ids.txn in {t.transactional_id for t in r.transaction_states} else TIAF


def describe_producers(conn, ids):
    r = conn.request(61, 0, DP.DescribeProducersRequest(topics=[DP.TopicRequest(name=ids.topic,
                                                                                 partition_indexes=[0])]))
    return err(r.topics[0].partitions[0].error_code)


def elect_leaders(conn, ids):
    from kafkalite.protocol.messages import elect_leaders as EL
    r = conn.request(43, 1, EL.ElectLeadersRequest(election_type=0, topic_partitions=[
        EL.TopicPartitions(topic=ids.topic, partition_id=[0])], timeout_ms=10000))
    if r.error_code:
        return err(r.error_code)
    return err(r.replica_election_results[0].partition_result[0].error_code)


def alter_reassignments(conn, ids):
    from kafkalite.protocol.messages import alter_partition_reassignments as APR
    r = conn.request(45, 0, APR.AlterPartitionReassignmentsRequest(topics=[APR.ReassignableTopic(
        name=ids.topic, partitions=[APR.ReassignablePartition(partition_index=0, replicas=[0])])]))
    if r.error_code:
        return err(r.error_code)
    return err(r.responses[0].partitions[0].error_code)


def list_reassignments(conn, ids):
    from kafkalite.protocol.messages import list_partition_reassignments as LPR
    return err(conn.request(46, 0, LPR.ListPartitionReassignmentsRequest(topics=None)).error_code)


def describe_log_dirs(conn, ids):
    from kafkalite.protocol.messages import describe_log_dirs as DLD
    r = conn.request(35, 1, DLD.DescribeLogDirsRequest(topics=None))
    return Errors.NONE if r.results else CAF     # 2.4 answers no log dirs at all


def incremental_alter_configs(conn, ids):
    from kafkalite.protocol.messages import incremental_alter_configs as IAC
    r = conn.request(44, 0, IAC.IncrementalAlterConfigsRequest(resources=[IAC.AlterConfigsResource(
        resource_type=2, resource_name=ids.topic, configs=[IAC.AlterableConfig(
            name="retention.ms", config_operation=0, value="54321")])]))
    return err(r.responses[0].error_code)


def describe_acls_call(conn, ids):
    from kafkalite.protocol.messages import describe_acls as DA
    return err(conn.request(29, 1, DA.DescribeAclsRequest(resource_type_filter=1, pattern_type_filter=1, operation=1,
                                                          permission_type=1)).error_code)


def create_acls_call(conn, ids):
    from kafkalite.protocol.messages import create_acls as CA
    r = conn.request(30, 1, CA.CreateAclsRequest(creations=[CA.AclCreation(
        resource_type=2, resource_name=ids.new_topic, resource_pattern_type=3, principal="User:carol", host="*",
        operation=3, permission_type=3)]))
    return err(r.results[0].error_code)


# ---------------------------------------------------------------- set-ups (as the operator)
def with_topic(broker, conn, ids):
    broker.create_topic(ids.topic)


def with_records(broker, conn, ids):
    broker.create_topic(ids.topic)
    with granted(broker, *allow(RT.TOPIC, ids.topic, Op.WRITE, principal=conn.principal)):
        assert raw_produce(conn, ids.topic, {0: build_batch([b"a", b"b", b"c"])}, version=8)[0].error_code == 0


def with_committed_offset(broker, conn, ids):
    with_coordinator(broker, conn, ids)
    with granted(broker, *allow(RT.GROUP, ids.group, Op.READ, principal=conn.principal),
                 *allow(RT.TOPIC, ids.topic, Op.READ, principal=conn.principal)):
        assert offset_commit(conn, ids) is Errors.NONE


def with_coordinator(broker, conn, ids):
    broker.create_topic(ids.topic)
    with granted(broker, *allow(RT.GROUP, ids.group, Op.DESCRIBE, principal=conn.principal)):
        from support import wait_until
        wait_until(lambda: find_group_coordinator(conn, ids) is Errors.NONE, 20, "the group coordinator")


def with_txn_coordinator(broker, conn, ids):
    with granted(broker, *allow(RT.TRANSACTIONAL_ID, ids.txn, Op.DESCRIBE, principal=conn.principal)):
        from support import wait_until
        wait_until(lambda: find_txn_coordinator(conn, ids) is Errors.NONE, 20, "the transaction coordinator")


def nothing(broker, conn, ids):
    pass


def with_producer_id(broker, conn, ids):
    """A topic, and a transactional producer id (InitProducerId with WRITE on the transactional id, for now)."""
    broker.create_topic(ids.topic)
    with_txn_coordinator(broker, conn, ids)
    with granted(broker, *allow(RT.TRANSACTIONAL_ID, ids.txn, Op.WRITE, principal=conn.principal)):
        from support import wait_until
        wait_until(lambda: init_transactional(conn, ids) is Errors.NONE, 20, "a transactional producer id")


def with_partition_in_txn(broker, conn, ids):
    with_producer_id(broker, conn, ids)
    with granted(broker, *allow(RT.TRANSACTIONAL_ID, ids.txn, Op.WRITE, principal=conn.principal),
                 *allow(RT.TOPIC, ids.topic, Op.WRITE, principal=conn.principal)):
        assert add_partitions_to_txn(conn, ids) is Errors.NONE


def with_offsets_in_txn(broker, conn, ids):
    with_producer_id(broker, conn, ids)
    with_coordinator(broker, conn, ids)
    with granted(broker, *allow(RT.TRANSACTIONAL_ID, ids.txn, Op.WRITE, principal=conn.principal),
                 *allow(RT.GROUP, ids.group, Op.READ, principal=conn.principal)):
        from support import wait_until
        wait_until(lambda: add_offsets_to_txn(conn, ids) is Errors.NONE, 20, "AddOffsetsToTxn")


def with_describe_on_new_topic(broker, conn, ids):
    broker.grant(*allow(RT.TOPIC, ids.new_topic, Op.DESCRIBE, principal=conn.principal))


# ---------------------------------------------------------------- the matrix
@attrs.frozen
class Case:
    name: str
    setup: object
    call: object
    denied: Errors                  # Kafka's answer without the ACLs
    acls: object                    # (ids, principal) -> the bindings Kafka requires
    state: object                   # (broker, ids) -> what must not change while denied
    changes: bool = True            # whether success changes that state
    success: Errors = Errors.NONE


CASES = [
    Case("Produce", with_topic, produce, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.WRITE, principal=p),
         lambda b, i: b.log_end_offset(i.topic)),
    Case("Fetch", with_records, fetch, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.READ, principal=p),
         lambda b, i: None, changes=False),
    Case("ListOffsets", with_topic, list_offsets, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p),
         lambda b, i: None, changes=False),
    Case("Metadata", with_topic, metadata_named, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p),
         lambda b, i: None, changes=False),
    Case("DescribeTopicPartitions", with_topic, describe_topic_partitions, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    # auto-creation: DESCRIBE alone is not enough, CREATE on the topic is
    Case("Metadata auto-create", with_describe_on_new_topic, metadata_auto_create, TAF,
         lambda i, p: allow(RT.TOPIC, i.new_topic, Op.CREATE, principal=p), lambda b, i: b.topic_exists(i.new_topic)),
    Case("CreateTopics", nothing, create_topics, TAF, lambda i, p: allow(RT.TOPIC, i.new_topic, Op.CREATE, principal=p),
         lambda b, i: b.topic_exists(i.new_topic)),
    Case("CreateTopics (cluster)", nothing, create_topics, TAF, lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.CREATE, principal=p),
         lambda b, i: b.topic_exists(i.new_topic)),
    Case("DeleteTopics", with_topic, delete_topics, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.DELETE, principal=p),
         lambda b, i: b.topic_exists(i.topic) and not b.server.zk_client.is_topic_marked_for_deletion(i.topic)),
    Case("CreatePartitions", with_topic, create_partitions, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.ALTER, principal=p),
         lambda b, i: b.partition_count(i.topic)),
    Case("DeleteRecords", with_records, delete_records, TAF, lambda i, p: allow(RT.TOPIC, i.topic, Op.DELETE, principal=p),
         lambda b, i: b.log_start_offset(i.topic)),
    Case("DescribeConfigs (topic)", with_topic, describe_topic_configs, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.DESCRIBE_CONFIGS, principal=p), lambda b, i: None, changes=False),
    Case("DescribeConfigs (broker)", nothing, describe_broker_configs, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE_CONFIGS, principal=p), lambda b, i: None, changes=False),
    Case("AlterConfigs (topic)", with_topic, alter_topic_configs, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.ALTER_CONFIGS, principal=p), lambda b, i: b.topic_config(i.topic)),
    # client quotas (KIP-546, Kafka 2.6): DescribeConfigs / AlterConfigs on the cluster
    Case("DescribeClientQuotas", nothing, describe_client_quotas, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE_CONFIGS, principal=p), lambda b, i: None, changes=False),
    Case("AlterClientQuotas", nothing, alter_client_quotas, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.ALTER_CONFIGS, principal=p),
         lambda b, i: b.server.zk_client.get_entity_configs("clients", i.group)),
    Case("OffsetCommit", with_coordinator, offset_commit, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p) + allow(RT.TOPIC, i.topic, Op.READ, principal=p),
         lambda b, i: b.committed(i.group, i.topic)),
    Case("OffsetCommit v0", with_topic, offset_commit_v0, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p) + allow(RT.TOPIC, i.topic, Op.READ, principal=p),
         lambda b, i: b.server.zk_client.get_consumer_offset(i.group, TopicPartition(i.topic, 0))),
    Case("ListOffsets v0", with_topic, list_offsets_v0, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("OffsetFetch", with_committed_offset, offset_fetch, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.DESCRIBE, principal=p) + allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p),
         lambda b, i: None, changes=False),
    Case("FindCoordinator (group)", nothing, find_group_coordinator, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("FindCoordinator (transaction)", with_txn_coordinator, find_txn_coordinator, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("JoinGroup", with_coordinator, join_group, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p),
         lambda b, i: b.group_state(i.group), success=Errors.MEMBER_ID_REQUIRED),
    Case("SyncGroup", with_coordinator, sync_group, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p),
         lambda b, i: None, changes=False, success=Errors.UNKNOWN_MEMBER_ID),
    Case("Heartbeat", with_coordinator, heartbeat, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p),
         lambda b, i: None, changes=False, success=Errors.UNKNOWN_MEMBER_ID),
    Case("LeaveGroup", with_coordinator, leave_group, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p),
         lambda b, i: None, changes=False),   # v3: the member's UNKNOWN_MEMBER_ID is per member
    Case("ConsumerGroupHeartbeat", with_coordinator, consumer_group_heartbeat, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.READ, principal=p) + allow(RT.TOPIC, i.topic, Op.DESCRIBE, principal=p),
         lambda b, i: b.server.group_coordinator.consumer_group_manager.group(i.group) is not None),
    Case("ConsumerGroupDescribe", with_coordinator, consumer_group_describe, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False,
         success=Errors.GROUP_ID_NOT_FOUND),   # no consumer-protocol group of that id
    Case("DescribeGroups", with_committed_offset, describe_groups, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("ListGroups", with_committed_offset, list_groups, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.DESCRIBE, principal=p),
         lambda b, i: None, changes=False),
    Case("ListGroups (cluster)", with_committed_offset, list_groups, GAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("DeleteGroups", with_committed_offset, delete_groups, GAF, lambda i, p: allow(RT.GROUP, i.group, Op.DELETE, principal=p),
         lambda b, i: b.committed(i.group, i.topic)),
    Case("OffsetDelete", with_committed_offset, offset_delete, GAF,
         lambda i, p: allow(RT.GROUP, i.group, Op.DELETE, principal=p) + allow(RT.TOPIC, i.topic, Op.READ, principal=p),
         lambda b, i: b.committed(i.group, i.topic)),
    # cluster administration
    Case("ElectLeaders", with_topic, elect_leaders, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.ALTER, principal=p), lambda b, i: None, changes=False,
         success=Errors.ELECTION_NOT_NEEDED),
    Case("AlterPartitionReassignments", with_topic, alter_reassignments, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.ALTER, principal=p), lambda b, i: None, changes=False),
    Case("ListPartitionReassignments", nothing, list_reassignments, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("DescribeLogDirs", nothing, describe_log_dirs, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("IncrementalAlterConfigs (topic)", with_topic, incremental_alter_configs, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.ALTER_CONFIGS, principal=p), lambda b, i: b.topic_config(i.topic)),
    Case("DescribeAcls", nothing, describe_acls_call, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.DESCRIBE, principal=p), lambda b, i: None, changes=False),
    Case("CreateAcls", nothing, create_acls_call, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.ALTER, principal=p),
         lambda b, i: len(b.authorizer.acls(__import__("kafkalite.common.acl.acl_binding",
                                                        fromlist=["x"]).AclBindingFilter.ANY))),
    # transactions and idempotence
    Case("InitProducerId (idempotent)", nothing, init_idempotent, CAF,
         lambda i, p: allow(RT.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE, principal=p), lambda b, i: None,
         changes=False),
    Case("InitProducerId (transactional)", with_txn_coordinator, init_transactional, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.WRITE, principal=p),
         lambda b, i: b.server.transaction_coordinator.handle_describe_transactions(i.txn).state),
    Case("AddPartitionsToTxn", with_producer_id, add_partitions_to_txn, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.WRITE, principal=p) +
         allow(RT.TOPIC, i.topic, Op.WRITE, principal=p),
         lambda b, i: b.server.transaction_coordinator.handle_describe_transactions(i.txn).topic_partitions),
    Case("AddOffsetsToTxn", with_producer_id, add_offsets_to_txn, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.WRITE, principal=p) +
         allow(RT.GROUP, i.group, Op.READ, principal=p),
         lambda b, i: b.server.transaction_coordinator.handle_describe_transactions(i.txn).topic_partitions),
    Case("EndTxn", with_partition_in_txn, end_txn, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.WRITE, principal=p),
         lambda b, i: b.server.transaction_coordinator.handle_describe_transactions(i.txn).state),
    Case("TxnOffsetCommit", with_offsets_in_txn, txn_offset_commit, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.WRITE, principal=p) +
         allow(RT.GROUP, i.group, Op.READ, principal=p) + allow(RT.TOPIC, i.topic, Op.READ, principal=p),
         lambda b, i: b.committed(i.group, i.topic), changes=False),   # pending until the commit
    Case("DescribeTransactions", with_producer_id, describe_transactions, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.DESCRIBE, principal=p), lambda b, i: None,
         changes=False),
    Case("ListTransactions", with_producer_id, list_transactions, TIAF,
         lambda i, p: allow(RT.TRANSACTIONAL_ID, i.txn, Op.DESCRIBE, principal=p), lambda b, i: None,
         changes=False),
    Case("DescribeProducers", with_records, describe_producers, TAF,
         lambda i, p: allow(RT.TOPIC, i.topic, Op.READ, principal=p), lambda b, i: None, changes=False),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
@pytest.mark.parametrize("principal", PRINCIPALS, ids=["PLAINTEXT", "SSL", "SASL_PLAIN"])
def test_denied_without_the_acl_and_allowed_with_it(request, principal, ids, case):
    acl_broker = request.getfixturevalue(BROKER_FIXTURE[principal])
    conn = acl_broker.client_for(principal)
    case.setup(acl_broker, conn, ids)
    before = case.state(acl_broker, ids)
    assert case.call(conn, ids) is case.denied
    assert case.state(acl_broker, ids) == before, "a denied request changed something"
    acl_broker.grant(*case.acls(ids, principal))
    from support import wait_until
    # the first allowed call may meet a coordinator or topic still loading; Kafka's clients retry those
    result = wait_until(lambda: (lambda e: e if e not in (Errors.COORDINATOR_LOAD_IN_PROGRESS,
                                                          Errors.COORDINATOR_NOT_AVAILABLE,
                                                          Errors.NOT_COORDINATOR) else None)(case.call(conn, ids)),
                        20, f"{case.name} to be answered")
    assert result is case.success
    if case.changes:
        wait_until(lambda: case.state(acl_broker, ids) != before, 20, f"{case.name} to take effect")


# ---------------------------------------------------------------- patterns, deny, super users
def test_partial_grants_answer_per_resource(acl_broker, ids):
    """READ on the group but not the topic: OffsetCommit is refused for the partition (TOPIC_AUTHORIZATION_FAILED)."""
    conn = acl_broker.client_for(PRINCIPAL)
    with_coordinator(acl_broker, conn, ids)
    acl_broker.grant(*allow(RT.GROUP, ids.group, Op.READ))
    assert offset_commit(conn, ids) is TAF
    assert acl_broker.committed(ids.group, ids.topic) == -1


def test_prefixed_acl_covers_the_names_it_starts(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    other = acl_broker.create_topic(f"x{ids.topic}")
    acl_broker.grant(*allow(RT.TOPIC, ids.topic[:4], Op.WRITE, pattern=PatternType.PREFIXED))
    assert produce(conn, ids) is Errors.NONE
    assert produce(conn, attrs.evolve(ids, topic=other)) is TAF
    assert acl_broker.log_end_offset(other) == 0


def test_literal_acl_covers_only_its_name(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    longer = acl_broker.create_topic(f"{ids.topic}-more")
    acl_broker.grant(*allow(RT.TOPIC, ids.topic, Op.WRITE))
    assert produce(conn, ids) is Errors.NONE
    assert produce(conn, attrs.evolve(ids, topic=longer)) is TAF


def test_wildcard_acl_covers_every_name(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    acl_broker.grant(*allow(RT.TOPIC, "*", Op.DESCRIBE))
    assert metadata_named(conn, ids) is Errors.NONE
    assert list_offsets(conn, ids) is Errors.NONE


@pytest.mark.parametrize("deny_pattern", [PatternType.LITERAL, PatternType.PREFIXED])
def test_deny_overrides_allow(acl_broker, ids, deny_pattern):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    acl_broker.grant(*allow(RT.TOPIC, "*", Op.ALL))
    assert produce(conn, ids) is Errors.NONE
    name = ids.topic if deny_pattern is PatternType.LITERAL else ids.topic[:3]
    acl_broker.grant(binding(PRINCIPAL, RT.TOPIC, name, Op.WRITE, deny_pattern, Perm.DENY))
    before = acl_broker.log_end_offset(ids.topic)
    assert produce(conn, ids) is TAF
    assert acl_broker.log_end_offset(ids.topic) == before
    assert fetch(conn, ids) is Errors.NONE          # only WRITE was denied


def test_deny_from_another_host_does_not_apply(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    acl_broker.grant(*allow(RT.TOPIC, ids.topic, Op.WRITE),
                     binding(PRINCIPAL, RT.TOPIC, ids.topic, Op.WRITE, permission=Perm.DENY, host="10.9.9.9"))
    assert produce(conn, ids) is Errors.NONE
    acl_broker.grant(binding(PRINCIPAL, RT.TOPIC, ids.topic, Op.WRITE, permission=Perm.DENY, host="127.0.0.1"))
    assert produce(conn, ids) is TAF


def test_super_user_ignores_acls(tmp_path, ids):
    broker = AclBroker(tmp_path, {"super.users": f"User:admin;{PRINCIPAL}"}).start()
    try:
        conn = broker.client_for(PRINCIPAL)
        broker.create_topic(ids.topic)
        broker.grant(binding(PRINCIPAL, RT.TOPIC, ids.topic, Op.ALL, permission=Perm.DENY))
        assert produce(conn, ids) is Errors.NONE
        assert create_topics(conn, ids) is Errors.NONE
    finally:
        broker.stop()


def test_allow_everyone_if_no_acl_found(tmp_path, ids):
    broker = AclBroker(tmp_path, {"allow.everyone.if.no.acl.found": "true"}).start()
    try:
        conn = broker.client_for(PRINCIPAL)
        broker.create_topic(ids.topic)
        assert produce(conn, ids) is Errors.NONE                    # no ACL on the topic: allowed
        broker.grant(*allow(RT.TOPIC, ids.topic, Op.READ, principal="User:someone-else"))
        assert produce(conn, ids) is TAF                             # an ACL exists, none for us
    finally:
        broker.stop()


# ---------------------------------------------------------------- what Metadata and ListGroups hide
def test_metadata_for_all_topics_lists_only_describable_ones(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    hidden = acl_broker.create_topic(ids.topic)
    shown = acl_broker.create_topic(f"shown-{ids.topic}")
    acl_broker.grant(*allow(RT.TOPIC, shown, Op.READ))      # READ implies DESCRIBE
    r = conn.request(3, 9, MD.MetadataRequest(topics=None, allow_auto_topic_creation=False))
    names = {t.name for t in r.topics}
    assert shown in names and hidden not in names

    from kafkalite.protocol.messages import describe_topic_partitions as DTP   # KIP-966 hides them the same way
    r = conn.request(75, 0, DTP.DescribeTopicPartitionsRequest(topics=[]))
    names = {t.name for t in r.topics}
    assert shown in names and hidden not in names
    r = conn.request(75, 0, DTP.DescribeTopicPartitionsRequest(topics=[
        DTP.DescribeTopicPartitionsTopicRequest(name=n) for n in (hidden, shown)]))
    by_name = {t.name: t for t in r.topics}
    assert by_name[hidden].error_code == TAF.code and by_name[hidden].partitions == []
    assert by_name[hidden].topic_id.int == 0 and by_name[shown].error_code == 0
    assert by_name[shown].topic_authorized_operations & (1 << Op.READ.code)


def test_authorized_operations_kip_430(acl_broker, ids):
    conn = acl_broker.client_for(PRINCIPAL)
    acl_broker.create_topic(ids.topic)
    acl_broker.grant(*allow(RT.TOPIC, ids.topic, Op.READ, Op.ALTER_CONFIGS), *allow(RT.CLUSTER, CLUSTER_NAME,
                                                                                    Op.DESCRIBE))
    r = conn.request(3, 10, MD.MetadataRequest(topics=[MD.MetadataRequestTopic(name=ids.topic)],
                                               allow_auto_topic_creation=False,
                                               include_cluster_authorized_operations=True,
                                               include_topic_authorized_operations=True))
    bits = {op for op in Op if r.topics[0].topic_authorized_operations & (1 << op.code)}
    assert bits == {Op.READ, Op.DESCRIBE, Op.ALTER_CONFIGS, Op.DESCRIBE_CONFIGS}
    cluster = {op for op in Op if r.cluster_authorized_operations & (1 << op.code)}
    assert cluster == {Op.DESCRIBE, Op.CLUSTER_ACTION}     # the harness's broker principal holds ClusterAction
    from kafkalite.protocol.messages import describe_cluster as DCL
    r = conn.request(60, 0, DCL.DescribeClusterRequest(include_cluster_authorized_operations=True))
    assert {op for op in Op if r.cluster_authorized_operations & (1 << op.code)} == cluster
    with_committed_offset(acl_broker, conn, ids)
    acl_broker.grant(*allow(RT.GROUP, ids.group, Op.READ))
    r = conn.request(15, 3, DGR.DescribeGroupsRequest(groups=[ids.group], include_authorized_operations=True))
    assert {op for op in Op if r.groups[0].authorized_operations & (1 << op.code)} == {Op.READ, Op.DESCRIBE}


# ---------------------------------------------------------------- real clients
def test_real_clients_see_kafkas_authorization_errors(acl_broker, ids):
    from confluent_kafka import KafkaError, Producer
    import kafka
    from kafka.errors import TopicAuthorizationFailedError
    acl_broker.create_topic(ids.topic)
    acl_broker.grant(*allow(RT.TOPIC, ids.topic, Op.DESCRIBE))   # the producer may see the topic, not write
    bootstrap = f"127.0.0.1:{acl_broker.port}"
    errors = []
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": False, "message.timeout.ms": 10000})
    p.produce(ids.topic, b"x", on_delivery=lambda e, m: errors.append(e))
    p.flush(20)
    assert errors and errors[0].code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
    kp = kafka.KafkaProducer(bootstrap_servers=bootstrap, retries=0, max_block_ms=10000)
    try:
        with pytest.raises(TopicAuthorizationFailedError):
            kp.send(ids.topic, b"y").get(timeout=20)
    finally:
        kp.close()
    assert acl_broker.log_end_offset(ids.topic) == 0
    acl_broker.grant(*allow(RT.TOPIC, ids.topic, Op.WRITE), *allow(RT.CLUSTER, CLUSTER_NAME, Op.IDEMPOTENT_WRITE))
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    delivered = []
    p.produce(ids.topic, b"z", on_delivery=lambda e, m: delivered.append(e))
    p.flush(20)
    assert delivered == [None] and acl_broker.log_end_offset(ids.topic) == 1
