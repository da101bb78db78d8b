"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/ListGroupsRequest.json
and ListGroupsResponse.json (same directory).

Classes: ListGroupsRequest and ListGroupsResponse (ListedGroup).

Admin tools ask every broker for the groups it coordinates. From v4 the request can filter by
state ("Stable", "Empty", ...) and the answer says each group's state.

Version history, in short: v1 adds ``throttle_time_ms``; v2 is v1; v3 is the first flexible
version; v4 adds ``states_filter`` and ``group_state`` (KIP-518).

Era notes: 2.4 stopped at v3; v4 is today's wire.
Left out: v5 (``types_filter`` and ``group_type``, KIP-848).
"""
from kafkalite.protocol.schema import INT16, INT32, STRING, array, field, message, struct


@message(api_key=16, kind="request", valid="0-4", flexible="3+")
class ListGroupsRequest:
    states_filter: list[str] = field(array(STRING), "4+")   # empty = every state


@struct
class ListedGroup:
    group_id: str = field(STRING, "0+")
    protocol_type: str = field(STRING, "0+")      # "consumer", "connect", or "" for simple groups
    group_state: str = field(STRING, "4+", ignorable=True)


@message(api_key=16, kind="response", valid="0-4", flexible="3+")
class ListGroupsResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    groups: list[ListedGroup] = field(array(ListedGroup), "0+")
