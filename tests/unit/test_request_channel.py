"""RequestChannelTest: the hand-off between network and handler threads (S4).

One request queue bounded by ``queued.max.requests`` shared by all handlers (a full queue blocks the
Processor that offers a request: back-pressure, nothing dropped), one response queue per Processor.
"""
from __future__ import annotations

import threading

import pytest

from kafkalite.network.request_trace import NO_TRACE
from kafkalite.network.request_channel import (SHUTDOWN_REQUEST, CloseConnectionAction, NoOpAction, RequestChannel,
                                               Response, SendAction, ShutdownRequest)

pytestmark = pytest.mark.timeout(30)


class FakeProcessor:
    def __init__(self, pid):
        self.id = pid
        self.responses = []
        self.cleared = False

    def enqueue_response(self, response):
        self.responses.append(response)

    def clear_response_queue(self):
        self.cleared = True
        self.responses.clear()


class FakeRequest:
    trace = NO_TRACE

    def __init__(self, processor, name=""):
        self.processor = processor
        self.name = name


def test_full_queue_blocks_send_request_until_a_handler_takes_one():
    channel = RequestChannel(2)
    channel.send_request(FakeRequest(0, "r1"))
    channel.send_request(FakeRequest(0, "r2"))
    assert channel.request_queue_size() == 2

    done = threading.Event()

    def producer():
        channel.send_request(FakeRequest(0, "r3"))
        done.set()

    t = threading.Thread(target=producer, daemon=True)
    t.start()
    assert not done.wait(0.3), "send_request returned although the queue was full"
    assert channel.request_queue_size() == 2

    assert channel.receive_request(1000).name == "r1"
    assert done.wait(5), "send_request stayed blocked after a slot was freed"
    t.join(5)
    assert [channel.receive_request(1000).name for _ in range(2)] == ["r2", "r3"]   # FIFO, nothing lost


def test_receive_request_times_out_with_none():
    channel = RequestChannel(1)
    assert channel.receive_request(50) is None


def test_send_response_routes_to_the_owning_processor():
    channel = RequestChannel(10)
    p0, p1, p2 = FakeProcessor(0), FakeProcessor(1), FakeProcessor(2)
    for p in (p0, p1, p2):
        channel.add_processor(p)
    r1 = Response(FakeRequest(1), b"send", SendAction)
    r2 = Response(FakeRequest(2), None, NoOpAction)
    r1b = Response(FakeRequest(1), None, CloseConnectionAction)
    for r in (r1, r2, r1b):
        channel.send_response(r)
    assert p0.responses == []
    assert p1.responses == [r1, r1b]
    assert p2.responses == [r2]
    assert r1.processor == 1


def test_response_for_a_removed_processor_is_dropped():
    channel = RequestChannel(10)
    p = FakeProcessor(3)
    channel.add_processor(p)
    channel.remove_processor(3)
    channel.send_response(Response(FakeRequest(3), None, NoOpAction))
    assert p.responses == []


def test_add_processor_twice_raises():
    channel = RequestChannel(10)
    channel.add_processor(FakeProcessor(0))
    with pytest.raises(RuntimeError, match="processorId 0"):
        channel.add_processor(FakeProcessor(0))


def test_send_shutdown_request():
    channel = RequestChannel(10)
    channel.send_request(FakeRequest(0, "before"))
    channel.send_shutdown_request()
    assert channel.receive_request(1000).name == "before"
    req = channel.receive_request(1000)
    assert req is SHUTDOWN_REQUEST and isinstance(req, ShutdownRequest)


def test_shutdown_request_wakes_a_waiting_handler():
    channel = RequestChannel(10)
    got = []
    t = threading.Thread(target=lambda: got.append(channel.receive_request()), daemon=True)
    t.start()
    channel.send_shutdown_request()
    t.join(5)
    assert not t.is_alive() and isinstance(got[0], ShutdownRequest)


def test_clear_empties_requests_and_every_response_queue():
    channel = RequestChannel(10)
    p0, p1 = FakeProcessor(0), FakeProcessor(1)
    channel.add_processor(p0)
    channel.add_processor(p1)
    channel.send_request(FakeRequest(0))
    channel.send_response(Response(FakeRequest(1), None, NoOpAction))
    channel.clear()
    assert channel.request_queue_size() == 0
    assert p0.cleared and p1.cleared and p1.responses == []
