"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/PartitionStateMachine.scala

Classes: PartitionState, PartitionStateMachine (Kafka 2.4's ZkPartitionStateMachine),
StateChangeFailedException, NoReplicaOnlineException. The election strategies and algorithms are in
``election.py`` (Kafka's Election.scala and the end of PartitionStateMachine.scala).

States: ``NonExistentPartition → NewPartition → OnlinePartition ⇄ OfflinePartition → NonExistentPartition``.
- New → Online (``initialize_leader_and_isr_for_partitions``): the first live replica of the assignment leads,
  the ISR is every live replica; the state znode ``/brokers/topics/<t>/partitions/<p>/state`` is created.
- Offline/Online → Online (``elect_leader_for_partitions``): a leader chosen by the election strategy (offline,
  controlled shutdown, preferred replica: ``election.py``). The new leader/ISR is written with a conditional set
  on the znode's version (lost races are retried), wrapped in the controller-epoch check.
Each successful change adds a LeaderAndIsr (to the partition's live replicas) and an UpdateMetadata (to every
live broker) to the controller's batch, which ``handle_state_changes`` sends at the end.

Left out: the reassignment election strategy (no reassignment yet).
"""
from __future__ import annotations

import enum
from typing import Iterable

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.controller.controller_context import ControllerContext
from kafkalite.controller.election import (
    ControlledShutdownPartitionLeaderElectionStrategy, Election, OfflinePartitionLeaderElectionStrategy,
    PreferredReplicaPartitionLeaderElectionStrategy, ReassignPartitionLeaderElectionStrategy,
)
from kafkalite.protocol.errors import ControllerMovedException
from kafkalite.utils.logging import Logging
from kafkalite.zk.zk_data import LeaderAndIsr, LeaderIsrAndControllerEpoch
from kafkalite.zookeeper.zoo_keeper_client import Code


class StateChangeFailedException(Exception):
    """Kafka: kafka.common.StateChangeFailedException."""


class NoReplicaOnlineException(Exception):
    """Kafka: kafka.common.NoReplicaOnlineException."""


class PartitionState(enum.Enum):
    """Kafka: PartitionState -- value = (code, names of the valid previous states)."""

    NewPartition = (0, ("NonExistentPartition",))
    OnlinePartition = (1, ("NewPartition", "OnlinePartition", "OfflinePartition"))
    OfflinePartition = (2, ("NewPartition", "OnlinePartition", "OfflinePartition"))
    NonExistentPartition = (3, ("OfflinePartition",))

    @property
    def valid_previous_states(self) -> set["PartitionState"]:
        return {PartitionState[name] for name in self.value[1]}


class PartitionStateMachine(Logging):
    """Kafka: ZkPartitionStateMachine."""

    def __init__(self, config, state_change_logger, controller_context: ControllerContext, zk_client,
                 controller_broker_request_batch):
        self.config = config
        self.controller_id = config.broker_id
        self.state_change_logger = state_change_logger
        self.controller_context = controller_context
        self.zk_client = zk_client
        self.controller_broker_request_batch = controller_broker_request_batch
        self.log_ident = f"[PartitionStateMachine controllerId={self.controller_id}] "

    # Kafka: PartitionStateMachine.startup
    def startup(self) -> None:
        self.info("Initializing partition state")
        self.initialize_partition_state()
        self.info("Triggering online partition state changes")
        self.trigger_online_partition_state_change()
        self.debug(f"Started partition state machine with initial state -> {self.controller_context.partition_states}")

    # Kafka: PartitionStateMachine.shutdown
    def shutdown(self) -> None:
        self.info("Stopped partition state machine")

    # Kafka: PartitionStateMachine.initializePartitionState
    def initialize_partition_state(self) -> None:
        ctx = self.controller_context
        for tp in ctx.all_partitions():
            lice = ctx.partition_leadership_info.get(tp)
            if lice is None:
                ctx.partition_states[tp] = PartitionState.NewPartition
            elif ctx.is_replica_online(lice.leader_and_isr.leader, tp):
                ctx.partition_states[tp] = PartitionState.OnlinePartition
            else:
                ctx.partition_states[tp] = PartitionState.OfflinePartition

    # Kafka: PartitionStateMachine.triggerOnlinePartitionStateChange
    def trigger_online_partition_state_change(self, topic: str | None = None) -> None:
        ctx = self.controller_context
        partitions = [tp for tp in ctx.partitions_in_states({PartitionState.OfflinePartition,
                                                              PartitionState.NewPartition})
                      if not ctx.is_topic_queued_up_for_deletion(tp.topic) and (topic is None or tp.topic == topic)]
        self.trigger_online_state_change_for_partitions(partitions)

    # Kafka: PartitionStateMachine.triggerOnlineStateChangeForPartitions
    def trigger_online_state_change_for_partitions(self, partitions: Iterable[TopicPartition]) -> None:
        self.handle_state_changes(list(partitions), PartitionState.OnlinePartition,
                                  OfflinePartitionLeaderElectionStrategy(False))

    # Kafka: PartitionStateMachine.handleStateChanges
    def handle_state_changes(self, partitions: list[TopicPartition], target_state: PartitionState,
                             leader_election_strategy=None) -> dict[TopicPartition, object]:
        if not partitions:
            return {}
        batch = self.controller_broker_request_batch
        try:
            batch.new_batch()
            result = self.do_handle_state_changes(partitions, target_state, leader_election_strategy)
            batch.send_requests_to_brokers(self.controller_context.epoch)
            return result
        except ControllerMovedException:
            self.error(f"Controller moved to another broker when moving some partitions to {target_state.name} "
                       f"state")
            batch.clear()
            raise
        except Exception as e:   # noqa: BLE001
            self.error(f"Error while moving some partitions to {target_state.name} state", exc_info=e)
            batch.clear()
            return {tp: e for tp in partitions}

    def _partition_state(self, tp: TopicPartition) -> PartitionState:
        return self.controller_context.partition_states.get(tp, PartitionState.NonExistentPartition)

    # Kafka: ZkPartitionStateMachine.doHandleStateChanges
    def do_handle_state_changes(self, partitions: list[TopicPartition], target_state: PartitionState,
                                strategy) -> dict[TopicPartition, object]:
        ctx = self.controller_context
        scl = self.state_change_logger.with_controller_epoch(ctx.epoch)
        for tp in partitions:
            ctx.partition_states.setdefault(tp, PartitionState.NonExistentPartition)
        valid, invalid = [], []
        for tp in partitions:
            (valid if self._partition_state(tp) in target_state.valid_previous_states else invalid).append(tp)
        for tp in invalid:
            self.log_invalid_transition(tp, target_state)
        result: dict[TopicPartition, object] = {}
        if target_state is PartitionState.NewPartition:
            for tp in valid:
                scl.trace(f"Changed partition {tp} state from {self._partition_state(tp).name} to "
                          f"{target_state.name} with assigned replicas {ctx.partition_replica_assignment(tp)}")
                ctx.partition_states[tp] = PartitionState.NewPartition
        elif target_state is PartitionState.OnlinePartition:
            uninitialized = [tp for tp in valid if self._partition_state(tp) is PartitionState.NewPartition]
            to_elect = [tp for tp in valid if self._partition_state(tp) in (PartitionState.OfflinePartition,
                                                                            PartitionState.OnlinePartition)]
            for tp in self.initialize_leader_and_isr_for_partitions(uninitialized):
                lai = ctx.partition_leadership_info[tp].leader_and_isr
                scl.info(f"Changed partition {tp} from {self._partition_state(tp).name} to {target_state.name} "
                         f"with state {lai}")
                ctx.partition_states[tp] = PartitionState.OnlinePartition
                result[tp] = lai
            if to_elect:
                for tp, outcome in self.elect_leader_for_partitions(to_elect, strategy).items():
                    result[tp] = outcome
                    if isinstance(outcome, Exception):
                        scl.error(f"Controller {self.controller_id} epoch {ctx.epoch} failed to change state for "
                                  f"partition {tp} from {self._partition_state(tp).name} to {target_state.name}: "
                                  f"{outcome}")
                    else:
                        scl.info(f"Changed partition {tp} from {self._partition_state(tp).name} to "
                                 f"{target_state.name} with state {outcome}")
                        ctx.partition_states[tp] = PartitionState.OnlinePartition
        else:   # OfflinePartition, NonExistentPartition
            for tp in valid:
                scl.trace(f"Changed partition {tp} state from {self._partition_state(tp).name} to "
                          f"{target_state.name}")
                ctx.partition_states[tp] = target_state
        return result

    # Kafka: ZkPartitionStateMachine.initializeLeaderAndIsrForPartitions -- returns the partitions initialized
    def initialize_leader_and_isr_for_partitions(self, partitions: list[TopicPartition]) -> list[TopicPartition]:
        ctx = self.controller_context
        scl = self.state_change_logger.with_controller_epoch(ctx.epoch)
        to_create: dict[TopicPartition, LeaderIsrAndControllerEpoch] = {}
        live_replicas_of: dict[TopicPartition, list[int]] = {}
        for tp in partitions:
            replicas = ctx.partition_replica_assignment(tp)
            live = [r for r in replicas if ctx.is_replica_online(r, tp)]
            if not live:
                scl.error(f"Controller {self.controller_id} epoch {ctx.epoch} encountered error during state change "
                          f"of partition {tp} from New to Online, assigned replicas are [{','.join(map(str, replicas))}]"
                          f", live brokers are [{','.join(map(str, sorted(ctx.live_broker_ids)))}]. No assigned "
                          f"replica is alive.")
                continue
            to_create[tp] = LeaderIsrAndControllerEpoch(LeaderAndIsr.initial(live[0], live), ctx.epoch)
            live_replicas_of[tp] = live
        if not to_create:
            return []
        responses = self.zk_client.create_topic_partition_states_raw(to_create, ctx.epoch_zk_version)
        initialized = []
        for response in responses:
            tp = response.ctx
            lice = to_create[tp]
            if response.result_code == Code.OK:
                ctx.partition_leadership_info[tp] = lice
                self.controller_broker_request_batch.add_leader_and_isr_request_for_brokers(
                    live_replicas_of[tp], tp, lice, ctx.partition_full_replica_assignment(tp), is_new=True)
                initialized.append(tp)
            elif response.result_code == Code.NODEEXISTS:
                scl.error(f"Controller {self.controller_id} epoch {ctx.epoch} failed to change state for partition "
                          f"{tp} from New to Online: partition state znode already exists")
            else:
                scl.error(f"Controller {self.controller_id} epoch {ctx.epoch} failed to change state for partition "
                          f"{tp} from New to Online: {response.result_exception()}")
        return initialized

    # Kafka: ZkPartitionStateMachine.electLeaderForPartitions -- retries the partitions that lost a version race
    def elect_leader_for_partitions(self, partitions: list[TopicPartition], strategy) -> dict[TopicPartition, object]:
        remaining = list(partitions)
        finished: dict[TopicPartition, object] = {}
        while remaining:
            done, remaining = self.do_elect_leader_for_partitions(remaining, strategy)
            finished.update(done)
        return finished

    # Kafka: ZkPartitionStateMachine.doElectLeaderForPartitions
    def do_elect_leader_for_partitions(self, partitions: list[TopicPartition], strategy
                                       ) -> tuple[dict[TopicPartition, object], list[TopicPartition]]:
        ctx = self.controller_context
        strategy = strategy or OfflinePartitionLeaderElectionStrategy(False)
        states = self.zk_client.get_topic_partition_states(partitions)
        finished: dict[TopicPartition, object] = {}
        valid: dict[TopicPartition, LeaderAndIsr] = {}
        for tp in partitions:
            lice = states.get(tp)
            if lice is None:
                finished[tp] = StateChangeFailedException(f"Failed to elect leader for partition {tp} since the "
                                                        f"partition state znode does not exist")
            elif lice.controller_epoch > ctx.epoch:
                finished[tp] = StateChangeFailedException(
                    f"Aborted leader election for partition {tp} since the LeaderAndIsr path was already written by "
                    f"another controller. This probably means that the current controller {self.controller_id} "
                    f"went through a soft failure and another controller was elected with epoch "
                    f"{lice.controller_epoch}.")
            else:
                valid[tp] = lice.leader_and_isr
        adjusted: dict[TopicPartition, LeaderAndIsr] = {}
        recipients: dict[TopicPartition, list[int]] = {}
        for result in self.elect_by_strategy(valid, strategy):
            tp, lai = result.topic_partition, valid[result.topic_partition]
            if result.leader_and_isr is None:
                failure = NoReplicaOnlineException if isinstance(strategy, OfflinePartitionLeaderElectionStrategy) \
                    else StateChangeFailedException
                finished[tp] = failure(
                    f"Failed to elect leader for partition {tp} under strategy {strategy}: no replica in ISR "
                    f"{lai.isr} is alive. Live brokers are: [{','.join(map(str, sorted(ctx.live_broker_ids)))}]")
                continue
            if result.leader_and_isr.leader not in lai.isr:
                self.warn(f"Unclean leader election. Partition {tp} has been assigned leader "
                          f"{result.leader_and_isr.leader} from deposed leader {lai.leader}.")
            adjusted[tp] = result.leader_and_isr
            recipients[tp] = result.live_replicas
        if not adjusted:
            return finished, []
        result = self.zk_client.update_leader_and_isr(adjusted, ctx.epoch, ctx.epoch_zk_version)
        for tp, outcome in result.finished_partitions.items():
            if isinstance(outcome, Exception):
                finished[tp] = outcome
                continue
            lice = LeaderIsrAndControllerEpoch(outcome, ctx.epoch)
            ctx.partition_leadership_info[tp] = lice
            self.controller_broker_request_batch.add_leader_and_isr_request_for_brokers(
                recipients[tp], tp, lice, ctx.partition_full_replica_assignment(tp), is_new=False)
            finished[tp] = outcome   # the new LeaderAndIsr
        return finished, list(result.partitions_to_retry)

    # Kafka: ZkPartitionStateMachine.doElectLeaderForPartitions (its match on the election strategy)
    def elect_by_strategy(self, leader_and_isrs: dict, strategy) -> list:
        ctx = self.controller_context
        if isinstance(strategy, ControlledShutdownPartitionLeaderElectionStrategy):
            return Election.leader_for_controlled_shutdown(ctx, leader_and_isrs)
        if isinstance(strategy, PreferredReplicaPartitionLeaderElectionStrategy):
            return Election.leader_for_preferred_replica(ctx, leader_and_isrs)
        if isinstance(strategy, ReassignPartitionLeaderElectionStrategy):
            return Election.leader_for_reassign(ctx, leader_and_isrs)
        return Election.leader_for_offline(
            ctx, leader_and_isrs, lambda topic: strategy.allow_unclean or self._unclean_leader_election_enabled(topic))

    def _unclean_leader_election_enabled(self, topic: str) -> bool:
        """Kafka: LogConfig.fromProps(config.originals, topic overrides).uncleanLeaderElectionEnable -- a topic
        config that cannot be read allows no unclean election (2.4 logs a failed state change and elects no one),
        whatever the brokers' default says."""
        try:
            override = self.zk_client.get_entity_configs("topics", topic).get("unclean.leader.election.enable")
        except Exception as e:   # noqa: BLE001
            self.state_change_logger.with_controller_epoch(self.controller_context.epoch).error(
                f"Controller {self.controller_id} epoch {self.controller_context.epoch} could not read the config of "
                f"topic {topic}, so no unclean leader election for it: {e}")
            return False
        if override is not None:
            return str(override).lower() == "true"
        return bool(self.config.get("unclean.leader.election.enable"))

    # Kafka: PartitionStateMachine.logInvalidTransition
    def log_invalid_transition(self, tp: TopicPartition, target_state: PartitionState) -> None:
        current = self._partition_state(tp)
        self.state_change_logger.with_controller_epoch(self.controller_context.epoch).error(
            f"Controller {self.controller_id} epoch {self.controller_context.epoch} failed to change state for "
            f"partition {tp} from {current.name} to {target_state.name}: Partition {tp} should be in one of "
            f"{sorted(s.name for s in target_state.valid_previous_states)} states before moving to "
            f"{target_state.name} state. Instead it is in {current.name} state")
