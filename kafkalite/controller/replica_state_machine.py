"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/ReplicaStateMachine.scala

Classes: ReplicaState, ReplicaStateMachine (Kafka 2.4's ZkReplicaStateMachine).

States: ``NonExistentReplica → NewReplica → OnlineReplica ⇄ OfflineReplica → ReplicaDeletionStarted →
ReplicaDeletionSuccessful | ReplicaDeletionIneligible → NonExistentReplica``.
- NewReplica: if the partition already has a leader, the new replica is told (LeaderAndIsr, is_new).
- OnlineReplica: a replica coming back (or a broker starting) gets LeaderAndIsr for its partition.
- OfflineReplica: StopReplica(delete=false) to it; it leaves the ISR (a conditional write of the state znode;
  if it led, the leader becomes -1 until the partition state machine elects one) and the remaining replicas
  get LeaderAndIsr.
- ReplicaDeletionStarted: StopReplica(delete=true) to it (topic deletion).
- NonExistentReplica: the replica leaves the assignment in the controller's context.

Left out: offline log dirs, reassignment of replicas.
"""
from __future__ import annotations

import enum

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext, PartitionAndReplica
from kafkalite.protocol.errors import ControllerMovedException
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import LeaderAndIsr, LeaderIsrAndControllerEpoch


class ReplicaState(enum.Enum):
    """Kafka: ReplicaState -- value = (code, names of the valid previous states)."""

    NewReplica = (1, ("NonExistentReplica",))
    OnlineReplica = (2, ("NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"))
    OfflineReplica = (3, ("NewReplica", "OnlineReplica", "OfflineReplica", "ReplicaDeletionIneligible"))
    ReplicaDeletionStarted = (4, ("OfflineReplica",))
    ReplicaDeletionSuccessful = (5, ("ReplicaDeletionStarted",))
    ReplicaDeletionIneligible = (6, ("OfflineReplica", "ReplicaDeletionStarted"))
    NonExistentReplica = (7, ("ReplicaDeletionSuccessful",))

    @property
    def valid_previous_states(self) -> set["ReplicaState"]:
        return {ReplicaState[name] for name in self.value[1]}


class ReplicaStateMachine(Logging):
    """Kafka: ZkReplicaStateMachine."""

    def __init__(self, config, state_change_logger, controller_context: ControllerContext, zk_client,
                 controller_broker_request_batch):
        self.config = config
        self.controller_id = config.broker_id
        self.state_change_logger = state_change_logger
        self.controller_context = controller_context
        self.zk_client = zk_client
        self.controller_broker_request_batch = controller_broker_request_batch
        self.log_ident = f"[ReplicaStateMachine controllerId={self.controller_id}] "

    # Kafka: ReplicaStateMachine.startup
    def startup(self) -> None:
        self.info("Initializing replica state")
        self.initialize_replica_state()
        self.info("Triggering online replica state changes")
        ctx = self.controller_context
        online, offline = [], []
        for tp in sorted(ctx.all_partitions(), key=lambda t: (t.topic, t.partition)):
            for r in ctx.partition_replica_assignment(tp):
                (online if ctx.is_replica_online(r, tp) else offline).append(PartitionAndReplica(tp, r))
        self.handle_state_changes(online, ReplicaState.OnlineReplica)
        self.info("Triggering offline replica state changes")
        self.handle_state_changes(offline, ReplicaState.OfflineReplica)

    # Kafka: ReplicaStateMachine.shutdown
    def shutdown(self) -> None:
        self.info("Stopped replica state machine")

    # Kafka: ReplicaStateMachine.initializeReplicaState
    def initialize_replica_state(self) -> None:
        ctx = self.controller_context
        for tp in ctx.all_partitions():
            for r in ctx.partition_replica_assignment(tp):
                state = ReplicaState.OnlineReplica if ctx.is_replica_online(r, tp) \
                    else ReplicaState.ReplicaDeletionIneligible
                ctx.replica_states[PartitionAndReplica(tp, r)] = state

    # Kafka: ReplicaStateMachine.handleStateChanges
    def handle_state_changes(self, replicas: list[PartitionAndReplica], target_state: ReplicaState) -> None:
        if not replicas:
            return
        batch = self.controller_broker_request_batch
        try:
            batch.new_batch()
            by_broker: dict[int, list[PartitionAndReplica]] = {}
            for r in replicas:
                by_broker.setdefault(r.replica, []).append(r)
            for replica_id, group in by_broker.items():
                self.do_handle_state_changes(replica_id, group, target_state)
            batch.send_requests_to_brokers(self.controller_context.epoch)
        except ControllerMovedException:
            self.error(f"Controller moved to another broker when moving some replicas to {target_state.name} state")
            batch.clear()
            raise
        except Exception as e:   # noqa: BLE001
            self.error(f"Error while moving some replicas to {target_state.name} state", exc_info=e)
            batch.clear()

    def _replica_state(self, r: PartitionAndReplica) -> ReplicaState:
        return self.controller_context.replica_states.get(r, ReplicaState.NonExistentReplica)

    # Kafka: ZkReplicaStateMachine.doHandleStateChanges
    def do_handle_state_changes(self, replica_id: int, replicas: list[PartitionAndReplica],
                                target_state: ReplicaState) -> None:
        ctx = self.controller_context
        batch = self.controller_broker_request_batch
        scl = self.state_change_logger.with_controller_epoch(ctx.epoch)
        for r in replicas:
            ctx.replica_states.setdefault(r, ReplicaState.NonExistentReplica)
        valid = []
        for r in replicas:
            if self._replica_state(r) in target_state.valid_previous_states:
                valid.append(r)
            else:
                self.log_invalid_transition(r, target_state)

        if target_state is ReplicaState.NewReplica:
            for r in valid:
                tp = r.topic_partition
                lice = ctx.partition_leadership_info.get(tp)
                if lice is not None:
                    if lice.leader_and_isr.leader == replica_id:
                        scl.error(f"Controller {self.controller_id} epoch {ctx.epoch} failed to change state for "
                                  f"replica {r} to NewReplica: Replica {replica_id} for partition {tp} cannot be "
                                  f"moved to NewReplica state as it is being requested to become leader")
                        self.log_failed_state_change(r, target_state)
                        continue
                    batch.add_leader_and_isr_request_for_brokers([replica_id], tp, lice,
                                                                 ctx.partition_full_replica_assignment(tp), is_new=True)
                self._change(scl, r, target_state)
        elif target_state is ReplicaState.OnlineReplica:
            for r in valid:
                tp = r.topic_partition
                if self._replica_state(r) is ReplicaState.NewReplica:
                    assignment = ctx.partition_replica_assignment(tp)
                    if replica_id not in assignment:
                        ctx.update_partition_replica_assignment(tp, assignment + [replica_id])
                else:
                    lice = ctx.partition_leadership_info.get(tp)
                    if lice is not None:
                        batch.add_leader_and_isr_request_for_brokers([replica_id], tp, lice,
                                                                     ctx.partition_full_replica_assignment(tp),
                                                                     is_new=False)
                self._change(scl, r, target_state)
        elif target_state is ReplicaState.OfflineReplica:
            for r in valid:
                batch.add_stop_replica_request_for_brokers([replica_id], r.topic_partition, delete_partition=False)
            with_leadership = [r.topic_partition for r in valid
                               if r.topic_partition in ctx.partition_leadership_info]
            updated = self.remove_replicas_from_isr(replica_id, with_leadership)
            for tp, lice in updated.items():
                if not ctx.is_topic_queued_up_for_deletion(tp.topic):
                    recipients = [b for b in ctx.partition_replica_assignment(tp) if b != replica_id]
                    batch.add_leader_and_isr_request_for_brokers(recipients, tp, lice,
                                                                 ctx.partition_full_replica_assignment(tp), is_new=False)
            for r in valid:
                if r.topic_partition not in updated:
                    batch.add_update_metadata_request_for_brokers(ctx.live_or_shutting_down_broker_ids,
                                                                  {r.topic_partition})
                self._change(scl, r, target_state)
        elif target_state is ReplicaState.ReplicaDeletionStarted:
            for r in valid:
                self._change(scl, r, target_state)
                batch.add_stop_replica_request_for_brokers([replica_id], r.topic_partition, delete_partition=True)
        elif target_state in (ReplicaState.ReplicaDeletionIneligible, ReplicaState.ReplicaDeletionSuccessful):
            for r in valid:
                self._change(scl, r, target_state)
        elif target_state is ReplicaState.NonExistentReplica:
            for r in valid:
                tp = r.topic_partition
                assignment = ctx.partition_replica_assignment(tp)
                ctx.update_partition_replica_assignment(tp, [b for b in assignment if b != replica_id])
                scl.trace(f"Changed state of replica {replica_id} for partition {tp} from "
                          f"{self._replica_state(r).name} to {target_state.name}")
                ctx.replica_states.pop(r, None)

    def _change(self, scl, r: PartitionAndReplica, target_state: ReplicaState) -> None:
        scl.trace(f"Changed state of replica {r.replica} for partition {r.topic_partition} from "
                  f"{self._replica_state(r).name} to {target_state.name}")
        self.controller_context.replica_states[r] = target_state

    # Kafka: ZkReplicaStateMachine.removeReplicasFromIsr -- retries lost version races
    def remove_replicas_from_isr(self, replica_id: int, partitions: list[TopicPartition]
                                 ) -> dict[TopicPartition, LeaderIsrAndControllerEpoch]:
        results: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        remaining = list(partitions)
        while remaining:
            done, remaining = self.do_remove_replicas_from_isr(replica_id, remaining)
            results.update(done)
        return results

    # Kafka: ZkReplicaStateMachine.doRemoveReplicasFromIsr
    def do_remove_replicas_from_isr(self, replica_id: int, partitions: list[TopicPartition]
                                    ) -> tuple[dict[TopicPartition, LeaderIsrAndControllerEpoch], list[TopicPartition]]:
        ctx = self.controller_context
        states = self.zk_client.get_topic_partition_states(partitions)
        adjusted: dict[TopicPartition, LeaderAndIsr] = {}
        for tp, lice in states.items():
            if lice.controller_epoch > ctx.epoch:
                self.error(f"Leader and ISR of partition {tp} was written by a newer controller "
                           f"(epoch {lice.controller_epoch}); not removing replica {replica_id} from the ISR")
                continue
            lai = lice.leader_and_isr
            if replica_id not in lai.isr and lai.leader != replica_id:
                continue
            new_leader = LeaderAndIsr.NO_LEADER if replica_id == lai.leader else lai.leader
            # The last ISR member stays in the ISR, so that a clean election can bring it back.
            new_isr = lai.isr if len(lai.isr) == 1 else [r for r in lai.isr if r != replica_id]
            adjusted[tp] = lai.new_leader_and_isr(new_leader, new_isr)
        done: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        if not adjusted:
            return done, []
        result = self.zk_client.update_leader_and_isr(adjusted, ctx.epoch, ctx.epoch_zk_version)
        for tp, outcome in result.finished_partitions.items():
            if isinstance(outcome, Exception):
                self.error(f"Failed to remove replica {replica_id} from the ISR of {tp}: {outcome}")
                continue
            lice = LeaderIsrAndControllerEpoch(outcome, ctx.epoch)
            ctx.partition_leadership_info[tp] = lice
            done[tp] = lice
        return done, list(result.partitions_to_retry)

    # Kafka: ReplicaStateMachine.logInvalidTransition
    def log_invalid_transition(self, r: PartitionAndReplica, target_state: ReplicaState) -> None:
        current = self._replica_state(r)
        self.state_change_logger.with_controller_epoch(self.controller_context.epoch).error(
            f"Controller {self.controller_id} epoch {self.controller_context.epoch} initiated state change of "
            f"replica {r.replica} for partition {r.topic_partition} from {current.name} to {target_state.name} "
            f"failed because replica state machine expects the replica to be in one of "
            f"{sorted(s.name for s in target_state.valid_previous_states)} states, but it is in {current.name}")

    # Kafka: ReplicaStateMachine.logFailedStateChange
    def log_failed_state_change(self, r: PartitionAndReplica, target_state: ReplicaState) -> None:
        self.state_change_logger.with_controller_epoch(self.controller_context.epoch).error(
            f"Controller {self.controller_id} epoch {self.controller_context.epoch} failed to change state for "
            f"replica {r} from {self._replica_state(r).name} to {target_state.name}")
