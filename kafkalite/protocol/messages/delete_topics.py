"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/DeleteTopicsRequest.json, DeleteTopicsResponse.json

Classes: DeleteTopicsRequest, DeleteTopicState, DeleteTopicsResponse, DeletableTopicResult.

Versions: v1 adds throttle_time_ms to the response; v4 is the first flexible version; v5 adds a
per-topic error message; v6 names topics by name *or* id (``topics`` replaces ``topic_names``).

Era notes: 2.4 stopped at v4; kafkalite serves up to v6.
Left out: nothing.
"""
from __future__ import annotations

import uuid

from kafkalite.protocol.schema import INT16, INT32, STRING, UUID, array, field, message, struct


@struct
class DeleteTopicState:
    name: str | None = field(STRING, "6+", nullable="6+")  # null when the topic is named by id
    topic_id: uuid.UUID = field(UUID, "6+")


@message(api_key=20, kind="request", valid="0-6", flexible="4+")
class DeleteTopicsRequest:
    topics: list[DeleteTopicState] = field(array(DeleteTopicState), "6+")
    topic_names: list[str] = field(array(STRING), "0-5", ignorable=True)
    timeout_ms: int = field(INT32, "0+")


@struct
class DeletableTopicResult:
    name: str | None = field(STRING, "0+", nullable="6+")
    topic_id: uuid.UUID = field(UUID, "6+", ignorable=True)
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "5+", nullable="5+", ignorable=True, default=None)


@message(api_key=20, kind="response", valid="0-6", flexible="4+")
class DeleteTopicsResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True)
    responses: list[DeletableTopicResult] = field(array(DeletableTopicResult), "0+")
