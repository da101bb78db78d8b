"""Kafka 2.4's FetchSessionHandlerTest (clients/src/test/java/org/apache/kafka/clients/FetchSessionHandlerTest.java):
the fetcher's side of a fetch session -- what each request sends and forgets, and how responses and errors move
the session id and epoch on."""
from __future__ import annotations

import pytest

from kafkalite.clients.fetch_session_handler import FetchSessionHandler
from kafkalite.common.topic_partition import TopicPartition
from kafkalite.protocol.errors import Errors
from kafkalite.protocol.fetch_metadata import INITIAL_EPOCH, INVALID_SESSION_ID
from kafkalite.protocol.messages.fetch import FetchPartition, FetchResponse, FetchableTopicResponse, PartitionData

FOO0, FOO1, BAR0 = TopicPartition("foo", 0), TopicPartition("foo", 1), TopicPartition("bar", 0)


def req(tp, fetch_offset, log_start_offset, max_bytes):
    return FetchPartition(partition=tp.partition, fetch_offset=fetch_offset, log_start_offset=log_start_offset,
                          partition_max_bytes=max_bytes)


def response(session_id, *tps, error=Errors.NONE):
    by_topic = {}
    for tp in tps:
        by_topic.setdefault(tp.topic, []).append(PartitionData(partition_index=tp.partition, error_code=0,
                                                               high_watermark=10, last_stable_offset=10,
                                                               log_start_offset=20, records=b""))
    return FetchResponse(error_code=error.code, session_id=session_id,
                         responses=[FetchableTopicResponse(topic=t, partitions=ps) for t, ps in by_topic.items()])


def build(handler, *entries):
    builder = handler.new_builder()
    for tp, fetch_offset, log_start_offset, max_bytes in entries:
        builder.add(tp, req(tp, fetch_offset, log_start_offset, max_bytes))
    return builder.build()


def offsets(parts):
    return {tp: (p.fetch_offset, p.log_start_offset, p.partition_max_bytes) for tp, p in parts.items()}


def test_sessionless():
    handler = FetchSessionHandler(1)
    data = build(handler, (FOO0, 0, 100, 200), (FOO1, 10, 110, 210))
    assert offsets(data.to_send) == offsets(data.session_partitions) == {FOO0: (0, 100, 200), FOO1: (10, 110, 210)}
    assert (data.metadata.session_id, data.metadata.epoch) == (INVALID_SESSION_ID, INITIAL_EPOCH)
    assert handler.handle_response(response(INVALID_SESSION_ID, FOO0, FOO1))
    data2 = build(handler, (FOO0, 0, 100, 200))
    assert (data2.metadata.session_id, data2.metadata.epoch) == (INVALID_SESSION_ID, INITIAL_EPOCH)
    assert offsets(data2.to_send) == {FOO0: (0, 100, 200)}


def test_incrementals():
    handler = FetchSessionHandler(1)
    data = build(handler, (FOO0, 0, 100, 200), (FOO1, 10, 110, 210))
    assert data.metadata.is_full
    assert handler.handle_response(response(123, FOO0, FOO1))
    # an incremental fetch which adds one partition and modifies another
    data2 = build(handler, (FOO0, 0, 100, 200), (FOO1, 10, 120, 210), (BAR0, 20, 200, 200))
    assert not data2.metadata.is_full and (data2.metadata.session_id, data2.metadata.epoch) == (123, 1)
    assert offsets(data2.session_partitions) == {FOO0: (0, 100, 200), FOO1: (10, 120, 210), BAR0: (20, 200, 200)}
    assert list(offsets(data2.to_send).items()) == [(BAR0, (20, 200, 200)), (FOO1, (10, 120, 210))]
    assert handler.handle_response(response(123, FOO1))
    assert handler.next_metadata.epoch == 2
    # an INVALID_FETCH_SESSION_EPOCH answer makes the next request a full one that closes the session
    assert not handler.handle_response(response(INVALID_SESSION_ID, error=Errors.INVALID_FETCH_SESSION_EPOCH))
    data4 = build(handler, (FOO0, 0, 100, 200), (FOO1, 10, 120, 210), (BAR0, 20, 200, 200))
    assert data4.metadata.is_full and (data4.metadata.session_id, data4.metadata.epoch) == (123, INITIAL_EPOCH)
    assert offsets(data4.to_send) == offsets(data4.session_partitions) == offsets(data2.session_partitions)


def test_double_build():
    handler = FetchSessionHandler(1)
    builder = handler.new_builder()
    builder.add(FOO0, req(FOO0, 0, 100, 200))
    builder.build()
    with pytest.raises(Exception):
        builder.build()


def test_incremental_partition_removal():
    handler = FetchSessionHandler(1)
    data = build(handler, (FOO0, 0, 100, 200), (FOO1, 10, 110, 210), (BAR0, 20, 120, 220))
    assert data.metadata.is_full
    assert handler.handle_response(response(123, FOO0, FOO1, BAR0))
    # an incremental fetch request which removes two partitions
    data2 = build(handler, (FOO1, 10, 110, 210))
    assert not data2.metadata.is_full and (data2.metadata.session_id, data2.metadata.epoch) == (123, 1)
    assert offsets(data2.session_partitions) == {FOO1: (10, 110, 210)}
    assert data2.to_send == {} and data2.to_forget == [FOO0, BAR0]
    # the broker closes the session: the next request is a full one again, without a session
    assert handler.handle_response(response(INVALID_SESSION_ID))
    data3 = build(handler, (FOO0, 0, 100, 200))
    assert data3.metadata.is_full and data3.metadata.session_id == INVALID_SESSION_ID


def test_session_id_not_found_and_send_errors_restart_the_session():
    handler = FetchSessionHandler(1)
    build(handler, (FOO0, 0, 100, 200))
    assert handler.handle_response(response(7, FOO0))
    build(handler, (FOO0, 0, 100, 200))
    assert not handler.handle_response(response(0, error=Errors.FETCH_SESSION_ID_NOT_FOUND))
    assert (handler.next_metadata.session_id, handler.next_metadata.epoch) == (INVALID_SESSION_ID, INITIAL_EPOCH)
    build(handler, (FOO0, 0, 100, 200))
    assert handler.handle_response(response(8, FOO0))
    handler.handle_error(ConnectionError("gone"))
    assert (handler.next_metadata.session_id, handler.next_metadata.epoch) == (8, INITIAL_EPOCH)


def test_responses_naming_the_wrong_partitions_are_refused():
    handler = FetchSessionHandler(1)
    build(handler, (FOO0, 0, 100, 200), (FOO1, 0, 100, 200))
    assert not handler.handle_response(response(5, FOO0))            # a full response omitting foo-1
    build(handler, (FOO0, 0, 100, 200))
    assert handler.handle_response(response(5, FOO0))
    build(handler, (FOO0, 0, 100, 200))
    assert not handler.handle_response(response(5, BAR0))            # an incremental one naming bar-0
    assert (handler.next_metadata.session_id, handler.next_metadata.epoch) == (5, INITIAL_EPOCH)
