"""The transaction coordinator's APIs on the wire (KafkaApisTest-style, against a broker process): the
PRODUCER_FENCED / INVALID_PRODUCER_EPOCH answer by request version, AddPartitionsToTxn's per-partition
errors, and KIP-664's DescribeTransactions / ListTransactions."""
import pytest
from clients import create_topic, raw_request
from harness import RawConnection
from support import wait_until

from kafkalite.protocol.errors import Errors
from kafkalite.protocol.messages import (add_partitions_to_txn as APT, describe_transactions as DT,
                                         end_txn as ET, find_coordinator as FC, init_producer_id as IPI,
                                         list_transactions as LT)

INIT, ADD, END, DESCRIBE, LIST, FIND = 22, 24, 26, 65, 66, 10


@pytest.fixture
def conn_and_topic(broker_factory, unique_topic):
    b = broker_factory({"transaction.state.log.num.partitions": "2"})
    create_topic(b.bootstrap, unique_topic, partitions=2)
    conn = RawConnection(b.port)
    wait_until(lambda: raw_request(conn, FIND, 1, FC.FindCoordinatorRequest(key="t", key_type=1)).error_code == 0,
               20, "a transaction coordinator")
    yield conn, unique_topic
    conn.sock.close()


def init(conn, txn_id, version=4, pid=-1, epoch=-1):
    result = []

    def answered():
        r = raw_request(conn, INIT, version, IPI.InitProducerIdRequest(
            transactional_id=txn_id, transaction_timeout_ms=60000, producer_id=pid, producer_epoch=epoch))
        result[:] = [r]
        return Errors.for_code(r.error_code) not in (Errors.COORDINATOR_LOAD_IN_PROGRESS, Errors.NOT_COORDINATOR,
                                                     Errors.COORDINATOR_NOT_AVAILABLE, Errors.CONCURRENT_TRANSACTIONS)
    wait_until(answered, 20, "InitProducerId to be answered")
    return result[0]


def add(conn, txn_id, pid, epoch, topics, version=3):
    r = raw_request(conn, ADD, version, APT.AddPartitionsToTxnRequest(
        transactional_id=txn_id, producer_id=pid, producer_epoch=epoch,
        topics=[APT.AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in topics.items()]))
    return {(t.name, p.partition_index): Errors.for_code(p.error_code) for t in r.results for p in t.results}


def test_fenced_error_depends_on_the_request_version(conn_and_topic):
    conn, topic = conn_and_topic
    old = init(conn, "fence-me")
    new = init(conn, "fence-me")
    assert (new.producer_id, new.producer_epoch) == (old.producer_id, old.producer_epoch + 1)
    # KIP-360 bump naming a stale epoch: v3 clients get 2.4's INVALID_PRODUCER_EPOCH, v4 PRODUCER_FENCED
    assert init(conn, "fence-me", 3, old.producer_id, old.producer_epoch).error_code == Errors.INVALID_PRODUCER_EPOCH.code
    assert init(conn, "fence-me", 4, old.producer_id, old.producer_epoch).error_code == Errors.PRODUCER_FENCED.code
    assert set(add(conn, "fence-me", old.producer_id, old.producer_epoch, {topic: [0]}, 1).values()) == \
        {Errors.INVALID_PRODUCER_EPOCH}
    assert set(add(conn, "fence-me", old.producer_id, old.producer_epoch, {topic: [0]}, 3).values()) == \
        {Errors.PRODUCER_FENCED}
    end = raw_request(conn, END, 1, ET.EndTxnRequest(transactional_id="fence-me", producer_id=old.producer_id,
                                                     producer_epoch=old.producer_epoch, committed=True))
    assert end.error_code == Errors.INVALID_PRODUCER_EPOCH.code
    # the KIP-360 bump with the current epoch works
    bumped = init(conn, "fence-me", 4, new.producer_id, new.producer_epoch)
    assert (bumped.error_code, bumped.producer_epoch) == (0, new.producer_epoch + 1)


def test_add_partitions_refuses_internal_and_unknown_partitions(conn_and_topic):
    conn, topic = conn_and_topic
    r = init(conn, "adder")
    errors = add(conn, "adder", r.producer_id, r.producer_epoch,
                 {topic: [0, 7], "__consumer_offsets": [0]})
    assert errors == {(topic, 0): Errors.OPERATION_NOT_ATTEMPTED, (topic, 7): Errors.UNKNOWN_TOPIC_OR_PARTITION,
                      ("__consumer_offsets", 0): Errors.TOPIC_AUTHORIZATION_FAILED}
    assert add(conn, "adder", r.producer_id, r.producer_epoch, {topic: [0, 1]}) == \
        {(topic, 0): Errors.NONE, (topic, 1): Errors.NONE}


def test_describe_and_list_transactions(conn_and_topic):
    conn, topic = conn_and_topic
    r = init(conn, "described")
    add(conn, "described", r.producer_id, r.producer_epoch, {topic: [1]})
    init(conn, "idle")
    d = raw_request(conn, DESCRIBE, 0, DT.DescribeTransactionsRequest(transactional_ids=["described", "nobody"]))
    described, nobody = d.transaction_states
    assert (described.error_code, described.transaction_state, described.producer_id, described.producer_epoch,
            described.transaction_timeout_ms) == (0, "Ongoing", r.producer_id, r.producer_epoch, 60000)
    assert [(t.topic, t.partitions) for t in described.topics] == [(topic, [1])]
    assert described.transaction_start_time_ms > 0
    assert nobody.error_code == Errors.TRANSACTIONAL_ID_NOT_FOUND.code
    listed = raw_request(conn, LIST, 0, LT.ListTransactionsRequest(state_filters=[], producer_id_filters=[]))
    assert {(t.transactional_id, t.transaction_state) for t in listed.transaction_states} >= \
        {("described", "Ongoing"), ("idle", "Empty")}
    ongoing = raw_request(conn, LIST, 1, LT.ListTransactionsRequest(state_filters=["Ongoing", "Bogus"],
                                                                    producer_id_filters=[], duration_filter=0))
    assert [t.transactional_id for t in ongoing.transaction_states] == ["described"]
    assert ongoing.unknown_state_filters == ["Bogus"]


def test_add_offsets_adds_the_groups_consumer_offsets_partition(conn_and_topic):
    from kafkalite.common.utils import java_string_hashcode, utils_abs
    from kafkalite.protocol.messages import add_offsets_to_txn as AOT
    conn, _ = conn_and_topic
    r = init(conn, "offsets-txn")
    answer = raw_request(conn, 25, 3, AOT.AddOffsetsToTxnRequest(
        transactional_id="offsets-txn", producer_id=r.producer_id, producer_epoch=r.producer_epoch,
        group_id="my-group"))
    assert answer.error_code == 0
    stale = raw_request(conn, 25, 1, AOT.AddOffsetsToTxnRequest(
        transactional_id="offsets-txn", producer_id=r.producer_id, producer_epoch=r.producer_epoch - 1,
        group_id="my-group"))
    assert stale.error_code == Errors.INVALID_PRODUCER_EPOCH.code
    [state] = raw_request(conn, DESCRIBE, 0, DT.DescribeTransactionsRequest(
        transactional_ids=["offsets-txn"])).transaction_states
    # offsets.topic.num.partitions defaults to 50
    assert [(t.topic, t.partitions) for t in state.topics] == \
        [("__consumer_offsets", [utils_abs(java_string_hashcode("my-group")) % 50])]
