"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/FetchSession.scala

Classes: CachedPartition, FetchSession, FetchContext and its four kinds (SessionErrorContext,
SessionlessFetchContext, FullFetchContext, IncrementalFetchContext), LastUsedKey, EvictableKey,
FetchSessionCache, FetchManager. Function: build_fetch_response (the wire response of what a context kept).

Incremental fetch sessions (KIP-227). A full fetch (epoch 0) names every partition; the broker answers
all of them and, if the cache has a slot, a new session id. The fetcher then sends incremental fetches
(epoch 1, 2, ...) naming only the partitions whose fetch offset, log start offset or max bytes changed,
plus the partitions to forget; the broker serves every partition of the session and answers only the
ones with something new: records, a changed high watermark or log start offset, or an error. Partitions
answered move to the end of the session, so a fetch that runs out of ``fetch.max.bytes`` starts with
the others next time.

FetchManager.new_context picks the context for a request: FINAL_EPOCH (-1, what every fetch before v7
means) gives a SessionlessFetchContext (no session); epoch 0 a FullFetchContext (which removes the
session named, if any, and tries to create one); a positive epoch an IncrementalFetchContext, or a
SessionErrorContext with FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH.

The cache holds at most ``max.incremental.fetch.session.cache.slots`` sessions (0 turns sessions off:
every full fetch is answered with session id 0). When it is full a new session may evict, in this
order: the least recently used session if it has not been used for
MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS (2 minutes, a KafkaServer constant in 2.4, not a config);
else the "smallest" evictable session -- unprivileged (consumer) sessions before privileged (follower)
ones, then fewer partitions before more -- if the newcomer is at least as big. A session becomes
evictable once it is older than the eviction time; a follower's can only be evicted by another
follower's until then.

Python notes: Kafka keeps the lastUsed / evictable maps as TreeMaps; here they are dicts and the first
entry is found with min() when the cache is full and must evict (at most the slot count of sessions, and
only then). FetchContext.update_and_generate_response_data takes and returns an ordered dict
{TopicPartition: ReplicaManager's FetchPartitionData} (``error``, ``high_watermark``, ``log_start_offset``,
``last_stable_offset``, ``records``); ``build_fetch_response`` turns only the partitions kept into wire
structs, grouped by topic.
Era notes: every incremental fetch refreshes its session's last use (Kafka 2.5, KAFKA-9137: 2.4 refreshed
only a session whose size changed, so a busy session counted as stale after two minutes). CachedPartition
also caches ``current_leader_epoch`` (Kafka 2.5, KAFKA-9338: 2.4 forgot it, and
incremental fetches skipped the leader-epoch check) and ``last_fetched_epoch`` (Kafka 2.8, Fetch v12). A
change of the last stable offset also puts a partition in an incremental response (2.4 compares only the
high watermark and log start offset; a read_committed reader then learns of an LSO move even without new
records). Left out: getResponseSize is an estimate (records bytes plus a fixed per-partition overhead)
for the quota managers; Kafka sizes the real response.
"""
from __future__ import annotations

import random
import threading

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.metrics.broker_topic_stats import BROKER_TOPIC_STATS
from kafkalite.metrics.kafka_metrics_group import Meter
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.fetch_metadata import FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, next_epoch
from kafkalite.protocol.messages import fetch
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.utils.logging import Logging

# Kafka: FetchSession's metric names
NUM_INCREMENTAL_FETCH_SESSIONS = "NumIncrementalFetchSessions"
NUM_INCREMENTAL_FETCH_PARTITIONS_CACHED = "NumIncrementalFetchPartitionsCached"
INCREMENTAL_FETCH_SESSIONS_EVICTIONS_PER_SEC = "IncrementalFetchSessionEvictionsPerSec"
EVICTIONS = "evictions"
MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS = 120_000   # Kafka: KafkaServer.MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS
_MAX_INT = 2**31 - 1
_PARTITION_OVERHEAD = 50   # bytes of a response partition besides its records, for get_response_size


def records_size(records) -> int:
    if records is None:
        return 0
    if isinstance(records, (bytes, bytearray, memoryview)):
        return len(records)
    return records.size_in_bytes()


class CachedPartition:
    """Kafka: CachedPartition -- one partition of a session: the request parameters the fetcher last sent
    and the response values the broker last sent (high watermark, log start offset)."""

    __slots__ = ("topic", "partition", "max_bytes", "fetch_offset", "high_watermark", "fetcher_log_start_offset",
                 "local_log_start_offset", "leader_epoch", "last_fetched_epoch", "last_stable_offset", "_req_data")

    def __init__(self, topic: str, partition: int, req_data=None, resp_data=None):
        self.topic, self.partition = topic, partition
        self.high_watermark = -1 if resp_data is None else resp_data.high_watermark
        self.local_log_start_offset = -1 if resp_data is None else resp_data.log_start_offset
        self.last_stable_offset = -1 if resp_data is None else resp_data.last_stable_offset
        self.max_bytes = self.fetch_offset = self.fetcher_log_start_offset = -1
        self.leader_epoch = self.last_fetched_epoch = -1
        self._req_data = None
        if req_data is not None:
            self.update_request_params(req_data)

    # Kafka: CachedPartition.topicPartition
    @property
    def topic_partition(self) -> TopicPartition:
        return TopicPartition(self.topic, self.partition)

    # Kafka: CachedPartition.reqData -- the request partition this session stands for
    @property
    def req_data(self):
        if self._req_data is None:
            self._req_data = fetch.FetchPartition(
                partition=self.partition, current_leader_epoch=self.leader_epoch, fetch_offset=self.fetch_offset,
                last_fetched_epoch=self.last_fetched_epoch, log_start_offset=self.fetcher_log_start_offset,
                partition_max_bytes=self.max_bytes)
        return self._req_data

    # Kafka: CachedPartition.updateRequestParams
    def update_request_params(self, req_data) -> None:
        self.max_bytes = req_data.partition_max_bytes
        self.fetch_offset = req_data.fetch_offset
        self.fetcher_log_start_offset = req_data.log_start_offset
        self.leader_epoch = req_data.current_leader_epoch        # Kafka 2.5: CachedPartition.leaderEpoch
        self.last_fetched_epoch = req_data.last_fetched_epoch    # Kafka 2.8: CachedPartition.lastFetchedEpoch
        self._req_data = req_data

    # Kafka: CachedPartition.maybeUpdateResponseData -- must this partition be in an incremental response?
    def maybe_update_response_data(self, resp_data, update_response_data: bool) -> bool:
        must_respond = records_size(resp_data.records) > 0
        if self.high_watermark != resp_data.high_watermark:
            must_respond = True
            if update_response_data:
                self.high_watermark = resp_data.high_watermark
        if self.local_log_start_offset != resp_data.log_start_offset:
            must_respond = True
            if update_response_data:
                self.local_log_start_offset = resp_data.log_start_offset
        if self.last_stable_offset != resp_data.last_stable_offset:   # kafkalite: see the module's era notes
            must_respond = True
            if update_response_data:
                self.last_stable_offset = resp_data.last_stable_offset
        if getattr(resp_data, "preferred_read_replica", -1) >= 0:
            must_respond = True
        if resp_data.error is not Errors.NONE:
            # an error is always sent; forgetting the high watermark sends the partition again once it clears
            if update_response_data:
                self.high_watermark = -1
            must_respond = True
        return must_respond

    def __repr__(self) -> str:
        return (f"CachedPartition(topic={self.topic}, partition={self.partition}, maxBytes={self.max_bytes}, "
                f"fetchOffset={self.fetch_offset}, highWatermark={self.high_watermark}, "
                f"fetcherLogStartOffset={self.fetcher_log_start_offset}, "
                f"localLogStartOffset={self.local_log_start_offset})")


class FetchSession:
    """Kafka: FetchSession(id, privileged, partitionMap, creationMs, lastUsedMs, epoch) -- ``partition_map`` is
    an insertion-ordered {TopicPartition: CachedPartition}; ``cached_size`` is the size the cache last saw."""

    def __init__(self, id: int, privileged: bool, partition_map: dict, creation_ms: int, last_used_ms: int,
                 epoch: int):
        self.id = id
        self.privileged = privileged
        self.partition_map = partition_map
        self.creation_ms = creation_ms
        self.last_used_ms = last_used_ms
        self.epoch = epoch
        self.cached_size = -1
        self.lock = threading.RLock()   # Kafka: FetchSession's monitor (synchronized)

    # Kafka: FetchSession.size
    def size(self) -> int:
        return len(self.partition_map)

    # Kafka: FetchSession.isEmpty
    def is_empty(self) -> bool:
        return not self.partition_map

    # Kafka: FetchSession.lastUsedKey
    def last_used_key(self) -> "LastUsedKey":
        return LastUsedKey(self.last_used_ms, self.id)

    # Kafka: FetchSession.evictableKey
    def evictable_key(self) -> "EvictableKey":
        return EvictableKey(self.privileged, self.cached_size, self.id)

    # Kafka: FetchSession.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        with self.lock:
            part = self.partition_map.get(tp)
            return None if part is None else part.fetch_offset

    # Kafka: FetchSession.update -- apply an incremental request; returns (added, updated, removed)
    def update(self, fetch_data: dict, to_forget: list, req_metadata) -> tuple[list, list, list]:
        added, updated, removed = [], [], []
        with self.lock:
            for tp, req_data in fetch_data.items():
                part = self.partition_map.get(tp)
                if part is None:
                    self.partition_map[tp] = CachedPartition(tp.topic, tp.partition, req_data)
                    added.append(tp)
                else:
                    part.update_request_params(req_data)
                    updated.append(tp)
            for tp in to_forget:
                if self.partition_map.pop(tp, None) is not None:
                    removed.append(tp)
        return added, updated, removed

    def __repr__(self) -> str:
        return (f"FetchSession(id={self.id}, privileged={self.privileged}, partitionMap.size={self.size()}, "
                f"creationMs={self.creation_ms}, lastUsedMs={self.last_used_ms}, epoch={self.epoch})")


class FetchContext(Logging):
    """Kafka: FetchContext -- what KafkaApis asks of a fetch, whatever its kind."""

    logger_name = "kafka.server.FetchContext"

    # Kafka: FetchContext.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        raise NotImplementedError

    # Kafka: FetchContext.foreachPartition -- every partition to read, with its request parameters
    def foreach_partition(self, fun) -> None:
        raise NotImplementedError

    # Kafka: FetchContext.getResponseSize
    def get_response_size(self, updates: dict, version: int) -> int:
        return sum(records_size(d.records) + _PARTITION_OVERHEAD for d in updates.values())

    # Kafka: FetchContext.updateAndGenerateResponseData -> (error, session id, the partitions to send)
    def update_and_generate_response_data(self, updates: dict) -> tuple[Errors, int, dict]:
        raise NotImplementedError

    # Kafka: FetchContext.getThrottledResponse -> (error, session id, partitions)
    def get_throttled_response(self, throttle_time_ms: int) -> tuple[Errors, int, dict]:
        return Errors.NONE, INVALID_SESSION_ID, {}

    # Kafka: FetchContext.partitionsToLogString
    def partitions_to_log_string(self, partitions) -> str:
        return f"({', '.join(map(str, partitions))})" if self.is_trace_enabled() else f"{len(partitions)} partition(s)"


class SessionErrorContext(FetchContext):
    """Kafka: SessionErrorContext -- a request naming an unknown session or the wrong epoch: no partitions."""

    def __init__(self, error: Errors, req_metadata):
        self.error = error
        self.req_metadata = req_metadata

    # Kafka: SessionErrorContext.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        return None

    # Kafka: SessionErrorContext.foreachPartition
    def foreach_partition(self, fun) -> None:
        pass

    # Kafka: SessionErrorContext.getResponseSize
    def get_response_size(self, updates: dict, version: int) -> int:
        return 0

    # Kafka: SessionErrorContext.updateAndGenerateResponseData
    def update_and_generate_response_data(self, updates: dict) -> tuple[Errors, int, dict]:
        self.debug(f"Session error fetch context returning {self.error.name}")
        return self.error, INVALID_SESSION_ID, {}


class SessionlessFetchContext(FetchContext):
    """Kafka: SessionlessFetchContext -- a full fetch that wants no session (epoch -1, or pre-v7)."""

    def __init__(self, fetch_data: dict):
        self.fetch_data = fetch_data

    # Kafka: SessionlessFetchContext.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        data = self.fetch_data.get(tp)
        return None if data is None else data.fetch_offset

    # Kafka: SessionlessFetchContext.foreachPartition
    def foreach_partition(self, fun) -> None:
        for tp, data in self.fetch_data.items():
            fun(tp, data)

    # Kafka: SessionlessFetchContext.updateAndGenerateResponseData
    def update_and_generate_response_data(self, updates: dict) -> tuple[Errors, int, dict]:
        return Errors.NONE, INVALID_SESSION_ID, updates


class FullFetchContext(FetchContext):
    """Kafka: FullFetchContext(time, cache, reqMetadata, fetchData, isFromFollower) -- a full fetch that opens
    a new session if the cache lets it."""

    def __init__(self, time, cache: "FetchSessionCache", req_metadata, fetch_data: dict, is_from_follower: bool):
        self.time = time
        self.cache = cache
        self.req_metadata = req_metadata
        self.fetch_data = fetch_data
        self.is_from_follower = is_from_follower

    # Kafka: FullFetchContext.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        data = self.fetch_data.get(tp)
        return None if data is None else data.fetch_offset

    # Kafka: FullFetchContext.foreachPartition
    def foreach_partition(self, fun) -> None:
        for tp, data in self.fetch_data.items():
            fun(tp, data)

    # Kafka: FullFetchContext.updateAndGenerateResponseData
    def update_and_generate_response_data(self, updates: dict) -> tuple[Errors, int, dict]:
        def create_new_session() -> dict:
            fetch_data = self.fetch_data
            return {tp: CachedPartition(tp.topic, tp.partition, fetch_data.get(tp), resp)
                    for tp, resp in updates.items()}
        session_id = self.cache.maybe_create_session(self.time.milliseconds(), self.is_from_follower, len(updates),
                                                     create_new_session)
        self.debug(f"Full fetch context with session id {session_id} returning "
                   f"{self.partitions_to_log_string(updates)}")
        return Errors.NONE, session_id, updates


class IncrementalFetchContext(FetchContext):
    """Kafka: IncrementalFetchContext(time, reqMetadata, session) -- a fetch within an existing session."""

    def __init__(self, time, req_metadata, session: FetchSession):
        self.time = time
        self.req_metadata = req_metadata
        self.session = session

    # Kafka: IncrementalFetchContext.getFetchOffset
    def get_fetch_offset(self, tp) -> int | None:
        return self.session.get_fetch_offset(tp)

    # Kafka: IncrementalFetchContext.foreachPartition -- every partition of the session, not just the request's
    def foreach_partition(self, fun) -> None:
        with self.session.lock:
            for tp, part in self.session.partition_map.items():
                fun(tp, part.req_data)

    # Kafka: IncrementalFetchContext.PartitionIterator -- the partitions that must be answered; with ``update``
    # it also records what is sent and moves each answered partition to the end of the session
    def _select(self, updates: dict, update: bool) -> dict:
        partition_map = self.session.partition_map
        selected = {}
        for tp, resp in updates.items():
            cached = partition_map.get(tp)
            if cached is None:   # forgotten by a later request while this one waited in purgatory
                continue
            if cached.maybe_update_response_data(resp, update):
                selected[tp] = resp
                if update:
                    del partition_map[tp]
                    partition_map[tp] = cached
        return selected

    # Kafka: IncrementalFetchContext.getResponseSize
    def get_response_size(self, updates: dict, version: int) -> int:
        with self.session.lock:
            if self.session.epoch != next_epoch(self.req_metadata.epoch):
                return 0
            return super().get_response_size(self._select(updates, False), version)

    # Kafka: IncrementalFetchContext.updateAndGenerateResponseData
    def update_and_generate_response_data(self, updates: dict) -> tuple[Errors, int, dict]:
        session = self.session
        with session.lock:
            expected_epoch = next_epoch(self.req_metadata.epoch)
            if session.epoch != expected_epoch:
                self.info(f"Incremental fetch session {session.id} expected epoch {expected_epoch}, but got "
                          f"{session.epoch}.  Possible duplicate request.")
                return Errors.INVALID_FETCH_SESSION_EPOCH, session.id, {}
            selected = self._select(updates, True)
            self.debug(f"Incremental fetch context with session id {session.id} returning "
                       f"{self.partitions_to_log_string(selected)}")
            return Errors.NONE, session.id, selected

    # Kafka: IncrementalFetchContext.getThrottledResponse
    def get_throttled_response(self, throttle_time_ms: int) -> tuple[Errors, int, dict]:
        with self.session.lock:
            if self.session.epoch != next_epoch(self.req_metadata.epoch):
                return Errors.INVALID_FETCH_SESSION_EPOCH, self.session.id, {}
            return Errors.NONE, self.session.id, {}


class LastUsedKey(tuple):
    """Kafka: LastUsedKey(lastUsedMs, id) -- ordered by last use, then id."""

    def __new__(cls, last_used_ms: int, id: int):
        return super().__new__(cls, (last_used_ms, id))

    last_used_ms = property(lambda self: self[0])
    id = property(lambda self: self[1])


class EvictableKey(tuple):
    """Kafka: EvictableKey(privileged, size, id) -- unprivileged before privileged, then small before big."""

    def __new__(cls, privileged: bool, size: int, id: int):
        return super().__new__(cls, (privileged, size, id))

    privileged = property(lambda self: self[0])
    size = property(lambda self: self[1])
    id = property(lambda self: self[2])


class FetchSessionCache(Logging):
    """Kafka: FetchSessionCache(maxEntries, evictionMs) -- the broker's sessions, at most ``max_entries``."""

    logger_name = "kafka.server.FetchSessionCache"

    def __init__(self, max_entries: int, eviction_ms: int = MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS):
        self.max_entries = max_entries
        self.eviction_ms = eviction_ms
        self.lock = threading.RLock()    # Kafka: FetchSessionCache's monitor
        self.num_partitions = 0
        self.sessions: dict[int, FetchSession] = {}
        self.last_used: dict[int, FetchSession] = {}                  # sessions ordered by LastUsedKey (min())
        self.evictable_by_all: dict[int, FetchSession] = {}           # sessions older than eviction_ms
        self.evictable_by_privileged: dict[int, FetchSession] = {}    # those and every unprivileged session
        # Kafka: FetchSessionCache.evictionsMeter; the gauges are registered by metrics/broker_metrics.py
        self.evictions_meter = Meter(EVICTIONS)

    # Kafka: FetchSessionCache.get
    def get(self, session_id: int) -> FetchSession | None:
        with self.lock:
            return self.sessions.get(session_id)

    # Kafka: FetchSessionCache.size
    def size(self) -> int:
        with self.lock:
            return len(self.sessions)

    # Kafka: FetchSessionCache.totalPartitions
    def total_partitions(self) -> int:
        with self.lock:
            return self.num_partitions

    # Kafka: FetchSessionCache.newSessionId
    def new_session_id(self) -> int:
        with self.lock:
            while True:
                session_id = random.randint(1, _MAX_INT - 1)
                if session_id not in self.sessions and session_id != INVALID_SESSION_ID:
                    return session_id

    # Kafka: FetchSessionCache.maybeCreateSession -- the new session's id, or 0 if there is no room
    def maybe_create_session(self, now: int, privileged: bool, size: int, create_partitions) -> int:
        with self.lock:
            if len(self.sessions) < self.max_entries or \
                    self.try_evict(privileged, EvictableKey(privileged, size, 0), now):
                session = FetchSession(self.new_session_id(), privileged, create_partitions(), now, now,
                                       next_epoch(INITIAL_EPOCH))
                self.debug(f"Created fetch session {session}")
                self.sessions[session.id] = session
                self.touch(session, now)
                return session.id
            self.debug(f"No fetch session created for privileged={privileged}, size={size}.")
            return INVALID_SESSION_ID

    # Kafka: FetchSessionCache.tryEvict -- make room for a session of ``key``, if Kafka's rules allow
    def try_evict(self, privileged: bool, key: EvictableKey, now: int) -> bool:
        with self.lock:
            if not self.last_used:
                self.trace("There are no cache entries to evict.")
                return False
            stalest = min(self.last_used.values(), key=FetchSession.last_used_key)
            if now - stalest.last_used_ms > self.eviction_ms:
                self.trace(f"Evicting stale FetchSession {stalest.id}.")
                self.remove(stalest)
                self.evictions_meter.mark()
                return True
            candidates = self.evictable_by_privileged if privileged else self.evictable_by_all
            if not candidates:
                self.trace("No evictable entries found.")
                return False
            victim = min(candidates.values(), key=FetchSession.evictable_key)
            if key < victim.evictable_key():
                self.trace(f"Can't evict {victim.evictable_key()} with {key}")
                return False
            self.trace(f"Evicting {victim.evictable_key()} with {key}.")
            self.remove(victim)
            self.evictions_meter.mark()
            return True

    # Kafka: FetchSessionCache.remove (by id or by session)
    def remove(self, session) -> FetchSession | None:
        with self.lock:
            if isinstance(session, int):
                session = self.sessions.get(session)
                if session is None:
                    return None
            self.last_used.pop(session.id, None)
            self.evictable_by_all.pop(session.id, None)
            self.evictable_by_privileged.pop(session.id, None)
            removed = self.sessions.pop(session.id, None)
            if removed is not None:
                self.num_partitions -= session.cached_size
            return removed

    # Kafka: FetchSessionCache.touch -- record a use and the session's current size
    def touch(self, session: FetchSession, now: int) -> None:
        with self.lock, session.lock:
            session.last_used_ms = now
            self.last_used[session.id] = session
            if session.cached_size != -1:
                self.evictable_by_privileged.pop(session.id, None)
                self.evictable_by_all.pop(session.id, None)
                self.num_partitions -= session.cached_size
            session.cached_size = session.size()
            old_enough = now - session.creation_ms > self.eviction_ms
            if not session.privileged or old_enough:
                self.evictable_by_privileged[session.id] = session
            if old_enough:
                self.evictable_by_all[session.id] = session
            self.num_partitions += session.cached_size


class FetchManager(Logging):
    """Kafka: FetchManager(time, cache) -- turns a Fetch request's session fields into a FetchContext."""

    logger_name = "kafka.server.FetchManager"

    def __init__(self, time, cache: FetchSessionCache):
        self.time = time
        self.cache = cache

    # Kafka: FetchManager.newContext
    def new_context(self, req_metadata, fetch_data: dict, to_forget: list, is_follower: bool) -> FetchContext:
        if req_metadata.is_full:
            removed = ""
            if req_metadata.session_id != INVALID_SESSION_ID and self.cache.remove(req_metadata.session_id) is not None:
                removed = f" Removed fetch session {req_metadata.session_id}."
            if req_metadata.epoch == FINAL_EPOCH:
                if removed:
                    self.debug(f"Created a new sessionless FetchContext.{removed}")
                return SessionlessFetchContext(fetch_data)
            self.debug(f"Created a new full FetchContext with {len(fetch_data)} partition(s).{removed}")
            return FullFetchContext(self.time, self.cache, req_metadata, fetch_data, is_follower)
        with self.cache.lock:
            session = self.cache.get(req_metadata.session_id)
            if session is None:
                self.debug(f"Session error for {req_metadata.session_id}: no such session ID found.")
                return SessionErrorContext(Errors.FETCH_SESSION_ID_NOT_FOUND, req_metadata)
            with session.lock:
                if session.epoch != req_metadata.epoch:
                    self.debug(f"Session error for {req_metadata.session_id}: expected epoch {session.epoch}, "
                               f"but got {req_metadata.epoch} instead.")
                    return SessionErrorContext(Errors.INVALID_FETCH_SESSION_EPOCH, req_metadata)
                added, updated, removed = session.update(fetch_data, to_forget, req_metadata)
                if session.is_empty():
                    self.debug(f"Created a new sessionless FetchContext and closing session id {session.id}, "
                               f"epoch {session.epoch}: after removing {len(removed)} partition(s), there are no "
                               f"more partitions left.")
                    self.cache.remove(session)
                    return SessionlessFetchContext(fetch_data)
                # Kafka 2.5 (KAFKA-9137): every use counts; 2.4 touched only a session whose size changed,
                # and with its old time, so a busy session looked stale after two minutes and was evicted
                self.cache.touch(session, self.time.milliseconds())
                session.epoch = next_epoch(session.epoch)
                self.debug(f"Created a new incremental FetchContext for session id {session.id}, epoch "
                           f"{session.epoch}: added {len(added)}, updated {len(updated)}, removed {len(removed)} "
                           f"partition(s)")
                return IncrementalFetchContext(self.time, req_metadata, session)


# The Fetch response's tagged fields kafkalite never sets, shared by every partition instead of built for each;
# built by the first Fetch response, so that start-up does not load the Fetch message classes (issue 18)
_NO_FETCH_TAGS: dict | None = None


def _no_fetch_tags() -> dict:
    global _NO_FETCH_TAGS
    if _NO_FETCH_TAGS is None:
        _NO_FETCH_TAGS = {"diverging_epoch": fetch.EpochEndOffset(), "current_leader": fetch.LeaderIdAndEpoch(),
                          "snapshot_id": fetch.SnapshotId()}
    return _NO_FETCH_TAGS


def build_fetch_response(error: Errors, session_id: int, partitions: dict, is_from_follower: bool = False,
                         throttle_time_ms: int = 0):
    """No Kafka counterpart (KafkaApis.processResponseCallback's createResponse and FetchResponse.toStruct's
    batching by topic): the wire response for the partitions a context kept -- only those become wire
    structs -- one entry per topic in first-seen order; records stay file slices for ``sendfile``. Counts
    the bytes out of what is sent, as Kafka's createResponse does."""
    by_topic: dict[str, list] = {}
    no_tags = _NO_FETCH_TAGS or _no_fetch_tags()
    for tp, d in partitions.items():
        records = d.records
        if records is None or isinstance(records, MemoryRecords):
            records = bytes(records.buffer) if records is not None else b""
        BROKER_TOPIC_STATS.update_bytes_out(tp.topic, is_from_follower, records_size(records))
        aborted = None
        if d.aborted_transactions is not None:   # a read_committed read: the list, maybe empty
            aborted = [fetch.AbortedTransaction(producer_id=pid, first_offset=first)
                       for pid, first in d.aborted_transactions]
        parts = by_topic.get(tp.topic)
        if parts is None:
            parts = by_topic[tp.topic] = []
        parts.append(fetch.PartitionData(
            partition_index=tp.partition, error_code=d.error.code, high_watermark=d.high_watermark,
            last_stable_offset=d.last_stable_offset, log_start_offset=d.log_start_offset,
            aborted_transactions=aborted, records=records, **no_tags))
    return fetch.FetchResponse(throttle_time_ms=throttle_time_ms, error_code=error.code, session_id=session_id,
                               responses=[fetch.FetchableTopicResponse(topic=t, partitions=ps)
                                          for t, ps in by_topic.items()])
