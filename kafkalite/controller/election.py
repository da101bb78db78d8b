"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/Election.scala and the election strategies and
algorithms of core/src/main/scala/kafka/controller/PartitionStateMachine.scala

Classes: ElectionResult, Election, PartitionLeaderElectionAlgorithms and the strategies
OfflinePartitionLeaderElectionStrategy, ReassignPartitionLeaderElectionStrategy,
ControlledShutdownPartitionLeaderElectionStrategy, PreferredReplicaPartitionLeaderElectionStrategy.

Who leads a partition next, by the reason for the election:
- offline (its leader died): the first replica in assignment order that is live and in the ISR; with
  ``unclean.leader.election.enable`` and nobody in the ISR alive, the first live replica (then ISR = it alone);
- reassignment (its leader is not among the target replicas, or is dead): the first target replica that is
  live and in the ISR;
- controlled shutdown (its leader is stopping): the first live replica in the ISR that is not shutting down;
  the shutting-down brokers leave the ISR;
- preferred replica: the first replica of the assignment, if it is live and in the ISR.
"""
from __future__ import annotations

import attrs

from kafkalite.zk.zk_data import LeaderAndIsr


@attrs.frozen
class OfflinePartitionLeaderElectionStrategy:
    """Kafka: OfflinePartitionLeaderElectionStrategy(allowUnclean)."""

    allow_unclean: bool = False


@attrs.frozen
class ReassignPartitionLeaderElectionStrategy:
    """Kafka: ReassignPartitionLeaderElectionStrategy."""


@attrs.frozen
class ControlledShutdownPartitionLeaderElectionStrategy:
    """Kafka: ControlledShutdownPartitionLeaderElectionStrategy."""


@attrs.frozen
class PreferredReplicaPartitionLeaderElectionStrategy:
    """Kafka: PreferredReplicaPartitionLeaderElectionStrategy."""


@attrs.frozen
class ElectionResult:
    """Kafka: ElectionResult(topicPartition, leaderAndIsr, liveReplicas) -- no leader_and_isr: no one to elect;
    ``live_replicas`` are the brokers that hear about the new leader."""

    topic_partition: object
    leader_and_isr: LeaderAndIsr | None
    live_replicas: list[int]


class PartitionLeaderElectionAlgorithms:
    """Kafka: PartitionLeaderElectionAlgorithms."""

    # Kafka: PartitionLeaderElectionAlgorithms.offlinePartitionLeaderElection
    @staticmethod
    def offline_partition_leader_election(assignment: list[int], isr: list[int], live_replicas: set[int],
                                          unclean_leader_election_enabled: bool) -> int | None:
        for replica in assignment:
            if replica in live_replicas and replica in isr:
                return replica
        if unclean_leader_election_enabled:
            for replica in assignment:
                if replica in live_replicas:
                    return replica
        return None

    # Kafka: PartitionLeaderElectionAlgorithms.reassignPartitionLeaderElection
    @staticmethod
    def reassign_partition_leader_election(reassignment: list[int], isr: list[int],
                                           live_replicas: set[int]) -> int | None:
        for replica in reassignment:
            if replica in live_replicas and replica in isr:
                return replica
        return None

    # Kafka: PartitionLeaderElectionAlgorithms.preferredReplicaPartitionLeaderElection
    @staticmethod
    def preferred_replica_partition_leader_election(assignment: list[int], isr: list[int],
                                                    live_replicas: set[int]) -> int | None:
        if assignment and assignment[0] in live_replicas and assignment[0] in isr:
            return assignment[0]
        return None

    # Kafka: PartitionLeaderElectionAlgorithms.controlledShutdownPartitionLeaderElection
    @staticmethod
    def controlled_shutdown_partition_leader_election(assignment: list[int], isr: list[int], live_replicas: set[int],
                                                      shutting_down_brokers: set[int]) -> int | None:
        for replica in assignment:
            if replica in live_replicas and replica in isr and replica not in shutting_down_brokers:
                return replica
        return None


class Election:
    """Kafka: object Election."""

    # Kafka: Election.leaderForOffline
    @staticmethod
    def leader_for_offline(ctx, leader_and_isrs: dict, unclean_enabled) -> list[ElectionResult]:
        """``unclean_enabled(topic)`` says whether the topic allows an unclean election; as in 2.4's
        collectUncleanLeaderElectionState it is asked only for partitions with no live ISR member."""
        results = []
        for tp, lai in leader_and_isrs.items():
            assignment = ctx.partition_replica_assignment(tp)
            live = [r for r in assignment if ctx.is_replica_online(r, tp)]
            live_in_sync = any(r in lai.isr for r in live)
            leader = PartitionLeaderElectionAlgorithms.offline_partition_leader_election(
                assignment, lai.isr, set(live), not live_in_sync and unclean_enabled(tp.topic))
            new = None
            if leader is not None:
                new_isr = [r for r in lai.isr if ctx.is_replica_online(r, tp)] if leader in lai.isr else [leader]
                new = lai.new_leader_and_isr(leader, new_isr)
            results.append(ElectionResult(tp, new, live))
        return results

    # Kafka: Election.leaderForReassign -- only the target replicas may lead; they all hear the result
    @staticmethod
    def leader_for_reassign(ctx, leader_and_isrs: dict) -> list[ElectionResult]:
        results = []
        for tp, lai in leader_and_isrs.items():
            target = ctx.partition_full_replica_assignment(tp).target_replicas
            live = {r for r in target if ctx.is_replica_online(r, tp)}
            leader = PartitionLeaderElectionAlgorithms.reassign_partition_leader_election(target, lai.isr, live)
            results.append(ElectionResult(tp, lai.new_leader(leader) if leader is not None else None, target))
        return results

    # Kafka: Election.leaderForControlledShutdown
    @staticmethod
    def leader_for_controlled_shutdown(ctx, leader_and_isrs: dict) -> list[ElectionResult]:
        shutting_down = set(ctx.shutting_down_broker_ids)
        results = []
        for tp, lai in leader_and_isrs.items():
            assignment = ctx.partition_replica_assignment(tp)
            live_or_shutting_down = [r for r in assignment
                                     if ctx.is_replica_online(r, tp, include_shutting_down_brokers=True)]
            leader = PartitionLeaderElectionAlgorithms.controlled_shutdown_partition_leader_election(
                assignment, lai.isr, set(live_or_shutting_down), shutting_down)
            new_isr = [r for r in lai.isr if r not in shutting_down]
            new = lai.new_leader_and_isr(leader, new_isr) if leader is not None else None
            results.append(ElectionResult(tp, new, live_or_shutting_down))
        return results

    # Kafka: Election.leaderForPreferredReplica
    @staticmethod
    def leader_for_preferred_replica(ctx, leader_and_isrs: dict) -> list[ElectionResult]:
        results = []
        for tp, lai in leader_and_isrs.items():
            assignment = ctx.partition_replica_assignment(tp)
            live = [r for r in assignment if ctx.is_replica_online(r, tp)]
            leader = PartitionLeaderElectionAlgorithms.preferred_replica_partition_leader_election(
                assignment, lai.isr, set(live))
            results.append(ElectionResult(tp, lai.new_leader(leader) if leader is not None else None, live))
        return results
