"""KafkaChannelTest: the mute state machine of a broker connection (S13-S16) and the one-send-at-a-time rule (S15).

Kafka 2.4 has no KafkaChannelTest of its own for this table (it is exercised through SelectorTest and
SocketServerTest); the cases below are the table of ``KafkaChannel.handleChannelMuteEvent``, ``mute`` and
``maybeUnmute`` written out, every valid transition and every invalid one.
"""
from __future__ import annotations

import itertools

import pytest

from kafkalite.network.kafka_channel import MUTE_TRANSITIONS, ChannelMuteEvent, ChannelMuteState, KafkaChannel
from kafkalite.network.transport_layer import OP_READ, OP_WRITE

S, E = ChannelMuteState, ChannelMuteEvent


class FakeTransport:
    """Records the interest set the channel asks for; no socket."""

    def __init__(self):
        self.interest_ops = OP_READ
        self.closed = False

    def add_interest_ops(self, ops):
        self.interest_ops |= ops

    def remove_interest_ops(self, ops):
        self.interest_ops &= ~ops

    def ready(self):
        return True

    def close(self):
        self.closed = True


def channel_in(state: ChannelMuteState) -> tuple[KafkaChannel, FakeTransport]:
    t = FakeTransport()
    ch = KafkaChannel("c1", t)
    ch.mute_state = state
    return ch, t


# Kafka: KafkaChannel.handleChannelMuteEvent -- the valid transitions, written out independently of MUTE_TRANSITIONS.
VALID = {
    (S.MUTED, E.REQUEST_RECEIVED): S.MUTED_AND_RESPONSE_PENDING,
    (S.MUTED_AND_RESPONSE_PENDING, E.RESPONSE_SENT): S.MUTED,
    (S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING, E.RESPONSE_SENT): S.MUTED_AND_THROTTLED,
    (S.MUTED_AND_RESPONSE_PENDING, E.THROTTLE_STARTED): S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING,
    (S.MUTED_AND_THROTTLED, E.THROTTLE_ENDED): S.MUTED,
    (S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING, E.THROTTLE_ENDED): S.MUTED_AND_RESPONSE_PENDING,
}
INVALID = [pair for pair in itertools.product(S, E) if pair not in VALID]


def test_table_is_kafkas():
    assert MUTE_TRANSITIONS == VALID
    assert len(INVALID) == len(S) * len(E) - 6


@pytest.mark.parametrize("state,event", list(VALID), ids=lambda x: x.name)
def test_valid_transition(state, event):
    ch, t = channel_in(state)
    ch.handle_channel_mute_event(event)
    assert ch.mute_state is VALID[(state, event)]
    assert t.interest_ops == OP_READ   # events move the state only; mute()/maybe_unmute() touch OP_READ


@pytest.mark.parametrize("state,event", INVALID, ids=lambda x: x.name)
def test_invalid_transition_raises_and_keeps_state(state, event):
    ch, _ = channel_in(state)
    with pytest.raises(RuntimeError, match=f"Cannot transition from {state.name} for {event.name}"):
        ch.handle_channel_mute_event(event)
    assert ch.mute_state is state


def test_mute_removes_op_read_only_when_not_muted():
    ch, t = channel_in(S.NOT_MUTED)
    t.interest_ops = OP_READ | OP_WRITE
    ch.mute()
    assert ch.mute_state is S.MUTED and ch.is_muted()
    assert t.interest_ops == OP_WRITE
    # muting again, or muting in any other muted state, changes nothing
    for state in (S.MUTED, S.MUTED_AND_RESPONSE_PENDING, S.MUTED_AND_THROTTLED,
                  S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING):
        ch.mute_state = state
        t.interest_ops = OP_WRITE
        ch.mute()
        assert ch.mute_state is state and t.interest_ops == OP_WRITE


def test_maybe_unmute_only_from_plain_muted():
    ch, t = channel_in(S.MUTED)
    t.interest_ops = 0
    assert ch.maybe_unmute() is True
    assert ch.mute_state is S.NOT_MUTED and not ch.is_muted()
    assert t.interest_ops == OP_READ
    assert ch.maybe_unmute() is True   # already unmuted: stays so
    for state in (S.MUTED_AND_RESPONSE_PENDING, S.MUTED_AND_THROTTLED, S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING):
        ch, t = channel_in(state)
        t.interest_ops = 0
        assert ch.maybe_unmute() is False
        assert ch.mute_state is state and t.interest_ops == 0


def test_mute_and_unmute_of_a_disconnected_channel_leave_the_transport_alone():
    ch, t = channel_in(S.NOT_MUTED)
    ch.disconnected = True
    t.interest_ops = OP_READ
    ch.mute()
    assert ch.mute_state is S.MUTED and t.interest_ops == OP_READ
    t.interest_ops = 0
    assert ch.maybe_unmute() is True
    assert t.interest_ops == 0


def test_request_response_cycle_as_the_processor_drives_it():
    ch, t = channel_in(S.NOT_MUTED)
    ch.mute()                                          # processCompletedReceives: selector.mute
    ch.handle_channel_mute_event(E.REQUEST_RECEIVED)
    assert ch.mute_state is S.MUTED_AND_RESPONSE_PENDING
    assert ch.maybe_unmute() is False                  # an unmute before the response is sent does nothing
    assert t.interest_ops & OP_READ == 0
    ch.handle_channel_mute_event(E.RESPONSE_SENT)      # processCompletedSends
    assert ch.maybe_unmute() is True
    assert t.interest_ops & OP_READ


def test_set_send_twice_raises():
    ch, t = channel_in(S.NOT_MUTED)
    first, second = object(), object()
    ch.set_send(first)
    assert ch.has_send() and t.interest_ops & OP_WRITE
    with pytest.raises(RuntimeError, match="prior send operation still in progress, connection id is c1"):
        ch.set_send(second)
    assert ch.send is first


def test_write_drops_op_write_when_the_send_completes():
    class TwoStepSend:
        def __init__(self):
            self.calls = 0

        def write_to(self, transport):
            self.calls += 1
            return 1

        def completed(self):
            return self.calls >= 2

    ch, t = channel_in(S.NOT_MUTED)
    send = TwoStepSend()
    ch.set_send(send)
    assert ch.write() is None and t.interest_ops & OP_WRITE
    assert ch.write() is send
    assert t.interest_ops & OP_WRITE == 0 and not ch.has_send()
    ch.set_send(object())   # a new send is allowed once the previous one completed


def test_bytes_pending_only_while_a_frame_is_half_read():
    # a disconnect with bytes pending is one in the middle of a frame (Kafka logs it as such)
    from kafkalite.network.network_receive import NetworkReceive
    ch, _ = channel_in(S.NOT_MUTED)
    assert not ch.has_bytes_pending()
    ch.receive = NetworkReceive(1 << 20, "c1")
    assert not ch.has_bytes_pending()
    ch.receive._size_read = 2
    assert ch.has_bytes_pending()
