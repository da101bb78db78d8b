"""Kafka: TransactionStateManagerTest -- partitionFor, loading and unloading with leadership, appends and
their error mapping, timed-out transactions and the expiration of idle transactional ids."""
from txn_test_support import NUM_PARTITIONS, TxnReplicaManager, new_state_manager

from kafkalite.common.topic import TRANSACTION_STATE_TOPIC_NAME
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.coordinator.transaction.transaction_metadata import (NO_PRODUCER_EPOCH, CompleteAbort, CompleteCommit,
                                                                    Empty, Ongoing, PrepareAbort, PrepareCommit,
                                                                    TransactionMetadata)
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.transaction_result import TransactionResult
from kafkalite.utils.time import MockTime

TP0 = TopicPartition("topic", 0)


def loaded_manager(time=None, replica_manager=None, epoch=1, **config):
    manager = new_state_manager(time, replica_manager, **config)
    for p in range(NUM_PARTITIONS):
        manager.load_transactions_for_txn_topic_partition(p, epoch, lambda *a: None)
    return manager


def put(manager, txn_id="txn", pid=7, epoch=NO_PRODUCER_EPOCH, timeout=60_000):
    m = TransactionMetadata(txn_id, pid, epoch, timeout, Empty, set(), -1, manager.time.milliseconds())
    error, found = manager.put_transaction_state_if_not_exists(m)
    assert error is Errors.NONE
    return found


def append(manager, txn_id, epoch, transit):
    errors = []
    manager.append_transaction_to_log(txn_id, epoch, transit, errors.append)
    return errors[0] if errors else None


def test_partition_for_is_javas_string_hash_code():
    # "hello".hashCode() == 99162322 in Java
    assert new_state_manager(transaction_log_num_partitions=50).partition_for("hello") == 99162322 % 50


def test_not_coordinator_until_loaded_and_load_in_progress_meanwhile():
    manager = new_state_manager()
    assert manager.get_transaction_state("txn") == (Errors.NOT_COORDINATOR, None)
    manager.add_loading_partition(manager.partition_for("txn"), 0)
    assert manager.get_transaction_state("txn") == (Errors.COORDINATOR_LOAD_IN_PROGRESS, None)


def test_append_completes_the_transition_and_writes_acks_all_records():
    rm = TxnReplicaManager()
    manager = loaded_manager(replica_manager=rm)
    found = put(manager)
    m = found.transaction_metadata
    _, t = m.prepare_increment_producer_epoch(60_000, None, 1)
    assert append(manager, "txn", 1, t) is Errors.NONE
    assert (m.producer_epoch, m.pending_state) == (0, None)
    p = manager.partition_for("txn")
    assert rm.appends == [(TopicPartition(TRANSACTION_STATE_TOPIC_NAME, p), -1)]
    [(txn_id, stored)] = rm.records(p)
    assert (txn_id, stored.producer_id, stored.producer_epoch, stored.state) == ("txn", 7, 0, Empty)


def test_append_errors_are_mapped_and_the_pending_state_is_cleared():
    rm = TxnReplicaManager()
    manager = loaded_manager(replica_manager=rm)
    m = put(manager).transaction_metadata
    for log_error, coordinator_error in [(Errors.NOT_LEADER_FOR_PARTITION, Errors.NOT_COORDINATOR),
                                         (Errors.NOT_ENOUGH_REPLICAS, Errors.COORDINATOR_NOT_AVAILABLE),
                                         (Errors.REQUEST_TIMED_OUT, Errors.COORDINATOR_NOT_AVAILABLE),
                                         (Errors.MESSAGE_TOO_LARGE, Errors.UNKNOWN_SERVER_ERROR)]:
        rm.fail_with = log_error
        _, t = m.prepare_increment_producer_epoch(60_000, None, 1)
        assert append(manager, "txn", 1, t) is coordinator_error
        assert m.pending_state is None and m.producer_epoch == NO_PRODUCER_EPOCH


def test_append_under_another_coordinator_epoch_is_not_coordinator():
    manager = loaded_manager(epoch=3)
    m = put(manager).transaction_metadata
    _, t = m.prepare_increment_producer_epoch(60_000, None, 1)
    assert append(manager, "txn", 2, t) is Errors.NOT_COORDINATOR


def test_epoch_change_while_the_append_was_in_flight_is_not_coordinator():
    rm = TxnReplicaManager()
    manager = loaded_manager(replica_manager=rm, epoch=1)
    m = put(manager).transaction_metadata
    _, t = m.prepare_increment_producer_epoch(60_000, None, 1)
    rm.hold = True
    errors = []
    manager.append_transaction_to_log("txn", 1, t, errors.append)
    p = manager.partition_for("txn")
    manager.remove_transactions_for_txn_topic_partition(p, 1)
    manager.load_transactions_for_txn_topic_partition(p, 2, lambda *a: None)   # back, with a newer epoch
    rm.release()
    assert errors == [Errors.NOT_COORDINATOR]


def test_load_restores_states_and_resends_markers_of_prepared_transactions():
    rm = TxnReplicaManager()
    first = loaded_manager(replica_manager=rm)
    for txn_id, end_state in [("a", Ongoing), ("b", PrepareCommit), ("c", PrepareAbort)]:
        m = put(first, txn_id).transaction_metadata
        append(first, txn_id, 1, m.prepare_increment_producer_epoch(60_000, None, 1)[1])
        append(first, txn_id, 1, m.prepare_add_partitions({TP0}, 2))
        if end_state is not Ongoing:
            append(first, txn_id, 1, m.prepare_abort_or_commit(end_state, 3))
    resent = []
    second = new_state_manager(replica_manager=rm)
    for p in range(NUM_PARTITIONS):
        second.load_transactions_for_txn_topic_partition(p, 2, lambda *args: resent.append(args))
    a = second.get_transaction_state("a")[1]
    assert (a.coordinator_epoch, a.transaction_metadata.state, a.transaction_metadata.topic_partitions) == \
        (2, Ongoing, {TP0})
    assert sorted((txn_id, epoch, result, transit.txn_state) for txn_id, epoch, result, _, transit in resent) == [
        ("b", 2, TransactionResult.COMMIT, CompleteCommit), ("c", 2, TransactionResult.ABORT, CompleteAbort)]
    metadata = second.get_transaction_state("b")[1].transaction_metadata
    assert metadata.state is PrepareCommit and metadata.pending_state is CompleteCommit


def test_emigration_unloads_the_partition():
    manager = loaded_manager()
    put(manager)
    manager.remove_transactions_for_txn_topic_partition(manager.partition_for("txn"), 1)
    assert manager.get_transaction_state("txn") == (Errors.NOT_COORDINATOR, None)
    assert manager.partition_for("txn") not in manager.transaction_metadata_cache


def test_emigration_without_an_epoch_also_unloads():
    manager = loaded_manager(epoch=4)
    put(manager)
    manager.remove_transactions_for_txn_topic_partition(manager.partition_for("txn"), None)
    assert manager.get_transaction_state("txn") == (Errors.NOT_COORDINATOR, None)


def test_timed_out_transactions_lists_only_ongoing_ones_past_their_timeout():
    time = MockTime()
    manager = loaded_manager(time)
    for txn_id, timeout in [("slow", 1000), ("fast", 100_000)]:
        m = put(manager, txn_id, timeout=timeout).transaction_metadata
        append(manager, txn_id, 1, m.prepare_increment_producer_epoch(timeout, None, time.milliseconds())[1])
        append(manager, txn_id, 1, m.prepare_add_partitions({TP0}, time.milliseconds()))
    put(manager, "idle", timeout=1)
    time.sleep(2000)
    assert [t.transactional_id for t in manager.timed_out_transactions()] == ["slow"]


def test_idle_transactional_ids_expire_with_a_tombstone():
    time = MockTime()
    rm = TxnReplicaManager()
    manager = loaded_manager(time, rm, transactional_id_expiration_ms=1000)
    m = put(manager).transaction_metadata
    append(manager, "txn", 1, m.prepare_increment_producer_epoch(60_000, None, time.milliseconds())[1])
    manager.remove_expired_transactional_ids()
    assert manager.get_transaction_state("txn")[1] is not None   # not idle long enough yet
    time.sleep(1001)
    manager.remove_expired_transactional_ids()
    assert manager.get_transaction_state("txn") == (Errors.NONE, None)
    assert rm.records(manager.partition_for("txn"))[-1] == ("txn", None)
    reloaded = loaded_manager(replica_manager=rm, epoch=2)
    assert reloaded.get_transaction_state("txn") == (Errors.NONE, None)


def test_transaction_topic_configs():
    configs = new_state_manager(transaction_log_min_insync_replicas=2,
                                transaction_log_segment_bytes=1234).transaction_topic_configs()
    assert configs == {"unclean.leader.election.enable": "false", "compression.type": "uncompressed",
                       "cleanup.policy": "compact", "min.insync.replicas": "2", "segment.bytes": "1234"}


def test_validate_transaction_timeout():
    manager = new_state_manager(transaction_max_timeout_ms=1000)
    assert manager.validate_transaction_timeout_ms(1000)
    assert not manager.validate_transaction_timeout_ms(1001) and not manager.validate_transaction_timeout_ms(0)


def test_state_lock_readers_share_writers_wait_and_the_writer_may_read():
    import threading
    from kafkalite.coordinator.transaction.transaction_state_manager import ReentrantReadWriteLock
    lock = ReentrantReadWriteLock()
    events = []
    with lock.read_lock():
        with lock.read_lock():   # re-entrant for a reader
            writer = threading.Thread(target=lambda: lock.write_lock().__enter__() or events.append("wrote"))
            writer.start()
            writer.join(0.2)
            assert events == [] and writer.is_alive()   # a writer waits for the readers
    writer.join(5)
    assert events == ["wrote"]
    lock2 = ReentrantReadWriteLock()
    with lock2.write_lock():
        with lock2.read_lock():   # the writing thread may also read
            reader = threading.Thread(target=lambda: lock2.read_lock().__enter__() or events.append("read"))
            reader.start()
            reader.join(0.2)
            assert "read" not in events   # other readers wait for the writer
    reader.join(5)
    assert events[-1] == "read"
