"""Mirrors Kafka 2.4: clients/src/main/resources/common/message/FetchRequest.json
and FetchResponse.json (same directory).

Classes: FetchRequest (FetchTopic, FetchPartition, ForgottenTopic) and FetchResponse
(FetchableTopicResponse, PartitionData, AbortedTransaction, EpochEndOffset, LeaderIdAndEpoch,
SnapshotId).

Consumers and follower replicas ask for data from an offset; the broker answers per partition
with the high watermark, the last stable offset, the log start offset, the aborted transactions
of the range (for read_committed readers) and the stored batches as they are (``records``).
On the write side ``records`` may be any bytes-like object or a file slice the codec can size,
so the network layer can send log data with ``os.sendfile``.

Version history, in short:
- v0-3 are answered with message sets of magic 0 (v0-1) or 1 (v2-3), down-converted from the stored
  magic 2 batches (kafkalite/server/fetch_down_conversion.py); v1 adds ``throttle_time_ms``, v3 the
  request's ``max_bytes`` (before it, the response has no overall bound).
- v4 adds ``isolation_level`` and, in the response, ``last_stable_offset`` and
  ``aborted_transactions`` (null or empty when there are none).
- v5 adds ``log_start_offset``; v7 adds incremental fetch sessions (``session_id``,
  ``session_epoch``, ``forgotten_topics_data``, top-level ``error_code``).
- v9 adds ``current_leader_epoch`` (KIP-320); v11 adds ``rack_id`` and
  ``preferred_read_replica`` (KIP-392).
- v12 is the first flexible version; it adds ``last_fetched_epoch`` and the tagged fields
  ``cluster_id`` (request), ``diverging_epoch``, ``current_leader``, ``snapshot_id`` (response).

Era notes: 2.4 went up to v11 and was not flexible; v12 is today's wire (DESIGN §2). Names
follow today's Kafka (``max_wait_ms``, ``session_epoch``, ``partition_max_bytes``,
``responses``), not 2.4's JSON (``max_wait``, ``epoch``, ``max_bytes``, ``topics``).
Left out: v13+ (topic ids instead of names, replica state,
node endpoints, replica directory ids).
"""
from kafkalite.protocol.schema import (
    INT8, INT16, INT32, INT64, RECORDS, STRING, array, field, message, struct,
)


@struct
class FetchPartition:
    partition: int = field(INT32, "0+")
    # The fetcher's idea of the leader epoch; -1 = "don't check" (KIP-320).
    current_leader_epoch: int = field(INT32, "9+", ignorable=True, default=-1)
    fetch_offset: int = field(INT64, "0+")
    # Epoch of the last batch the follower holds, for divergence checks (KIP-595).
    last_fetched_epoch: int = field(INT32, "12+", default=-1)
    log_start_offset: int = field(INT64, "5+", ignorable=True, default=-1)  # followers only
    partition_max_bytes: int = field(INT32, "0+")


@struct
class FetchTopic:
    topic: str = field(STRING, "0+")
    partitions: list[FetchPartition] = field(array(FetchPartition), "0+")


@struct
class ForgottenTopic:
    """Partitions an incremental fetch session should stop tracking."""
    topic: str = field(STRING, "7+")
    partitions: list[int] = field(array(INT32), "7+")


@message(api_key=1, kind="request", valid="0-12", flexible="12+")
class FetchRequest:
    cluster_id: str | None = field(STRING, "12+", nullable="12+", tag=0, tagged="12+",
                                   ignorable=True, default=None)
    replica_id: int = field(INT32, "0+", default=-1)   # -1 for consumers, broker id for followers
    max_wait_ms: int = field(INT32, "0+")             # long-poll bound
    min_bytes: int = field(INT32, "0+")               # answer early once this much is ready
    max_bytes: int = field(INT32, "3+", ignorable=True, default=0x7FFFFFFF)
    isolation_level: int = field(INT8, "4+", ignorable=True, default=0)  # 0 uncommitted, 1 committed
    session_id: int = field(INT32, "7+", ignorable=True, default=0)
    session_epoch: int = field(INT32, "7+", ignorable=True, default=-1)
    topics: list[FetchTopic] = field(array(FetchTopic), "0+")
    forgotten_topics_data: list[ForgottenTopic] = field(array(ForgottenTopic), "7+")
    rack_id: str = field(STRING, "11+", ignorable=True, default="")


@struct
class AbortedTransaction:
    producer_id: int = field(INT64, "4+")
    first_offset: int = field(INT64, "4+")     # where the aborted transaction began


@struct
class EpochEndOffset:
    epoch: int = field(INT32, "12+", default=-1)
    end_offset: int = field(INT64, "12+", default=-1)


@struct
class LeaderIdAndEpoch:
    leader_id: int = field(INT32, "12+", default=-1)
    leader_epoch: int = field(INT32, "12+", default=-1)


@struct
class SnapshotId:
    end_offset: int = field(INT64, "0+", default=-1)
    epoch: int = field(INT32, "0+", default=-1)


@struct
class PartitionData:
    partition_index: int = field(INT32, "0+")
    error_code: int = field(INT16, "0+")
    high_watermark: int = field(INT64, "0+")
    # Offsets below this are free of open transactions (read_committed readers stop here).
    last_stable_offset: int = field(INT64, "4+", ignorable=True, default=-1)
    log_start_offset: int = field(INT64, "5+", ignorable=True, default=-1)
    # Tagged fields for follower fetching (KRaft-era); absent unless set.
    diverging_epoch: EpochEndOffset = field(EpochEndOffset, "12+", tag=0, tagged="12+",
                                            default=EpochEndOffset)
    current_leader: LeaderIdAndEpoch = field(LeaderIdAndEpoch, "12+", tag=1, tagged="12+",
                                             default=LeaderIdAndEpoch)
    snapshot_id: SnapshotId = field(SnapshotId, "12+", tag=2, tagged="12+", default=SnapshotId)
    aborted_transactions: list[AbortedTransaction] | None = field(
        array(AbortedTransaction), "4+", nullable="4+", ignorable=True)
    preferred_read_replica: int = field(INT32, "11+", default=-1)   # -1 = read from the leader
    records: object = field(RECORDS, "0+", nullable="0+", default=None)


@struct
class FetchableTopicResponse:
    topic: str = field(STRING, "0+")
    partitions: list[PartitionData] = field(array(PartitionData), "0+")


@message(api_key=1, kind="response", valid="0-12", flexible="12+")
class FetchResponse:
    throttle_time_ms: int = field(INT32, "1+", ignorable=True, default=0)
    error_code: int = field(INT16, "7+", ignorable=True, default=0)   # session-level error
    session_id: int = field(INT32, "7+", default=0)                    # 0 = no session
    responses: list[FetchableTopicResponse] = field(
        array(FetchableTopicResponse), "0+")
