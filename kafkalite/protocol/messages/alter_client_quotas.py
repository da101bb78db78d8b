"""Mirrors Kafka 2.6: clients/src/main/resources/common/message/AlterClientQuotasRequest.json and
AlterClientQuotasResponse.json (same directory). Not in 2.4: KIP-546 added it in 2.6 (2.4's kafka-configs
wrote /config/users and /config/clients in ZooKeeper directly).

Classes: AlterClientQuotasRequest (EntryData, EntityData, OpData), AlterClientQuotasResponse (EntryData,
EntityData).

Each entry names one quota entity -- (entity type, name) pairs, "user" and/or "client-id", a null name being
the default entity -- and the quota values to set (``value``) or remove (``remove``). ``validate_only``
checks without writing. The answer has one error per entity.

Versions: 0-1; v1 is flexible.
"""
from __future__ import annotations

from kafkalite.protocol.schema import BOOL, FLOAT64, INT16, INT32, STRING, array, field, message, struct


@struct
class EntityData:
    entity_type: str = field(STRING, "0+")
    entity_name: str | None = field(STRING, "0+", nullable="0+", default=None)


@struct
class OpData:
    key: str = field(STRING, "0+")
    value: float = field(FLOAT64, "0+", default=0.0)
    remove: bool = field(BOOL, "0+", default=False)


@struct
class EntryData:
    entity: list[EntityData] = field(array(EntityData), "0+", default=[])
    ops: list[OpData] = field(array(OpData), "0+", default=[])


@message(api_key=49, kind="request", valid="0-1", flexible="1+")
class AlterClientQuotasRequest:
    entries: list[EntryData] = field(array(EntryData), "0+", default=[])
    validate_only: bool = field(BOOL, "0+", default=False)


@struct
class EntryResult:
    error_code: int = field(INT16, "0+", default=0)
    error_message: str | None = field(STRING, "0+", nullable="0+", default=None)
    entity: list[EntityData] = field(array(EntityData), "0+", default=[])


@message(api_key=49, kind="response", valid="0-1", flexible="1+")
class AlterClientQuotasResponse:
    throttle_time_ms: int = field(INT32, "0+", default=0)
    entries: list[EntryResult] = field(array(EntryResult), "0+", default=[])
