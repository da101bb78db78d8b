"""No Kafka counterpart: the topic grouping LeaderAndIsr and UpdateMetadata requests share.

Older versions list partition states flat, each naming its topic (``ungrouped_partition_states``);
newer ones group them under one topic state per topic (LeaderAndIsr v2+, UpdateMetadata v5+). Kafka's
``LeaderAndIsrRequest.Builder`` and ``UpdateMetadataRequest.Builder`` each do this grouping, and each
request's ``partitionStates()`` flattens it back; here both use these two functions.
"""
from __future__ import annotations


def group_by_topic(partition_states, topic_state_cls) -> list:
    """One ``topic_state_cls(topic_name=...)`` per topic, holding that topic's partition states in order."""
    by_topic: dict = {}
    for state in partition_states:
        topic = by_topic.get(state.topic_name)
        if topic is None:
            topic = by_topic[state.topic_name] = topic_state_cls(topic_name=state.topic_name)
        topic.partition_states.append(state)
    return list(by_topic.values())


def flatten(ungrouped_partition_states, topic_states) -> list:
    """Every partition state, whatever the version, each with its ``topic_name`` filled in."""
    states = list(ungrouped_partition_states)
    for topic in topic_states:
        for state in topic.partition_states:
            state.topic_name = topic.topic_name
            states.append(state)
    return states
