"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/internals/Topic.java

Functions: validate, has_collision_chars, has_collision, is_internal; the internal topic names.
"""
from __future__ import annotations

import re

from kafkalite.protocol.errors import Errors

GROUP_METADATA_TOPIC_NAME = "__consumer_offsets"
TRANSACTION_STATE_TOPIC_NAME = "__transaction_state"
INTERNAL_TOPICS = frozenset({GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME})
MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")


# Kafka: Topic.validate
def validate(topic: str) -> None:
    """Raise InvalidTopicException (INVALID_TOPIC_EXCEPTION) with Kafka's message if the name is illegal."""
    if not topic:
        raise Errors.INVALID_TOPIC_EXCEPTION.exception("Topic name is illegal, it can't be empty")
    if topic in (".", ".."):
        raise Errors.INVALID_TOPIC_EXCEPTION.exception('Topic name cannot be "." or ".."')
    if len(topic) > MAX_NAME_LENGTH:
        raise Errors.INVALID_TOPIC_EXCEPTION.exception(
            f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, topic name: {topic}")
    if not _LEGAL.match(topic):
        raise Errors.INVALID_TOPIC_EXCEPTION.exception(
            f'Topic name "{topic}" is illegal, it contains a character other than ASCII alphanumerics, '
            "'.', '_' and '-'")


def is_internal(topic: str) -> bool:
    return topic in INTERNAL_TOPICS


# Kafka: Topic.hasCollisionChars / hasCollision -- '.' and '_' collide in metric names
def has_collision_chars(topic: str) -> bool:
    return "_" in topic or "." in topic


def has_collision(a: str, b: str) -> bool:
    return a.replace(".", "_") == b.replace(".", "_")
