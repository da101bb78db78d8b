"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/DelayedElectLeader.scala

Classes: DelayedElectLeader -- an ElectLeaders request waits, after the controller elected the leaders, until
this broker's metadata cache shows them (so the admin client that gets the answer finds the new leaders in
Metadata); whatever is not seen before the request's timeout is REQUEST_TIMED_OUT.
"""
from __future__ import annotations

from kafkalite.protocol.errors import Errors
from kafkalite.server.delayed_operation import DelayedOperation


class DelayedElectLeader(DelayedOperation):
    """Kafka: DelayedElectLeader(delayMs, expectedLeaders, results, replicaManager, responseCallback)."""

    def __init__(self, delay_ms: int, expected_leaders: dict, results: dict, replica_manager, response_callback):
        super().__init__(delay_ms)
        self.waiting_partitions = dict(expected_leaders)    # tp -> the leader the controller elected
        self.full_results = dict(results)                   # tp -> (Errors, message)
        self.replica_manager = replica_manager
        self.response_callback = response_callback

    def on_expiration(self) -> None:
        pass

    # Kafka: DelayedElectLeader.onComplete -- what is still not in the metadata cache timed out
    def on_complete(self) -> None:
        self.update_waiting()
        timed_out = {tp: (Errors.REQUEST_TIMED_OUT, None) for tp in self.waiting_partitions}
        self.response_callback({**timed_out, **self.full_results})

    # Kafka: DelayedElectLeader.tryComplete
    def try_complete(self) -> bool:
        self.update_waiting()
        return not self.waiting_partitions and self.force_complete()

    # Kafka: DelayedElectLeader.updateWaiting
    def update_waiting(self) -> None:
        for tp, leader in list(self.waiting_partitions.items()):
            state = self.replica_manager.metadata_cache.get_partition_info(tp.topic, tp.partition)
            if state is not None and state.leader == leader:
                del self.waiting_partitions[tp]
                self.full_results[tp] = (Errors.NONE, None)
