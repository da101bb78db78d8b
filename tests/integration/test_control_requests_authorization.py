"""Kafka's AuthorizerIntegrationTest cluster-action cases (testLeaderAndIsr..., testStopReplica..., testUpdateMetadata...,
testControlledShutdown..., follower Fetch): with an authorizer, the controller-to-broker requests need CLUSTER_ACTION on
the cluster. A plain client on the PLAINTEXT listener, or a client with its own certificate on the SSL listener,
sends LEADER_AND_ISR / UPDATE_METADATA / STOP_REPLICA / CONTROLLED_SHUTDOWN (oldest and newest versions, claiming
to be the controller), WRITE_TXN_MARKERS and a follower Fetch: each is answered CLUSTER_AUTHORIZATION_FAILED (the fetch
TOPIC_AUTHORIZATION_FAILED) before anything else is looked at, and nothing changes -- the topic keeps its leader
and records. The brokers themselves talk over mutual TLS as the broker certificate's principal, which holds
ClusterAction (one in-process broker) or is a super user (three broker processes over ZooKeeper), and keep
working: new topics get leaders, replication goes on.
"""
from __future__ import annotations

import pytest

from acl_harness import ANONYMOUS, BROKER_SSL_PRINCIPAL, AclBroker, make_certs, ssl_broker_props, ssl_principal
from clients import build_batch, raw_fetch_body, raw_produce
from support import wait_until
from test_forged_control_requests import FORGERIES

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    return make_certs(tmp_path_factory.mktemp("certs"))


def forge_all(conn, topic):
    answers = []
    for api_key, build, version in FORGERIES:
        for controller_id in (0, 9):
            r = conn.request(api_key, version, build(version, topic, controller_id))
            answers.append((build.__name__, version, controller_id, Errors.for_code(r.error_code)))
    return answers


@pytest.mark.parametrize("who", [ANONYMOUS, ssl_principal("alice")], ids=["plain-client", "ssl-client"])
def test_control_requests_without_cluster_action_change_nothing(tmp_path, certs, who):
    broker = AclBroker(tmp_path, certs=certs).start()
    try:
        server = broker.server
        topic = broker.create_topic("kept")
        # the operator lets the clients use the topic, but gives them no ClusterAction
        from acl_harness import binding
        from kafkalite.common.acl.acl_operation import AclOperation as Op
        from kafkalite.common.resource.resource_type import ResourceType as RT
        broker.grant(binding(who, RT.TOPIC, "*", Op.ALL))
        conn = broker.client_for(who)
        assert raw_produce(conn, topic, {0: build_batch([b"a", b"b"])}, version=8)[0].error_code == 0
        partition = server.replica_manager.get_partition(TopicPartition(topic, 0))
        leader_epoch = partition.leader_epoch

        answers = forge_all(conn, topic)
        assert {a[3] for a in answers} == {Errors.CLUSTER_AUTHORIZATION_FAILED}, answers
        # so do transaction markers: a forged COMMIT marker for a made-up producer appends nothing
        from kafkalite.protocol.messages import write_txn_markers as W
        r = conn.request(27, 1, W.WriteTxnMarkersRequest(markers=[W.WritableTxnMarker(
            producer_id=4242, producer_epoch=0, transaction_result=True, coordinator_epoch=0,
            topics=[W.WritableTxnMarkerTopic(name=topic, partition_indexes=[0])])]))
        assert r.markers[0].topics[0].partitions[0].error_code == Errors.CLUSTER_AUTHORIZATION_FAILED.code
        # a follower fetch (replica id 0) needs ClusterAction too
        fetch = raw_fetch_body(topic, [0], 0, 0)
        fetch.replica_id = 0
        r = conn.request(1, 11, fetch)
        assert r.responses[0].partitions[0].error_code == Errors.TOPIC_AUTHORIZATION_FAILED.code

        # nothing changed: same leader and epoch, the records are there, the broker was not shut down
        assert server.replica_manager.get_partition(TopicPartition(topic, 0)).leader_epoch == leader_epoch
        assert server.metadata_cache.get_partition_info(topic, 0).leader == 0
        assert broker.log_end_offset(topic) == 2
        assert not server.kafka_controller.controller_context.shutting_down_broker_ids
        # and the broker still follows its real controller, which connects as the broker certificate
        broker.create_topic("after")
        assert raw_produce(conn, "after", {0: build_batch([b"c"])}, version=8)[0].error_code == 0
    finally:
        broker.stop()


def test_without_any_acl_the_brokers_own_requests_would_be_refused_too(tmp_path, certs):
    """The broker's ClusterAction is what lets its controller in: the same principal's grant, checked directly."""
    broker = AclBroker(tmp_path, certs=certs).start()
    try:
        found = broker.authorizer.acls(__import__("kafkalite.common.acl.acl_binding", fromlist=["AclBindingFilter"])
                                       .AclBindingFilter.ANY)
        assert [(b.entry.principal, b.entry.operation.name) for b in found] == \
            [(BROKER_SSL_PRINCIPAL, "CLUSTER_ACTION")]
    finally:
        broker.stop()


# ---------------------------------------------------------------- three broker processes
def test_three_brokers_over_mutual_tls_keep_replicating_while_clients_are_refused(tmp_path, certs):
    from cluster_harness import ClusterProcesses, zookeeper_available
    if not zookeeper_available():
        pytest.skip("Debian's zookeeper package is not installed")
    from confluent_kafka.admin import (AclBinding as CkAclBinding, AclOperation, AclPermissionType, AdminClient,
                                       ResourcePatternType, ResourceType)
    import clients
    from harness import RawConnection

    alice = ssl_principal("alice")
    props = {k: v for k, v in ssl_broker_props(certs).items() if k != "listeners"}
    props.update({"authorizer.class.name": "kafka.security.authorizer.AclAuthorizer",
                  "super.users": f"{BROKER_SSL_PRINCIPAL};{alice}", "offsets.topic.replication.factor": "3",
                  "default.replication.factor": "3", "min.insync.replicas": "2"})
    cluster = ClusterProcesses(tmp_path, 3, overrides=props, extra_listeners={"SSL": "SSL"}).start()
    try:
        # alice (a super user, over SSL) lets plain clients use topics and groups -- but not the cluster's actions
        ssl_bootstrap = ",".join(f"127.0.0.1:{cluster.listener_port('SSL', i)}" for i in range(3))
        admin = AdminClient({"bootstrap.servers": ssl_bootstrap, "security.protocol": "ssl",
                             "ssl.ca.location": str(certs / "ca.crt"),
                             "ssl.certificate.location": str(certs / "alice.crt"),
                             "ssl.key.location": str(certs / "alice.key")})
        grants = [CkAclBinding(ResourceType.TOPIC, "*", ResourcePatternType.LITERAL, ANONYMOUS, "*",
                               AclOperation.ALL, AclPermissionType.ALLOW),
                  CkAclBinding(ResourceType.GROUP, "*", ResourcePatternType.LITERAL, ANONYMOUS, "*",
                               AclOperation.ALL, AclPermissionType.ALLOW),
                  CkAclBinding(ResourceType.BROKER, "kafka-cluster", ResourcePatternType.LITERAL, ANONYMOUS, "*",
                               AclOperation.IDEMPOTENT_WRITE, AclPermissionType.ALLOW)]
        for f in admin.create_acls(grants, request_timeout=20).values():
            f.result(30)
        topic = "replicated"

        def created():   # the ACLs reach every broker through /kafka-acl-changes
            try:
                clients.create_topic(cluster.bootstrap, topic, 2, replication_factor=3)
                return True
            except Exception:  # noqa: BLE001 -- TOPIC_AUTHORIZATION_FAILED until the change arrived
                return False
        wait_until(created, 30, "the topic to be created once the ACLs arrived")
        records = clients.make_records(40, partitions=2)
        clients.produce_confluent(cluster.bootstrap, topic, records, {"acks": "all"})

        refused = []
        for i, b in enumerate(cluster.brokers):
            conn = RawConnection(b.port)
            try:
                for n, (api_key, build, version) in enumerate(FORGERIES):
                    r = clients.raw_request(conn, api_key, version, build(version, topic, 0), correlation_id=n + 1)
                    refused.append(Errors.for_code(r.error_code))
            finally:
                conn.close()
        assert set(refused) == {Errors.CLUSTER_AUTHORIZATION_FAILED}

        # the cluster is intact: every replica in sync, all records readable, a new topic gets its leaders
        for p in range(2):
            cluster.wait_for_isr(topic, p, [0, 1, 2])
        got = clients.read_confluent(cluster.bootstrap, topic, [0, 1], 40, timeout=30)
        assert sorted(c.value for c in got) == sorted(r.value for r in records)
        clients.create_topic(cluster.bootstrap, topic + "-after", 3, replication_factor=3)
    except BaseException:
        print(cluster.log_tails())
        raise
    finally:
        cluster.stop()
