"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/ConsumerMetadata.java

Classes: ConsumerMetadata -- the client ``Metadata`` (``kafkalite/clients/metadata.py``) with what a consumer
adds: it asks for the topics the consumer needs, and it says whether the broker may create them.

Everything else is the shared Metadata: ``bootstrap`` with the ``bootstrap.servers`` nodes (-1, -2, ...),
``request_update``/``update_requested``, ``fetch()`` for the current immutable ``Cluster`` (leaders,
partition counts, nodes), and the ``DefaultMetadataUpdater`` that sends the Metadata requests from inside
``NetworkClient.poll``. ``ConsumerNetworkClient.await_metadata_update`` asks for an update and polls until
``update_version`` moves, as Kafka's does.

Era notes: Kafka asks ``SubscriptionState.metadataTopics()`` (plus the transient topics of ``partitionsFor``)
each time it builds a request; kafkalite's KafkaConsumer, Fetcher and ConsumerCoordinator keep that set in
``topics`` (the field the producer's ``add`` fills too).
Left out: pattern subscriptions (an all-topics request, ``retainTopic``), and so ``exclude.internal.topics``,
which matters only for patterns.
"""
from __future__ import annotations

from kafkalite.clients.metadata import Metadata
from kafkalite.protocol.messages.metadata import MetadataRequest, MetadataRequestTopic
from kafkalite.utils.time import SYSTEM, Time


class ConsumerMetadata(Metadata):
    """Kafka: ConsumerMetadata extends Metadata."""

    # Kafka: ConsumerMetadata.<init>
    def __init__(self, refresh_backoff_ms: int = 100, metadata_expire_ms: int = 300_000,
                 allow_auto_topic_creation: bool = True, time: Time = SYSTEM):
        super().__init__(refresh_backoff_ms, metadata_expire_ms, time)
        self.allow_auto_topic_creation = allow_auto_topic_creation

    # Kafka: ConsumerMetadata.newMetadataRequestBuilder -- the consumer's topics, auto-creation as configured
    def new_metadata_request(self) -> MetadataRequest:
        return MetadataRequest(topics=[MetadataRequestTopic(name=t) for t in sorted(self.topics)],
                               allow_auto_topic_creation=self.allow_auto_topic_creation)
