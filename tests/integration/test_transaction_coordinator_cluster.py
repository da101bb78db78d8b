"""The transaction coordinator on three in-process brokers: markers go over the network to every partition
leader (TxnMarkerSenderThread), and when the coordinator's broker stops, leadership of its __transaction_state
partition moves and the new leader loads the transactional id from the replicated log (the next instance
gets the next epoch, and commits)."""
import pytest
from clients import read_confluent
from support import wait_until

from kafkalite.common.utils import java_string_hashcode, utils_abs
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.server.kafka_apis import SERVED_APIS

pytestmark = pytest.mark.skipif(ApiKeys.WRITE_TXN_MARKERS not in SERVED_APIS,
                                reason="the broker end of WriteTxnMarkers is not merged")
TXN_PARTITIONS = 3


def commit(bootstrap, txn_id, topic, values):
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id})
    p.init_transactions(30)
    p.begin_transaction()
    for i, v in enumerate(values):
        p.produce(topic, v, partition=i % 3)
    p.commit_transaction(30)


def test_markers_reach_every_leader_and_the_coordinator_moves(kafka_cluster_factory):
    from confluent_kafka.admin import AdminClient, NewTopic
    cluster = kafka_cluster_factory(3, replication_factor=3, min_insync_replicas=2,
                                    transaction_state_log_replication_factor=3,
                                    transaction_state_log_num_partitions=TXN_PARTITIONS,
                                    transaction_state_log_min_isr=2)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("txn-out", 3, 3)])["txn-out"].result(15)
    wait_until(lambda: len({p.leader for p in admin.list_topics("txn-out", timeout=10).topics["txn-out"]
                            .partitions.values()}) == 3, 20, "one leader per broker")
    commit(cluster.bootstrap_servers, "mover", "txn-out", [b"a", b"b", b"c"])
    got = read_confluent(cluster.bootstrap_servers, "txn-out", [0, 1, 2], 3, timeout=20,
                         config={"isolation.level": "read_committed"})
    assert sorted(r.value for r in got) == [b"a", b"b", b"c"]

    partition = utils_abs(java_string_hashcode("mover")) % TXN_PARTITIONS
    coordinator = admin.list_topics("__transaction_state", timeout=10).topics["__transaction_state"] \
        .partitions[partition].leader
    tc = cluster.brokers[coordinator].server.transaction_coordinator
    wait_until(lambda: tc.handle_describe_transactions("mover").state == "CompleteCommit", 20, "CompleteCommit")
    pid = tc.handle_describe_transactions("mover").producer_id
    cluster.brokers[coordinator].stop()   # controlled shutdown: leadership of the partition moves

    survivors = [b for i, b in enumerate(cluster.brokers) if i != coordinator]
    bootstrap = ",".join(b.bootstrap_servers for b in survivors)
    commit(bootstrap, "mover", "txn-out", [b"d", b"e", b"f"])
    new_tc = None
    for b in survivors:
        d = b.server.transaction_coordinator.handle_describe_transactions("mover")
        if d.error.name == "NONE":
            new_tc = d
    assert new_tc is not None and new_tc.producer_id == pid and new_tc.producer_epoch == 1
    wait_until(lambda: [b.server.transaction_coordinator.handle_describe_transactions("mover").state
                        for b in survivors if b.server.transaction_coordinator.handle_describe_transactions(
                            "mover").error.name == "NONE"] == ["CompleteCommit"], 20, "the second commit to complete")
    got = read_confluent(bootstrap, "txn-out", [0, 1, 2], 6, timeout=30, config={"isolation.level": "read_committed"})
    assert sorted(r.value for r in got) == [b"a", b"b", b"c", b"d", b"e", b"f"]
