"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/AbstractStickyAssignor.java

Classes: AbstractStickyAssignor -- an assignment that is as balanced as the subscriptions allow and moves
as few partitions as it can from their current owners. The owners come from each member's subscription
(``owned_partitions``, KIP-429), which is how CooperativeStickyAssignor learns them.

The algorithm, in three steps:
1. keep every owned partition whose owner is still subscribed to its topic (a partition two members both
   claim goes back into the pool);
2. hand each unowned partition to the eligible member with the fewest partitions, the partitions with
   the fewest eligible members first;
3. while a member has at least two more partitions than another member that could take one of them,
   move one (the most recently added first) -- each move lowers the spread, so this ends.

Era notes: Kafka 2.4's version keeps a sorted set of members and a ``PartitionMovements`` record to
reach the same two properties (balance, then stickiness) with more bookkeeping; kafkalite's loop is the
plain form of the same idea. Left out: ``user_data`` (the StickyAssignor's serialized previous
assignment, needed only for the eager StickyAssignor) and the generation tie-break of 2.6+.
"""
from __future__ import annotations

from kafkalite.clients.consumer.consumer_partition_assignor import Subscription
from kafkalite.clients.consumer.internals.abstract_partition_assignor import AbstractPartitionAssignor
from kafkalite.common.topic_partition import TopicPartition


class AbstractStickyAssignor(AbstractPartitionAssignor):
    """Kafka: AbstractStickyAssignor."""

    # Kafka: AbstractStickyAssignor.assign
    def assign_partitions(self, partitions_per_topic: dict[str, int],
                          subscriptions: dict[str, Subscription]) -> dict[str, list[TopicPartition]]:
        members = sorted(subscriptions)
        eligible: dict[TopicPartition, list[str]] = {}
        for topic in sorted(partitions_per_topic):
            subscribers = [m for m in members if topic in subscriptions[m].topics]
            for tp in self.partitions(topic, partitions_per_topic[topic]):
                if subscribers:
                    eligible[tp] = subscribers
        assignment: dict[str, list[TopicPartition]] = {m: [] for m in members}

        # 1. keep what is still valid of the previous assignment
        claims: dict[TopicPartition, list[str]] = {}
        for m in members:
            for tp in subscriptions[m].owned_partitions:
                if m in eligible.get(tp, ()):
                    claims.setdefault(tp, []).append(m)
        for tp, owners in claims.items():
            if len(owners) == 1:
                assignment[owners[0]].append(tp)
        assigned = {tp for parts in assignment.values() for tp in parts}

        # 2. place the rest, the most constrained partitions first
        unassigned = sorted((tp for tp in eligible if tp not in assigned),
                            key=lambda tp: (len(eligible[tp]), tp.topic, tp.partition))
        for tp in unassigned:
            target = min(eligible[tp], key=lambda m: (len(assignment[m]), m))
            assignment[target].append(tp)

        # 3. balance: move from a heavy member to a light one that may take the partition
        moved = True
        while moved:
            moved = False
            for heavy in sorted(members, key=lambda m: (-len(assignment[m]), m)):
                for tp in reversed(assignment[heavy]):
                    lighter = [m for m in eligible[tp] if len(assignment[m]) + 1 < len(assignment[heavy])]
                    if lighter:
                        target = min(lighter, key=lambda m: (len(assignment[m]), m))
                        assignment[heavy].remove(tp)
                        assignment[target].append(tp)
                        moved = True
                        break
                if moved:
                    break
        return {m: sorted(parts, key=lambda tp: (tp.topic, tp.partition)) for m, parts in assignment.items()}
