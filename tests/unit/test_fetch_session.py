"""Kafka 2.4's FetchSessionTest (core/src/test/scala/unit/kafka/server/FetchSessionTest.scala), case by case,
plus the cases kafkalite adds: eviction rules for privileged sessions, KAFKA-9137's refreshed last use,
answered partitions moving to the end of a session, and what an incremental response must carry."""
from __future__ import annotations

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.fetch_metadata import FINAL_EPOCH, INITIAL, INVALID_SESSION_ID, LEGACY, FetchMetadata
from kafkalite.protocol.messages.fetch import FetchPartition
from kafkalite.server.fetch_session import (
    CachedPartition, FetchManager, FetchSessionCache, FullFetchContext, IncrementalFetchContext, SessionErrorContext,
    SessionlessFetchContext, build_fetch_response,
)
from kafkalite.server.replica_manager import FetchPartitionData
from kafkalite.utils.time import MockTime

FOO0, FOO1, BAR0, BAR1 = (TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0),
                          TopicPartition("bar", 1))


def req(fetch_offset, log_start_offset=0, max_bytes=100, partition=0):
    return FetchPartition(partition=partition, fetch_offset=fetch_offset, log_start_offset=log_start_offset,
                          partition_max_bytes=max_bytes)


def resp(high_watermark, last_stable_offset, log_start_offset, records=b"", error=Errors.NONE):
    """What ReplicaManager.fetch_messages answers for a partition (KafkaApis hands it to the context)."""
    return FetchPartitionData(error, high_watermark, log_start_offset, last_stable_offset, records)




def dummy_create(size):
    return lambda: {TopicPartition("test", i): CachedPartition("test", i) for i in range(size)}


def assert_cache_contains(cache, *session_ids):
    for session_id in session_ids:
        assert cache.get(session_id) is not None, f"missing session {session_id}"
    assert cache.size() == len(session_ids)


def full_session(manager, req_data, resp_data):
    context = manager.new_context(INITIAL, req_data, [], False)
    assert isinstance(context, FullFetchContext)
    error, session_id, sent = context.update_and_generate_response_data(resp_data)
    assert error is Errors.NONE and session_id != INVALID_SESSION_ID
    return session_id, sent


def test_new_session_id():
    cache = FetchSessionCache(3, 100)
    assert all(cache.new_session_id() > 0 for _ in range(10_001))


def test_session_cache():
    cache = FetchSessionCache(3, 100)
    assert cache.size() == 0
    id1 = cache.maybe_create_session(0, False, 10, dummy_create(10))
    id2 = cache.maybe_create_session(10, False, 20, dummy_create(20))
    id3 = cache.maybe_create_session(20, False, 30, dummy_create(30))
    # full, and nobody is old enough to be evicted
    assert cache.maybe_create_session(30, False, 40, dummy_create(40)) == INVALID_SESSION_ID
    assert cache.maybe_create_session(40, False, 5, dummy_create(5)) == INVALID_SESSION_ID
    assert_cache_contains(cache, id1, id2, id3)
    cache.touch(cache.get(id1), 200)
    # id2 has not been used for more than 100 ms: stale, evicted first
    id4 = cache.maybe_create_session(210, False, 11, dummy_create(11))
    assert_cache_contains(cache, id1, id3, id4)
    cache.touch(cache.get(id1), 400)
    cache.touch(cache.get(id3), 390)
    cache.touch(cache.get(id4), 400)
    # nobody stale: the smallest evictable session (id1, 10 partitions) gives way to a bigger one
    id5 = cache.maybe_create_session(410, False, 50, dummy_create(50))
    assert_cache_contains(cache, id3, id4, id5)
    # a smaller unprivileged newcomer cannot evict; a privileged one can evict any unprivileged session
    assert cache.maybe_create_session(410, False, 5, dummy_create(5)) == INVALID_SESSION_ID
    id6 = cache.maybe_create_session(410, True, 5, dummy_create(5))
    assert_cache_contains(cache, id3, id5, id6)


def test_resize_cached_sessions():
    cache = FetchSessionCache(2, 100)
    assert (cache.total_partitions(), cache.size(), cache.evictions_meter.count) == (0, 0, 0)
    id1 = cache.maybe_create_session(0, False, 2, dummy_create(2))
    assert id1 > 0
    assert_cache_contains(cache, id1)
    session1 = cache.get(id1)
    assert session1.size() == 2
    assert (cache.total_partitions(), cache.size(), cache.evictions_meter.count) == (2, 1, 0)
    id2 = cache.maybe_create_session(0, False, 4, dummy_create(4))
    session2 = cache.get(id2)
    assert id2 > 0
    assert_cache_contains(cache, id1, id2)
    assert (cache.total_partitions(), cache.size(), cache.evictions_meter.count) == (6, 2, 0)
    cache.touch(session1, 200)
    cache.touch(session2, 200)
    id3 = cache.maybe_create_session(200, False, 5, dummy_create(5))
    assert id3 > 0
    assert_cache_contains(cache, id2, id3)
    assert (cache.total_partitions(), cache.size(), cache.evictions_meter.count) == (9, 2, 1)
    cache.remove(id3)
    assert_cache_contains(cache, id2)
    assert (cache.total_partitions(), cache.size(), cache.evictions_meter.count) == (4, 1, 1)
    del session2.partition_map[next(iter(session2.partition_map))]
    assert (session2.size(), session2.cached_size) == (3, 4)
    cache.touch(session2, session2.last_used_ms)
    assert cache.total_partitions() == 3


def test_privileged_sessions_are_evicted_only_when_old_by_followers_or_when_stale():
    cache = FetchSessionCache(1, 100)
    follower = cache.maybe_create_session(0, True, 1, dummy_create(1))
    cache.touch(cache.get(follower), 50)
    # a young follower session is safe from consumers and followers alike
    assert cache.maybe_create_session(60, False, 1000, dummy_create(1000)) == INVALID_SESSION_ID
    assert cache.maybe_create_session(60, True, 1000, dummy_create(1000)) == INVALID_SESSION_ID
    # once older than the eviction time (and still in use) a bigger follower session may evict it...
    cache.touch(cache.get(follower), 140)
    assert cache.maybe_create_session(150, False, 5, dummy_create(5)) == INVALID_SESSION_ID   # ...no consumer
    other = cache.maybe_create_session(150, True, 2, dummy_create(2))
    assert_cache_contains(cache, other)
    # a session unused for longer than the eviction time is stale: anyone evicts it
    consumer = cache.maybe_create_session(300, False, 1, dummy_create(1))
    assert_cache_contains(cache, consumer)
    assert cache.evictions_meter.count == 2


def test_fetch_requests():
    time = MockTime()
    cache = FetchSessionCache(10, 1000)
    manager = FetchManager(time, cache)
    # SESSIONLESS requests get a SessionlessFetchContext
    assert isinstance(manager.new_context(LEGACY, {}, [], True), SessionlessFetchContext)
    # a FULL fetch request creates a session
    req_data2 = {FOO0: req(0), FOO1: req(10)}
    context2 = manager.new_context(INITIAL, req_data2, [], False)
    assert isinstance(context2, FullFetchContext)
    seen = []
    context2.foreach_partition(lambda tp, data: seen.append((tp, data)))
    assert seen == list(req_data2.items())
    assert (context2.get_fetch_offset(FOO0), context2.get_fetch_offset(FOO1)) == (0, 10)
    resp_data2 = {FOO0: resp(100, 100, 100), FOO1: resp(10, 10, 10)}
    error, session_id, sent = context2.update_and_generate_response_data(resp_data2)
    assert error is Errors.NONE and session_id != INVALID_SESSION_ID and sent == resp_data2
    # an invalid epoch
    context3 = manager.new_context(FetchMetadata(session_id, 5), req_data2, [], False)
    assert isinstance(context3, SessionErrorContext)
    assert context3.update_and_generate_response_data(resp_data2) == (Errors.INVALID_FETCH_SESSION_EPOCH,
                                                                      INVALID_SESSION_ID, {})
    # a session id that does not exist
    context4 = manager.new_context(FetchMetadata(session_id + 1, 1), req_data2, [], False)
    assert isinstance(context4, SessionErrorContext)
    assert context4.update_and_generate_response_data(resp_data2)[0] is Errors.FETCH_SESSION_ID_NOT_FOUND
    # continue the session: every partition is read, none has news
    context5 = manager.new_context(FetchMetadata(session_id, 1), {}, [], False)
    assert isinstance(context5, IncrementalFetchContext)
    seen = []
    context5.foreach_partition(lambda tp, data: seen.append((tp, data)))
    assert seen == list(req_data2.items())
    assert context5.get_fetch_offset(FOO1) == 10
    assert context5.update_and_generate_response_data(resp_data2) == (Errors.NONE, session_id, {})
    # an invalid epoch again
    context6 = manager.new_context(FetchMetadata(session_id, 5), req_data2, [], False)
    assert context6.update_and_generate_response_data(resp_data2)[0] is Errors.INVALID_FETCH_SESSION_EPOCH
    # a throttled response in the session
    context7 = manager.new_context(FetchMetadata(session_id, 2), {}, [], False)
    assert context7.get_throttled_response(100) == (Errors.NONE, session_id, {})
    # FINAL_EPOCH closes the session and creates none
    context8 = manager.new_context(FetchMetadata(session_id, FINAL_EPOCH), {BAR0: req(0), BAR1: req(10)}, [],
                                   False)
    assert isinstance(context8, SessionlessFetchContext)
    assert cache.size() == 0
    error, session_id8, _ = context8.update_and_generate_response_data({BAR0: resp(100, 100, 100),
                                                                       BAR1: resp(100, 100, 100)})
    assert (error, session_id8) == (Errors.NONE, INVALID_SESSION_ID)


def test_incremental_fetch_session():
    manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    session_id, sent = full_session(manager, {FOO0: req(0), FOO1: req(10)},
                                    {FOO0: resp(100, 100, 100), FOO1: resp(10, 10, 10)})
    assert len(sent) == 2
    # an incremental fetch that forgets foo-0 and adds bar-0
    context2 = manager.new_context(FetchMetadata(session_id, 1), {BAR0: req(15, max_bytes=0)}, [FOO0], False)
    assert isinstance(context2, IncrementalFetchContext)
    seen = []
    context2.foreach_partition(lambda tp, data: seen.append(tp))
    assert seen == [FOO1, BAR0]
    assert context2.get_fetch_offset(FOO0) is None
    assert (context2.get_fetch_offset(FOO1), context2.get_fetch_offset(BAR0)) == (10, 15)
    assert context2.get_fetch_offset(TopicPartition("bar", 2)) is None
    error, session_id2, sent2 = context2.update_and_generate_response_data(
        {FOO1: resp(10, 10, 10), BAR0: resp(10, 10, 10)})
    # foo-1 has no news; bar-0 is new to the session
    assert (error, session_id2, list(sent2)) == (Errors.NONE, session_id, [BAR0])


def test_zero_size_fetch_session():
    cache = FetchSessionCache(10, 1000)
    manager = FetchManager(MockTime(), cache)
    session_id, _ = full_session(manager, {FOO0: req(0), FOO1: req(10)},
                                 {FOO0: resp(100, 100, 100), FOO1: resp(10, 10, 10)})
    # forgetting every partition closes the session
    context2 = manager.new_context(FetchMetadata(session_id, 1), {}, [FOO0, FOO1], False)
    assert isinstance(context2, SessionlessFetchContext)
    assert context2.update_and_generate_response_data({}) == (Errors.NONE, INVALID_SESSION_ID, {})
    assert cache.size() == 0


def test_incremental_response_carries_only_partitions_with_news():
    manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    parts = [TopicPartition("t", i) for i in range(5)]
    session_id, _ = full_session(manager, {tp: req(0) for tp in parts}, {tp: resp(0, 0, 0) for tp in parts})
    context = manager.new_context(FetchMetadata(session_id, 1), {}, [], False)
    updates = {tp: resp(0, 0, 0) for tp in parts}
    updates[parts[1]] = resp(3, 0, 0)                      # a new high watermark
    updates[parts[2]] = resp(0, 0, 0, records=b"x" * 10)  # new records
    updates[parts[3]] = resp(0, 0, 2)                      # a new log start offset
    updates[parts[4]] = resp(-1, -1, -1, error=Errors.NOT_LEADER_FOR_PARTITION)
    _, _, sent = context.update_and_generate_response_data(updates)
    assert list(sent) == parts[1:]
    # answered partitions move to the end of the session, so the others come first next time
    assert list(manager.cache.get(session_id).partition_map) == parts
    # the next fetch: nothing changed but the partition in error is sent again once it recovers
    context = manager.new_context(FetchMetadata(session_id, 2), {}, [], False)
    _, _, sent = context.update_and_generate_response_data(
        {tp: resp(3, 0, 0) if tp == parts[1] else resp(0, 0, 2) if tp == parts[3] else resp(0, 0, 0)
         for tp in parts})
    assert list(sent) == [parts[4]]
    # a duplicate request (same epoch again) finds the session at the next epoch already
    dup = manager.new_context(FetchMetadata(session_id, 2), {}, [], False)
    assert isinstance(dup, SessionErrorContext) and dup.error is Errors.INVALID_FETCH_SESSION_EPOCH


def test_answered_partitions_move_to_the_end_of_the_session():
    manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    parts = [TopicPartition("t", i) for i in range(5)]
    session_id, _ = full_session(manager, {tp: req(0) for tp in parts}, {tp: resp(0, 0, 0) for tp in parts})
    context = manager.new_context(FetchMetadata(session_id, 1), {}, [], False)
    updates = {tp: resp(0, 0, 0, records=b"x" if tp.partition in (1, 3) else b"") for tp in parts}
    assert list(context.update_and_generate_response_data(updates)[2]) == [parts[1], parts[3]]
    order = []
    manager.new_context(FetchMetadata(session_id, 2), {}, [], False).foreach_partition(
        lambda tp, _: order.append(tp.partition))
    assert order == [0, 2, 4, 1, 3]


def test_a_context_overtaken_by_a_later_request_answers_invalid_epoch():
    manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    session_id, _ = full_session(manager, {FOO0: req(0)}, {FOO0: resp(0, 0, 0)})
    first = manager.new_context(FetchMetadata(session_id, 1), {}, [], False)
    second = manager.new_context(FetchMetadata(session_id, 2), {}, [], False)
    assert first.update_and_generate_response_data({FOO0: resp(1, 1, 0)}) == (
        Errors.INVALID_FETCH_SESSION_EPOCH, session_id, {})
    assert first.get_throttled_response(5)[0] is Errors.INVALID_FETCH_SESSION_EPOCH
    assert second.update_and_generate_response_data({FOO0: resp(1, 1, 0)})[2] == {FOO0: resp(1, 1, 0)}


def test_updated_partitions_replace_the_request_parameters():
    manager = FetchManager(MockTime(), FetchSessionCache(10, 1000))
    session_id, _ = full_session(manager, {FOO0: req(0), FOO1: req(10)}, {FOO0: resp(5, 5, 0), FOO1: resp(10, 10, 0)})
    context = manager.new_context(FetchMetadata(session_id, 1), {FOO0: req(5, max_bytes=7)}, [], False)
    seen = {}
    context.foreach_partition(lambda tp, data: seen.__setitem__(tp, (data.fetch_offset, data.partition_max_bytes)))
    assert seen == {FOO0: (5, 7), FOO1: (10, 100)}


def test_in_use_sessions_are_not_stale():
    """Kafka 2.5 (KAFKA-9137): an incremental fetch refreshes the session's last use."""
    time = MockTime()
    cache = FetchSessionCache(1, 1000)
    manager = FetchManager(time, cache)
    session_id, _ = full_session(manager, {FOO0: req(0)}, {FOO0: resp(0, 0, 0)})
    for epoch in range(1, 4):
        time.sleep(900)
        manager.new_context(FetchMetadata(session_id, epoch), {}, [], False)
    # not used for 900 ms only: a smaller newcomer does not evict it
    assert cache.maybe_create_session(time.milliseconds(), False, 0, dummy_create(0)) == INVALID_SESSION_ID
    assert cache.get(session_id) is not None


def test_sessions_off_with_zero_slots():
    manager = FetchManager(MockTime(), FetchSessionCache(0, 1000))
    context = manager.new_context(INITIAL, {FOO0: req(0)}, [], False)
    assert context.update_and_generate_response_data({FOO0: resp(0, 0, 0)})[1] == INVALID_SESSION_ID


def test_build_fetch_response_groups_partitions_by_topic():
    response = build_fetch_response(Errors.NONE, 7, {FOO0: resp(1, 1, 0), BAR0: resp(2, 2, 0, records=b"abc"),
                                                     FOO1: resp(3, 3, 0, error=Errors.NOT_LEADER_FOR_PARTITION)})
    assert (response.session_id, response.error_code) == (7, 0)
    assert [(t.topic, [(p.partition_index, p.high_watermark, p.error_code, p.records) for p in t.partitions])
            for t in response.responses] == [("foo", [(0, 1, 0, b""), (1, 3, 6, b"")]), ("bar", [(0, 2, 0, b"abc")])]
