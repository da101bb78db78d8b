"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/KafkaChannel.java

Classes: KafkaChannel, ChannelMuteState, ChannelMuteEvent, ChannelState.

A KafkaChannel is one connection as the Selector sees it: a transport, the receive being read and
the send being written. Its mute state machine is what keeps a broker connection to one request in
flight (S13–S16): the Processor mutes the channel when a request is read (no OP_READ), and unmutes
it only after the response has been sent. The transitions are a table, checked on every event.
A channel is ready once its transport is ready (the TLS handshake is done, SslTransportLayer) and its
authenticator is complete; ``prepare()`` drives both, one non-blocking step per poll, and ``principal()``
is who the authenticator says the peer is (User:ANONYMOUS without an authenticator).
The THROTTLE_* events come from client quotas (KIP-219): a throttled channel stays muted after its response
is sent until THROTTLE_ENDED (server/client_quota_manager.py's ThrottledChannel).
Re-authentication (KIP-368): a SaslHandshake on a ready SASL channel whose session has a lifetime hands the channel
to a new authenticator (``maybe_begin_server_reauthentication``); the channel is not ready until it completes.
"""
from __future__ import annotations

import enum

from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.network.network_receive import NetworkReceive
from kafkalite.network.transport_layer import OP_READ, OP_WRITE
from kafkalite.security.auth.kafka_principal import KafkaPrincipal


class ChannelMuteState(enum.Enum):
    """Kafka: KafkaChannel.ChannelMuteState."""

    __hash__ = object.__hash__   # members are singletons; Enum's own __hash__ is Python, run per mute event

    NOT_MUTED = 0
    MUTED = 1
    MUTED_AND_RESPONSE_PENDING = 2
    MUTED_AND_THROTTLED = 3
    MUTED_AND_THROTTLED_AND_RESPONSE_PENDING = 4


class ChannelMuteEvent(enum.Enum):
    """Kafka: KafkaChannel.ChannelMuteEvent."""

    __hash__ = object.__hash__   # as ChannelMuteState's

    REQUEST_RECEIVED = 0
    RESPONSE_SENT = 1
    THROTTLE_STARTED = 2
    THROTTLE_ENDED = 3


_S, _E = ChannelMuteState, ChannelMuteEvent
# (state, event) -> next state; anything else is an illegal transition.
MUTE_TRANSITIONS = {
    (_S.MUTED, _E.REQUEST_RECEIVED): _S.MUTED_AND_RESPONSE_PENDING,
    (_S.MUTED_AND_RESPONSE_PENDING, _E.RESPONSE_SENT): _S.MUTED,
    (_S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING, _E.RESPONSE_SENT): _S.MUTED_AND_THROTTLED,
    (_S.MUTED_AND_RESPONSE_PENDING, _E.THROTTLE_STARTED): _S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING,
    (_S.MUTED_AND_THROTTLED, _E.THROTTLE_ENDED): _S.MUTED,
    (_S.MUTED_AND_THROTTLED_AND_RESPONSE_PENDING, _E.THROTTLE_ENDED): _S.MUTED_AND_RESPONSE_PENDING,
}


class ChannelState(enum.Enum):
    """Kafka: ChannelState.State -- why a channel ended up in ``Selector.disconnected``."""

    NOT_CONNECTED = 0
    AUTHENTICATE = 1
    READY = 2
    EXPIRED = 3
    FAILED_SEND = 4
    AUTHENTICATION_FAILED = 5
    LOCAL_CLOSE = 6


class AuthenticationException(Exception):
    """Kafka: org.apache.kafka.common.errors.AuthenticationException -- an SSL handshake or SASL failure."""


class SslAuthenticationException(AuthenticationException):
    """Kafka: org.apache.kafka.common.errors.SslAuthenticationException."""


class DelayedResponseAuthenticationException(AuthenticationException):
    """Kafka: org.apache.kafka.common.network.DelayedResponseAuthenticationException -- the authenticator
    failed; its failure response goes out, and the channel closes, after the Selector's delay (KIP-306)."""


class KafkaChannel:
    """Kafka: KafkaChannel."""

    def __init__(self, channel_id: str, transport, max_receive_size: int = NetworkReceive.UNLIMITED,
                 memory_pool: MemoryPool = MemoryPool.NONE, authenticator_creator=None):
        self.id = channel_id
        self.transport_layer = transport
        self.authenticator_creator = authenticator_creator
        self.authenticator = authenticator_creator() if authenticator_creator is not None else None
        self.authentication_exception: Exception | None = None
        self.successful_authentications = 0
        self._ready = False   # cached: ready() is on the hot path; re-authentication clears it
        self.max_receive_size = max_receive_size
        self.memory_pool = memory_pool
        self.receive: NetworkReceive | None = None
        self.send = None
        self.disconnected = False
        self.mute_state = ChannelMuteState.NOT_MUTED
        self.state = ChannelState.NOT_CONNECTED
        self.last_used_nanos = 0

    # Kafka: KafkaChannel.ready -- transport ready (handshake done) and authentication complete.
    def ready(self) -> bool:
        if self._ready:
            return True
        self._ready = self.transport_layer.ready() and (self.authenticator is None or self.authenticator.complete())
        return self._ready

    # Kafka: KafkaChannel.principal -- who the authenticator says the peer is.
    def principal(self):
        if self.authenticator is None:
            return KafkaPrincipal.ANONYMOUS
        return self.authenticator.principal()

    # Kafka: KafkaChannel.prepare -- one step of the TLS handshake, then of authentication.
    def prepare(self) -> None:
        authenticating = False
        try:
            if not self.transport_layer.ready():
                self.transport_layer.handshake()
            if self.transport_layer.ready() and self.authenticator is not None \
                    and not self.authenticator.complete():
                authenticating = True
                self.authenticator.authenticate()
        except AuthenticationException as e:
            self.state = ChannelState.AUTHENTICATION_FAILED
            self.authentication_exception = e
            if authenticating:
                self.delay_close_on_authentication_failure()
                raise DelayedResponseAuthenticationException(str(e)) from e
            raise
        if self.ready():
            self.successful_authentications += 1
            self.state = ChannelState.READY

    # Kafka: KafkaChannel.delayCloseOnAuthenticationFailure -- neither read nor write until the close.
    def delay_close_on_authentication_failure(self) -> None:
        self.transport_layer.remove_interest_ops(OP_WRITE | OP_READ)

    # Kafka: KafkaChannel.completeCloseOnAuthenticationFailure -- send the authenticator's failure response.
    def complete_close_on_authentication_failure(self) -> None:
        self.transport_layer.add_interest_ops(OP_WRITE)
        if self.authenticator is not None:
            self.authenticator.handle_authentication_failure()

    MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS = 1_000_000_000

    # Kafka: KafkaChannel.maybeBeginServerReauthentication (KIP-368) -- a SaslHandshake on a ready SASL channel
    # whose session has a lifetime starts re-authentication: a new authenticator takes over (the channel is
    # not ready until it completes) and answers that handshake. False: the request goes on to KafkaApis.
    def maybe_begin_server_reauthentication(self, sasl_handshake_bytes: bytes, now_nanos: int) -> bool:
        if not self.ready():
            raise RuntimeError('KafkaChannel should be "ready" when processing SASL Handshake for potential '
                               're-authentication')
        expiry = getattr(self.authenticator, "server_session_expiration_time_nanos", None)
        if expiry is None or expiry() is None:
            return False   # re-authentication is not enabled (no session lifetime)
        last = getattr(self, "last_reauthentication_start_nanos", 0)
        if last and now_nanos - last < self.MIN_REAUTH_INTERVAL_ONE_SECOND_NANOS:
            return False
        self.last_reauthentication_start_nanos = now_nanos
        # Kafka: KafkaChannel.swapAuthenticatorsAndBeginReauthentication
        previous, self.authenticator = self.authenticator, self.authenticator_creator()
        self._ready = False
        self.authenticator.reauthenticate(previous, sasl_handshake_bytes, now_nanos)
        return True

    # Kafka: KafkaChannel.serverAuthenticationSessionExpired (KIP-368)
    def server_authentication_session_expired(self, now_nanos: int) -> bool:
        expiry = getattr(self.authenticator, "server_session_expiration_time_nanos", None)
        expiry = expiry() if expiry is not None else None
        return expiry is not None and now_nanos - expiry > 0

    # Kafka: KafkaChannel.finishConnect
    def finish_connect(self) -> bool:
        connected = self.transport_layer.finish_connect()
        if connected:
            self.state = ChannelState.READY if self.ready() else ChannelState.AUTHENTICATE
        return connected

    # Kafka: KafkaChannel.hasBytesBuffered -- the transport holds decrypted bytes not yet read.
    def has_bytes_buffered(self) -> bool:
        return self.transport_layer.has_bytes_buffered()

    def is_connected(self) -> bool:
        return self.transport_layer.is_connected()

    # Kafka: KafkaChannel.mute -- stop reading: remove OP_READ.
    def mute(self) -> None:
        if self.mute_state is ChannelMuteState.NOT_MUTED:
            if not self.disconnected:
                self.transport_layer.remove_interest_ops(OP_READ)
            self.mute_state = ChannelMuteState.MUTED

    # Kafka: KafkaChannel.maybeUnmute -- only a plain MUTED channel may read again.
    def maybe_unmute(self) -> bool:
        if self.mute_state is ChannelMuteState.MUTED:
            if not self.disconnected:
                self.transport_layer.add_interest_ops(OP_READ)
            self.mute_state = ChannelMuteState.NOT_MUTED
        return self.mute_state is ChannelMuteState.NOT_MUTED

    # Kafka: KafkaChannel.handleChannelMuteEvent
    def handle_channel_mute_event(self, event: ChannelMuteEvent) -> None:
        nxt = MUTE_TRANSITIONS.get((self.mute_state, event))
        if nxt is None:
            raise RuntimeError(f"Cannot transition from {self.mute_state.name} for {event.name}")
        self.mute_state = nxt

    def is_muted(self) -> bool:
        return self.mute_state is not ChannelMuteState.NOT_MUTED

    # Kafka: KafkaChannel.setSend -- one send at a time; writing starts at the next poll.
    def set_send(self, send) -> None:
        if self.send is not None:
            raise RuntimeError("Attempt to begin a send operation with prior send operation still in progress, "
                               f"connection id is {self.id}")
        self.send = send
        self.transport_layer.add_interest_ops(OP_WRITE)

    # No Kafka counterpart (Selector.send's write_at_once): write ``send`` now; True if it went out whole,
    # else it stays this channel's send with OP_WRITE, as set_send leaves it. Raises what the write raises
    # (the send is then not set).
    def write_at_once(self, send) -> bool:
        self.send = send
        try:
            send.write_to(self.transport_layer)
        except BaseException:
            self.send = None
            raise
        if send.completed():
            self.send = None
            return True
        self.transport_layer.add_interest_ops(OP_WRITE)
        return False

    # Kafka: KafkaChannel.read -- returns a whole receive, or None if the frame is not complete yet.
    def read(self) -> NetworkReceive | None:
        if self.receive is None:
            self.receive = NetworkReceive(self.max_receive_size, self.id, self.memory_pool)
        self.receive.read_from(self.transport_layer)
        if self.receive.complete():
            result, self.receive = self.receive, None
            return result
        if self.receive.required_memory_amount_known() and not self.receive.memory_allocated() \
                and self.is_in_mutable_state():
            self.mute()   # the pool must be out of memory: stop reading until the Selector unmutes us
        return None

    # Kafka: KafkaChannel.isInMutableState -- only a channel waiting for memory for a receive may be
    # muted (and unmuted) for memory's sake.
    def is_in_mutable_state(self) -> bool:
        if self.receive is None or self.receive.memory_allocated():
            return False
        return self.transport_layer.ready()

    def has_bytes_pending(self) -> bool:
        """True while a frame has been started but not finished (a disconnect now is mid-frame)."""
        return self.receive is not None and (self.receive._size_read > 0)

    # Kafka: KafkaChannel.write -- returns the send once it is complete, and drops OP_WRITE.
    def write(self):
        send = self.send
        if send is None:
            return None
        send.write_to(self.transport_layer)
        if send.completed():
            self.transport_layer.remove_interest_ops(OP_WRITE)
            self.send = None
            return send
        return None

    def has_send(self) -> bool:
        return self.send is not None

    def socket_description(self) -> str:
        return self.transport_layer.socket_description()

    # Kafka: KafkaChannel.disconnect -- stop selecting on the socket, keep it open for now.
    def disconnect(self) -> None:
        self.disconnected = True
        self.transport_layer.disconnect()

    # Kafka: KafkaChannel.close
    def close(self) -> None:
        self.disconnected = True
        self.transport_layer.close()
        if self.authenticator is not None:
            self.authenticator.close()
        # Kafka: Utils.closeAll(transportLayer, authenticator, receive) -- a half-read frame gives its
        # buffer back to the pool now; and no reference cycle (channel <-> transport attachment) keeps a
        # closed channel's buffers alive until the garbage collector happens to run.
        if self.receive is not None:
            self.receive.release()
            self.receive = None
        self.send = None
        self.transport_layer.attachment = None

    def __repr__(self) -> str:
        return f"KafkaChannel(id={self.id}, mute_state={self.mute_state.name})"
