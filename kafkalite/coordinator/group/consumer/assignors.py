"""Mirrors Kafka 4.0: group-coordinator/src/main/java/org/apache/kafka/coordinator/group/assignor/UniformAssignor.java
and RangeAssignor.java (same directory; the shapes of GroupSpec and SubscribedTopicDescriber in
group-coordinator/.../api/assignor/ are folded into AssignmentSpec here)

Classes: MemberSubscription, AssignmentSpec, UniformAssignor, RangeAssignor; ``ASSIGNORS`` by name.

The server-side assignors of the consumer group protocol. Input: every member's subscribed topic ids, its
current target partitions and each topic's partition count. Output: member id -> {topic id: partitions}.

- ``uniform`` (the default): balanced, then sticky. Every partition of a subscribed topic goes to one member
  subscribed to it; members keep what they had as long as they stay within their fair share; the rest goes
  to the least loaded subscribed member. Kafka splits this into OptimizedUniformAssignmentBuilder (all
  members subscribe to the same topics) and UniformHeterogeneousAssignmentBuilder; one sticky greedy pass
  followed by a rebalancing pass covers both here.
- ``range``: per topic, the sorted members subscribed to it get consecutive ranges (the first
  ``partitions % members`` one more), co-partitioning topics with equal partition counts.

Era notes: Kafka 3.7 (KIP-848). Left out: rack-aware placement; Kafka 4.0's RangeAssignor stickiness (it keeps a
member's range when the member count does not change, which plain ranges also do).
"""
from __future__ import annotations

import uuid
from dataclasses import dataclass, field

Assignment = dict[uuid.UUID, set[int]]


@dataclass
class MemberSubscription:
    """Kafka 4.0: MemberSubscriptionAndAssignmentImpl -- what one member asks for and holds."""
    subscribed_topic_ids: set[uuid.UUID]
    assigned_partitions: Assignment = field(default_factory=dict)


@dataclass
class AssignmentSpec:
    """Kafka 4.0: GroupSpecImpl + SubscribedTopicDescriberImpl -- members and the partition counts."""
    members: dict[str, MemberSubscription]
    partition_counts: dict[uuid.UUID, int]

    # Kafka 4.0: SubscribedTopicDescriber.numPartitions
    def num_partitions(self, topic_id: uuid.UUID) -> int:
        return self.partition_counts.get(topic_id, -1)


class UniformAssignor:
    """Kafka 4.0: UniformAssignor -- balanced and sticky."""
    name = "uniform"

    # Kafka 4.0: UniformAssignor.assign
    def assign(self, spec: AssignmentSpec) -> dict[str, Assignment]:
        members = sorted(spec.members)
        result: dict[str, Assignment] = {m: {} for m in members}
        counts = {m: 0 for m in members}
        topics = sorted({t for m in members for t in spec.members[m].subscribed_topic_ids
                         if spec.num_partitions(t) > 0}, key=str)
        subscribers = {t: [m for m in members if t in spec.members[m].subscribed_topic_ids] for t in topics}
        # The fair share of each member: what it could get if every topic's partitions were spread over
        # its subscribers as evenly as the subscriptions allow (an upper bound used for stickiness).
        total = sum(spec.num_partitions(t) for t in topics)
        quota = {m: -(-total // max(len(members), 1)) for m in members}
        unassigned: list[tuple[uuid.UUID, int]] = []
        for t in topics:
            for p in range(spec.num_partitions(t)):
                owner = self._previous_owner(spec, members, t, p)
                if owner is not None and counts[owner] < quota[owner]:
                    result[owner].setdefault(t, set()).add(p)
                    counts[owner] += 1
                else:
                    unassigned.append((t, p))
        for t, p in unassigned:
            target = min(subscribers[t], key=lambda m: (counts[m], m))
            result[target].setdefault(t, set()).add(p)
            counts[target] += 1
        self._balance(result, counts, subscribers, topics)
        return result

    @staticmethod
    def _previous_owner(spec: AssignmentSpec, members, topic_id, partition):
        for m in members:
            sub = spec.members[m]
            if topic_id in sub.subscribed_topic_ids and partition in sub.assigned_partitions.get(topic_id, ()):
                return m
        return None

    @staticmethod
    def _balance(result, counts, subscribers, topics) -> None:
        """Move partitions from the most to the least loaded member that may take them until no move helps."""
        moved = True
        while moved:
            moved = False
            for t in topics:
                for donor in sorted(subscribers[t], key=lambda m: (-counts[m], m)):
                    for p in sorted(result[donor].get(t, ())):
                        taker = min(subscribers[t], key=lambda m: (counts[m], m))
                        if counts[donor] - counts[taker] > 1:
                            result[donor][t].discard(p)
                            result[taker].setdefault(t, set()).add(p)
                            counts[donor] -= 1
                            counts[taker] += 1
                            moved = True
            for m in result:
                result[m] = {t: ps for t, ps in result[m].items() if ps}


class RangeAssignor:
    """Kafka 4.0: RangeAssignor -- consecutive ranges per topic."""
    name = "range"

    # Kafka 4.0: RangeAssignor.assign
    def assign(self, spec: AssignmentSpec) -> dict[str, Assignment]:
        members = sorted(spec.members)
        result: dict[str, Assignment] = {m: {} for m in members}
        topics = {t for m in members for t in spec.members[m].subscribed_topic_ids}
        for t in sorted(topics, key=str):
            n = spec.num_partitions(t)
            if n <= 0:
                continue
            subs = [m for m in members if t in spec.members[m].subscribed_topic_ids]
            per_member, extra = divmod(n, len(subs))
            start = 0
            for i, m in enumerate(subs):
                size = per_member + (1 if i < extra else 0)
                if size:
                    result[m][t] = set(range(start, start + size))
                start += size
        return result


ASSIGNORS = {UniformAssignor.name: UniformAssignor, RangeAssignor.name: RangeAssignor}
