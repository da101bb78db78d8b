"""Mirrors Kafka 2.6: clients/src/main/resources/common/message/DescribeClientQuotasRequest.json and
DescribeClientQuotasResponse.json (same directory). Not in 2.4: KIP-546 added it in 2.6 (2.4's kafka-configs
read /config/users and /config/clients in ZooKeeper directly).

Classes: DescribeClientQuotasRequest (ComponentData), DescribeClientQuotasResponse (EntryData, EntityData,
ValueData).

A filter is a list of components, one per entity type ("user", "client-id"): match type 0 = exactly
``match``, 1 = the default entity, 2 = any entity of the type (``match`` null). ``strict``: only entities
with no other component. The answer lists each matching entity (its (type, name) pairs, a null name being
the default) with its quota values (``producer_byte_rate``, ``consumer_byte_rate``, ``request_percentage``).

Versions: 0-1; v1 is flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BOOL, FLOAT64, INT8, INT16, INT32, STRING, array, field, message, struct


@struct
class ComponentData:
    entity_type: str = field(STRING, "0+")
    match_type: int = field(INT8, "0+")
    match: str | None = field(STRING, "0+", nullable="0+", default=None)


@message(api_key=48, kind="request", valid="0-1", flexible="1+")
class DescribeClientQuotasRequest:
    components: list[ComponentData] = field(array(ComponentData), "0+", default=[])
    strict: bool = field(BOOL, "0+", default=False)


@struct
class EntityData:
    entity_type: str = field(STRING, "0+")
    entity_name: str | None = field(STRING, "0+", nullable="0+", default=None)


@struct
class ValueData:
    key: str = field(STRING, "0+")
    value: float = field(FLOAT64, "0+")


@struct
class EntryData:
    entity: list[EntityData] = field(array(EntityData), "0+", default=[])
    values: list[ValueData] = field(array(ValueData), "0+", default=[])


@message(api_key=48, kind="response", valid="0-1", flexible="1+")
class DescribeClientQuotasResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    entries: list[EntryData] | None = field(array(EntryData), "0+", nullable="0+", default=None)
