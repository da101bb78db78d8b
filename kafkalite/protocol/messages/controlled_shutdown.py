"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ControlledShutdownRequest.json,
ControlledShutdownResponse.json

Classes: ControlledShutdownRequest, ControlledShutdownResponse, RemainingPartition.

A broker about to stop asks the controller to move its leaderships away first. v0 is sent with a
request header without client id (``ApiKeys.request_header_version``); v2 adds the broker epoch
(KIP-380); v3 is flexible. The answer lists the partitions the broker still leads: empty means
it may stop.
"""
from __future__ import annotations

from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, array, field, message, struct


@message(api_key=7, kind="request", valid="0-3", flexible="3+")
class ControlledShutdownRequest:
    broker_id: int = field(INT32, "0+")
    broker_epoch: int = field(INT64, "2+", ignorable=True, default=-1)


@struct
class RemainingPartition:
    topic_name: str = field(STRING, "0+")
    partition_index: int = field(INT32, "0+")


@message(api_key=7, kind="response", valid="0-3", flexible="3+")
class ControlledShutdownResponse:
    error_code: int = field(INT16, "0+")
    remaining_partitions: list[RemainingPartition] = field(array(RemainingPartition), "0+")
