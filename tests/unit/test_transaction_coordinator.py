"""Kafka: TransactionCoordinatorTest -- InitProducerId (new ids, epoch bumps, fencing an ongoing transaction,
KIP-360), AddPartitionsToTxn, EndTxn, the abort of timed-out transactions and KIP-664's list/describe, over a
real TransactionStateManager and in-memory logs."""
import pytest
from group_test_support import ImmediateScheduler
from txn_test_support import (NUM_PARTITIONS, FakeProducerIdManager, RecordingMarkerChannel, TxnReplicaManager,
                              new_state_manager)

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.transaction_coordinator import TransactionCoordinator
from kafkalite.coordinator.transaction.transaction_metadata import (CompleteCommit, Empty, Ongoing, PrepareAbort,
                                                                    PrepareCommit)
from kafkalite.coordinator.transaction.transaction_state_manager import TransactionConfig
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.utils.time import MockTime

TP0, TP1 = TopicPartition("topic", 0), TopicPartition("topic", 1)
COMMIT, ABORT = TransactionResult.COMMIT, TransactionResult.ABORT


class Harness:
    def __init__(self, load=True, **config):
        self.time = MockTime()
        self.rm = TxnReplicaManager()
        config.setdefault("transaction_log_num_partitions", NUM_PARTITIONS)
        self.manager = new_state_manager(self.time, self.rm, **config)
        self.channel = RecordingMarkerChannel()
        self.coordinator = TransactionCoordinator(0, TransactionConfig(**config), ImmediateScheduler(),
                                                  FakeProducerIdManager(), self.manager, self.channel, self.time)
        self.coordinator.is_active.set()
        if load:
            for p in range(NUM_PARTITIONS):
                self.coordinator.handle_txn_immigration(p, 1)

    def init(self, txn_id="txn", timeout=60_000, expected=None):
        out = []
        self.coordinator.handle_init_producer_id(txn_id, timeout, expected, out.append)
        return out[0]

    def add(self, pid, epoch, partitions, txn_id="txn"):
        out = []
        self.coordinator.handle_add_partitions_to_transaction(txn_id, pid, epoch, partitions, out.append)
        return out[0]

    def end(self, pid, epoch, result, txn_id="txn"):
        out = []
        self.coordinator.handle_end_transaction(txn_id, pid, epoch, result, out.append)
        return out[0]

    def metadata(self, txn_id="txn"):
        return self.manager.get_transaction_state(txn_id)[1].transaction_metadata


@pytest.fixture
def h():
    return Harness()


def test_init_without_transactional_id_is_a_plain_producer_id(h):
    a, b = h.init(None), h.init(None)
    assert (a.error, a.producer_epoch, b.producer_id) == (Errors.NONE, 0, a.producer_id + 1)


def test_init_rejects_empty_id_and_too_long_timeouts(h):
    assert h.init("").error is Errors.INVALID_REQUEST
    assert h.init("txn", timeout=15 * 60 * 1000 + 1).error is Errors.INVALID_TRANSACTION_TIMEOUT
    assert h.init("txn", timeout=0).error is Errors.INVALID_TRANSACTION_TIMEOUT


def test_init_when_not_coordinator():
    assert Harness(load=False).init().error is Errors.NOT_COORDINATOR


def test_init_allocates_an_id_and_each_new_instance_bumps_the_epoch(h):
    first = h.init()
    second = h.init()
    assert (first.error, first.producer_epoch) == (Errors.NONE, 0)
    assert (second.producer_id, second.producer_epoch) == (first.producer_id, 1)
    [(_, stored)] = h.rm.records(h.manager.partition_for("txn"))[-1:]
    assert (stored.producer_epoch, stored.state) == (1, Empty)


def test_add_partitions_checks_producer_id_and_epoch(h):
    r = h.init()
    assert h.add(r.producer_id + 1, r.producer_epoch, {TP0}) is Errors.INVALID_PRODUCER_ID_MAPPING
    assert h.add(r.producer_id, r.producer_epoch - 1, {TP0}) is Errors.PRODUCER_FENCED
    assert h.add(r.producer_id, r.producer_epoch, {TP0}) is Errors.NONE
    assert (h.metadata().state, h.metadata().topic_partitions) == (Ongoing, {TP0})
    appends = len(h.rm.appends)
    assert h.add(r.producer_id, r.producer_epoch, {TP0}) is Errors.NONE   # nothing new: no write
    assert len(h.rm.appends) == appends
    assert h.add(7, 0, {TP0}, txn_id="unknown") is Errors.INVALID_PRODUCER_ID_MAPPING


def test_end_transaction_writes_prepare_commit_then_asks_for_markers(h):
    r = h.init()
    h.add(r.producer_id, r.producer_epoch, {TP0, TP1})
    assert h.end(r.producer_id, r.producer_epoch, COMMIT) is Errors.NONE
    [(txn_id, epoch, result, metadata, transit)] = h.channel.sent
    assert (txn_id, epoch, result) == ("txn", 1, COMMIT)
    assert metadata.state is PrepareCommit and metadata.topic_partitions == {TP0, TP1}
    assert transit.txn_state is CompleteCommit
    # while the markers are out (CompleteCommit pending) everything is concurrent
    assert h.end(r.producer_id, r.producer_epoch, COMMIT) is Errors.CONCURRENT_TRANSACTIONS
    assert h.end(r.producer_id, r.producer_epoch, ABORT) is Errors.CONCURRENT_TRANSACTIONS
    assert h.add(r.producer_id, r.producer_epoch, {TP0}) is Errors.CONCURRENT_TRANSACTIONS
    assert h.init().error is Errors.CONCURRENT_TRANSACTIONS


def test_end_transaction_without_a_transaction_is_invalid(h):
    r = h.init()
    assert h.end(r.producer_id, r.producer_epoch, COMMIT) is Errors.INVALID_TXN_STATE
    assert h.end(r.producer_id + 1, r.producer_epoch, COMMIT) is Errors.INVALID_PRODUCER_ID_MAPPING


def test_end_transaction_after_completion_is_idempotent(h):
    r = h.init()
    h.add(r.producer_id, r.producer_epoch, {TP0})
    h.end(r.producer_id, r.producer_epoch, COMMIT)
    _, _, _, m, transit = h.channel.sent[0]
    m.remove_partition(TP0)
    m.pending_state = None
    with m.lock:
        complete = m.prepare_complete(h.time.milliseconds())
    h.manager.append_transaction_to_log("txn", 1, complete, lambda e: None)
    assert m.state is CompleteCommit
    assert h.end(r.producer_id, r.producer_epoch, COMMIT) is Errors.NONE
    assert h.end(r.producer_id, r.producer_epoch, ABORT) is Errors.INVALID_TXN_STATE


def test_a_new_instance_fences_and_aborts_the_ongoing_transaction(h):
    zombie = h.init()
    h.add(zombie.producer_id, zombie.producer_epoch, {TP0})
    assert h.init().error is Errors.CONCURRENT_TRANSACTIONS   # retry later: the abort is under way
    m = h.metadata()
    assert (m.state, m.producer_epoch) == (PrepareAbort, zombie.producer_epoch + 1)
    [(_, _, result, _, _)] = h.channel.sent
    assert result is ABORT
    # the zombie is fenced everywhere
    assert h.end(zombie.producer_id, zombie.producer_epoch, COMMIT) is Errors.PRODUCER_FENCED
    assert h.add(zombie.producer_id, zombie.producer_epoch, {TP1}) is Errors.PRODUCER_FENCED


def test_kip360_bump_by_the_producer_itself(h):
    r = h.init()
    bumped = h.init(expected=(r.producer_id, r.producer_epoch))
    assert (bumped.error, bumped.producer_epoch) == (Errors.NONE, r.producer_epoch + 1)
    assert h.init(expected=(r.producer_id, r.producer_epoch)).producer_epoch == bumped.producer_epoch   # retry
    newer = h.init()
    assert h.init(expected=(r.producer_id, r.producer_epoch)).error is Errors.PRODUCER_FENCED
    assert h.init(expected=(r.producer_id + 5, newer.producer_epoch)).error is Errors.PRODUCER_FENCED


def test_timed_out_transactions_are_aborted_with_a_bumped_epoch():
    h = Harness()
    r = h.init(timeout=1000)
    h.add(r.producer_id, r.producer_epoch, {TP0})
    h.coordinator.abort_timed_out_transactions()
    assert h.metadata().state is Ongoing
    h.time.sleep(1001)
    h.coordinator.abort_timed_out_transactions()
    m = h.metadata()
    assert (m.state, m.producer_epoch) == (PrepareAbort, r.producer_epoch + 1)
    assert h.channel.sent[0][2] is ABORT
    assert h.end(r.producer_id, r.producer_epoch, COMMIT) is Errors.PRODUCER_FENCED


def test_emigration_drops_queued_markers(h):
    h.coordinator.handle_txn_emigration(3, 1)
    assert h.channel.removed == [3]


def test_list_and_describe_transactions(h):
    r = h.init("a")
    h.add(r.producer_id, r.producer_epoch, {TP0}, txn_id="a")
    h.init("b")
    listed = h.coordinator.handle_list_transactions(set(), set())
    assert sorted(listed.transactions) == [("a", r.producer_id, "Ongoing"), ("b", r.producer_id + 1, "Empty")]
    only = h.coordinator.handle_list_transactions(set(), {"Ongoing", "Bogus"})
    assert [t[0] for t in only.transactions] == ["a"] and only.unknown_state_filters == ("Bogus",)
    assert [t[0] for t in h.coordinator.handle_list_transactions({r.producer_id + 1}, set()).transactions] == ["b"]
    d = h.coordinator.handle_describe_transactions("a")
    assert (d.error, d.state, d.producer_id, d.topic_partitions) == (Errors.NONE, "Ongoing", r.producer_id, (TP0,))
    assert h.coordinator.handle_describe_transactions("nope").error is Errors.TRANSACTIONAL_ID_NOT_FOUND
    h.coordinator.is_active.clear()
    assert h.coordinator.handle_list_transactions(set(), set()).error is Errors.COORDINATOR_NOT_AVAILABLE


def test_partition_for_goes_through_the_state_manager(h):
    assert h.coordinator.partition_for("txn") == h.manager.partition_for("txn")
