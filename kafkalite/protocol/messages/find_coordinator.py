"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/FindCoordinatorRequest.json
and FindCoordinatorResponse.json (same directory).

Classes: FindCoordinatorRequest, FindCoordinatorResponse.

Before joining a group or starting a transaction a client asks any broker which broker
coordinates its key: for a group, the leader of the ``__consumer_offsets`` partition the group
id hashes to; for a transactional id, the leader of its ``__transaction_state`` partition.

Version history, in short:
- v1 adds ``key_type`` (0 = group, 1 = transaction), ``throttle_time_ms`` and ``error_message``.
- v2 is v1 (throttling on quota violation); v3 is the first flexible version.

Era notes: v0-3 is exactly 2.4's range.
Left out: v4+ (KIP-699), which batches several ``coordinator_keys`` into one request and
answers with a ``coordinators`` list; kafka-python copes with v3.
"""
from kafkalite.protocol.schema import INT8, INT16, INT32, STRING, field, message


@message(api_key=10, kind="request", valid="0-3", flexible="3+")
class FindCoordinatorRequest:
    key: str = field(STRING, "0+")                # the group id or the transactional id
    key_type: int = field(INT8, "1+", default=0)  # 0 = group, 1 = transaction


@message(api_key=10, kind="response", valid="0-3", flexible="3+")
class FindCoordinatorResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    error_message: str | None = field(STRING, "1+", nullable="1+", ignorable=True, default=None)
    node_id: int = field(INT32, "0+")             # the coordinator broker
    host: str = field(STRING, "0+")
    port: int = field(INT32, "0+")
