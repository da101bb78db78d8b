"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/InitProducerIdRequest.json
and InitProducerIdResponse.json (same directory).

Classes: InitProducerIdRequest, InitProducerIdResponse.

An idempotent or transactional producer asks for a producer id and epoch. With a
``transactional_id`` the request goes to the transaction coordinator, which fences older
instances by bumping the epoch.

Version history, in short:
- v1 is v0 (the response may be throttled); v2 is the first flexible version.
- v3 adds ``producer_id``/``producer_epoch`` so a producer can bump its own epoch after an
  error instead of losing its id (KIP-360).
- v4 may answer PRODUCER_FENCED instead of INVALID_PRODUCER_EPOCH.

Era notes: 2.4 went up to v2; v3-4 are today's wire, needed by kafka-python 3 and librdkafka.
Left out: v5 (transactions v2, KIP-890) and v6 (two-phase commit, KIP-939).
"""
from kafkalite.protocol.schema import INT16, INT32, INT64, STRING, field, message


@message(api_key=22, kind="request", valid="0-4", flexible="2+")
class InitProducerIdRequest:
    transactional_id: str | None = field(STRING, "0+", nullable="0+")  # None = idempotence only
    transaction_timeout_ms: int = field(INT32, "0+")
    producer_id: int = field(INT64, "3+", default=-1)        # the current id, or -1
    producer_epoch: int = field(INT16, "3+", default=-1)     # the current epoch, or -1


@message(api_key=22, kind="response", valid="0-4", flexible="2+")
class InitProducerIdResponse:
    throttle_time_ms: int = field(INT32, "0+", ignorable=True, default=0)
    error_code: int = field(INT16, "0+")
    producer_id: int = field(INT64, "0+", default=-1)
    producer_epoch: int = field(INT16, "0+")
