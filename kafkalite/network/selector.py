"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/network/Selector.java

Classes: Selector, CloseMode.

One Selector multiplexes many connections on one thread (it is not thread-safe, except
``wakeup``). Both the broker's Processors and the clients' NetworkClient use it (S48).

``poll(timeout)`` (S12):
1. ``clear()`` the results of the previous poll, and finish closing channels whose staged
   receives have all been handed out;
2. wait in ``select`` (no wait at all if an unmuted channel still has staged receives);
3. ``poll_selection_keys``: finish connects, read every complete frame a readable channel has into
   its ``staged_receives`` deque (a channel that still has staged receives is not read), and
   write pending sends;
4. ``add_to_completed_receives``: move **at most one** receive per unmuted channel into
   ``completed_receives``.
Step 4 is the ordering rule of the broker: the Processor mutes a channel as soon as it takes a
request from it, so the next staged request of that connection waits until the response is sent.

Channels come from the Selector's channel builder (PLAINTEXT unless told otherwise,
channel_builders.py). A channel that is connected but not ready (TLS handshake, SASL) is driven by
``channel.prepare()`` on each poll that selects it. A TLS channel may hold decrypted bytes that the socket
no longer shows as readable: such channels are remembered in ``keys_with_buffered_read`` and polled again
even if select reports nothing for them (without a wait while reads make progress), or their requests
would stall. kafkalite also skips the wait when such a channel is unmuted (its response was just
sent): Kafka waits for the next select there, which delays a pipelined request already decrypted.

Era notes: ``staged_receives`` exists up to Kafka 2.4; 2.5 (KAFKA-7639) reads one request at a time
instead. ``wakeup()`` is a socketpair registered for reading, as Python's selectors has no wakeup.
Omitted: metrics sensors, delayed close on authentication failure (failedAuthenticationDelayMs), re-authentication.
"""
from __future__ import annotations

import collections
import enum
import logging
import socket

from kafkalite.common.memory.memory_pool import MemoryPool
from kafkalite.network.kafka_channel import (AuthenticationException, ChannelState,
                                            DelayedResponseAuthenticationException, KafkaChannel)
from kafkalite.network.nio_selector import NioSelector
from kafkalite.network.network_receive import NetworkReceive
from kafkalite.network.plaintext_channel_builder import PlaintextChannelBuilder
from kafkalite.network.transport_layer import OP_READ, OP_WRITE
from kafkalite.utils.time import SYSTEM, Time

log = logging.getLogger("kafka.network.Selector")

_WAKEUP = object()   # attachment of the wakeup socket's registration


class CloseMode(enum.Enum):
    """Kafka: Selector.CloseMode -- GRACEFUL delivers staged receives first, then notifies."""

    GRACEFUL = (True, True)            # process outstanding staged receives, notify disconnect
    NOTIFY_ONLY = (False, True)        # discard staged receives, notify disconnect
    DISCARD_NO_NOTIFY = (False, False)  # discard staged receives, no notification

    def __init__(self, process_outstanding: bool, notify_disconnect: bool):
        self.process_outstanding = process_outstanding
        self.notify_disconnect = notify_disconnect


class Selector:
    """Kafka: org.apache.kafka.common.network.Selector."""

    NO_IDLE_TIMEOUT_MS = -1
    NO_FAILED_AUTHENTICATION_DELAY = 0

    def __init__(self, max_receive_size: int = NetworkReceive.UNLIMITED,
                 connection_max_idle_ms: int = NO_IDLE_TIMEOUT_MS, time: Time = SYSTEM,
                 log_context: str = "", memory_pool: MemoryPool = MemoryPool.NONE, channel_builder=None,
                 failed_authentication_delay_ms: int = NO_FAILED_AUTHENTICATION_DELAY, write_at_once: bool = False):
        self.nio_selector = NioSelector()
        # see ``send``: the broker's Processors write a response as it is handed over (kafkalite's, not Kafka's)
        self.write_at_once = write_at_once
        self.sends_completed_at_once: list = []   # reported in completed_sends by the next poll
        self.channel_builder = channel_builder if channel_builder is not None else PlaintextChannelBuilder()
        # Kafka: Selector.keysWithBufferedRead -- channels whose transport holds bytes select cannot see
        self.keys_with_buffered_read: set[KafkaChannel] = set()
        self.made_read_progress_last_poll = True
        # Kafka: Selector.delayedClosingChannels -- channel id -> (channel, deadline in nanos, failure response sent)
        # (KIP-306): first the delay before the failure response, then a short linger before the close
        self.failed_authentication_delay_ms = failed_authentication_delay_ms
        self.delayed_closing_channels: collections.OrderedDict[str, tuple] = collections.OrderedDict()
        # why a channel was reported AUTHENTICATION_FAILED (Kafka keeps it in its ChannelState)
        self.authentication_exceptions: dict[str, Exception] = {}
        self.max_receive_size = max_receive_size
        self.memory_pool = memory_pool
        self.out_of_memory = False   # Kafka: Selector.outOfMemory -- some channel is muted for memory
        self.io_wait_time_nanos = 0  # time spent waiting in select, for io-wait-ratio (S7)
        self.time = time
        self.log_context = log_context
        self.channels: dict[str, KafkaChannel] = {}
        self.explicitly_muted_channels: set[KafkaChannel] = set()
        self.completed_sends: list = []
        self.completed_receives: list[NetworkReceive] = []
        # Kafka: Map<KafkaChannel, Deque<NetworkReceive>> stagedReceives -- one deque per channel.
        self.staged_receives: dict[KafkaChannel, collections.deque] = {}
        self.immediately_connected_keys: set[KafkaChannel] = set()
        self.closing_channels: dict[str, KafkaChannel] = {}
        self.disconnected: dict[str, ChannelState] = {}
        self.connected: list[str] = []
        self.failed_sends: list[str] = []
        self._idle_ms = connection_max_idle_ms
        self._lru: collections.OrderedDict[str, int] = collections.OrderedDict()   # IdleExpiryManager
        self._wakeup_r, self._wakeup_w = socket.socketpair()
        self._wakeup_r.setblocking(False)
        self._wakeup_w.setblocking(False)
        self.nio_selector.register(self._wakeup_r, OP_READ, _WAKEUP)
        # Java: EPollSelectorImpl's interruptTriggered -- one byte wakes a select; more wake it no more
        self._wakeup_triggered = False

    # ---------------------------------------------------------------- connections
    # Kafka: Selector.connect -- non-blocking connect; "immediately connected" if connect() returned at once.
    def connect(self, connection_id: str, address: tuple[str, int], send_buffer_size: int = -1,
                receive_buffer_size: int = -1) -> None:
        self._ensure_not_registered(connection_id)
        sock = socket.socket(socket.AF_INET6 if ":" in address[0] else socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if send_buffer_size > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer_size)
        if receive_buffer_size > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer_size)
        try:
            sock.connect(address)
            connected = True
        except (BlockingIOError, InterruptedError):
            connected = False
        except OSError:
            sock.close()
            raise
        channel = self._build_channel(connection_id, sock, 0 if connected else OP_WRITE, peer_host=address[0])
        if connected:
            log.debug("%sImmediately connected to node %s", self.log_context, connection_id)
            self.immediately_connected_keys.add(channel)

    # Kafka: Selector.register -- adopt an accepted socket, interested in OP_READ.
    def register(self, connection_id: str, sock: socket.socket) -> None:
        self._ensure_not_registered(connection_id)
        channel = self._build_channel(connection_id, sock, OP_READ)
        channel.transport_layer.connected = True
        channel.state = ChannelState.READY if channel.ready() else ChannelState.AUTHENTICATE

    def _ensure_not_registered(self, connection_id: str) -> None:
        if connection_id in self.channels:
            raise RuntimeError(f"There is already a connection for id {connection_id}")
        if connection_id in self.closing_channels:
            raise RuntimeError(f"There is already a connection for id {connection_id} that is still being closed")

    # Kafka: Selector.buildAndAttachKafkaChannel
    def _build_channel(self, connection_id: str, sock: socket.socket, interest: int,
                       peer_host: str | None = None) -> KafkaChannel:
        try:
            channel = self.channel_builder.build_channel(connection_id, sock, self.nio_selector,
                                                         self.max_receive_size, self.memory_pool, peer_host)
        except Exception:
            sock.close()
            raise
        transport = channel.transport_layer
        transport.attachment = channel
        if interest:
            transport.add_interest_ops(interest)
        self.channels[connection_id] = channel
        self._update_idle(connection_id)
        return channel

    # Kafka: Selector.wakeup -- the only method other threads may call.
    def wakeup(self) -> None:
        """As Java's Selector.wakeup, a wakeup while one is pending writes nothing: the handler threads call this
        for every response, and each send on the socket pair is a system call that gives up the GIL. ``poll``
        re-arms it as soon as a select returns woken -- the pipe drained first, then the flag cleared -- and
        before the Processor looks at its response queue again, so no response waits for a select's timeout."""
        if self._wakeup_triggered:
            return
        self._wakeup_triggered = True
        try:
            self._wakeup_w.send(b"\x00")
        except (BlockingIOError, OSError):
            pass   # the pair's buffer is full (a wakeup is pending anyway) or we are closing

    # ---------------------------------------------------------------- sending
    # Kafka: Selector.send -- queue a send on its channel; it is written by the next polls.
    # With ``write_at_once`` (the broker's Processors) the channel first tries to write it here, and only what
    # the socket does not take waits for OP_WRITE. Kafka always waits: the next select reports the idle socket
    # writable at once, so the bytes leave at the same moment, but in Python that round costs two epoll_ctl
    # (OP_WRITE on, off) and a pass through poll_selection_keys per response (session 10, docs/benchmarks.md
    # "Per-request turnaround"). A send written whole is reported in completed_sends by the next poll, as if
    # that poll had written it, and that poll does not wait.
    def send(self, send) -> None:
        connection_id = send.destination
        channel = self._open_or_closing_channel_or_fail(connection_id)
        if connection_id in self.closing_channels:
            # the peer is gone; report the send as failed so the channel is finally closed
            self.failed_sends.append(connection_id)
            return
        if self.write_at_once and channel.send is None and channel.ready():
            if any(done.destination == connection_id for done in self.sends_completed_at_once):
                # a second send before the poll has reported the first: as set_send refuses a send in progress
                self._fail_send(channel, connection_id)
                raise RuntimeError(f"Attempt to begin a send operation with prior send operation still in "
                                   f"progress, connection id is {connection_id}")
            self._update_idle(connection_id)   # Kafka: the poll that writes it counts as activity
            try:
                if channel.write_at_once(send):
                    self.sends_completed_at_once.append(send)
                # else the rest waits for OP_WRITE, as after set_send
            except Exception as e:  # noqa: BLE001 -- Kafka: a failed write closes the channel (sendFailed)
                log.debug("%sConnection with %s disconnected while writing a response: %r", self.log_context,
                          connection_id, e)
                self._fail_send(channel, connection_id)
            return
        try:
            channel.set_send(send)
        except Exception:
            self._fail_send(channel, connection_id)
            raise

    # Kafka: Selector.send's failure path -- the channel is discarded now and reported disconnected (FAILED_SEND)
    # by the next poll
    def _fail_send(self, channel: KafkaChannel, connection_id: str) -> None:
        channel.state = ChannelState.FAILED_SEND
        self.failed_sends.append(connection_id)
        self._close(channel, CloseMode.DISCARD_NO_NOTIFY)

    # ---------------------------------------------------------------- polling
    # Kafka: Selector.poll
    def poll(self, timeout_ms: int) -> None:
        if timeout_ms < 0:
            raise ValueError("timeout should be >= 0")
        made_read_progress_last_call = self.made_read_progress_last_poll
        self.clear()
        if self.sends_completed_at_once:   # written by send() since the last poll: this poll's, and no wait
            self.completed_sends.extend(self.sends_completed_at_once)
            self.sends_completed_at_once.clear()
            timeout_ms = 0
        data_in_buffers = bool(self.keys_with_buffered_read)
        if (self.staged_receives and self.has_staged_receives()) or self.immediately_connected_keys or \
                (made_read_progress_last_call and data_in_buffers) or \
                (data_in_buffers and any(not ch.is_muted() for ch in self.keys_with_buffered_read)):
            timeout_ms = 0
        if self.out_of_memory and not self.memory_pool.is_out_of_memory():
            # Kafka: "Broker no longer low on memory - unmuting incoming sockets"
            log.debug("%sBroker no longer low on memory - unmuting incoming sockets", self.log_context)
            for channel in self.channels.values():
                if channel.is_in_mutable_state() and channel not in self.explicitly_muted_channels:
                    channel.maybe_unmute()
            self.out_of_memory = False
        if self.delayed_closing_channels:
            first_deadline = next(iter(self.delayed_closing_channels.values()))[1]
            timeout_ms = max(0, min(timeout_ms, (first_deadline - self.time.nanoseconds()) // 1_000_000 + 1))
        start_select = self.time.nanoseconds()
        events = self.nio_selector.select(timeout_ms / 1000.0)
        for key, _ in events:
            if key.data is _WAKEUP:
                # Java: EPollSelectorImpl drains its wakeup pipe and clears interruptTriggered as its select
                # returns -- drained first, so a wakeup that comes meanwhile is either in a byte still to be
                # read or in a queue the caller looks at before it selects again
                self._drain_wakeup()
                self._wakeup_triggered = False
                break
        now = self.time.nanoseconds()
        self.io_wait_time_nanos += now - start_select   # Kafka: Selector's io-wait-time (select only)
        if events or data_in_buffers:
            ready = [(key.data, mask) for key, mask in events]
            if data_in_buffers:
                # poll the channels with buffered data that select did not report (never one twice)
                selected = {channel for channel, _ in ready}
                to_poll = [(ch, 0) for ch in self.keys_with_buffered_read if ch not in selected]
                self.keys_with_buffered_read = set()   # poll_selection_keys adds them back if needed
                self.poll_selection_keys(to_poll, False, now)
            self.poll_selection_keys(ready, False, now)
        elif not self.immediately_connected_keys:
            self.made_read_progress_last_poll = True   # no work is also "progress"
        if self.immediately_connected_keys:
            keys = [(ch, 0) for ch in self.immediately_connected_keys]
            self.immediately_connected_keys.clear()
            self.poll_selection_keys(keys, True, now)
        if self.delayed_closing_channels:
            self.complete_delayed_channel_close(self.time.nanoseconds())
        self.maybe_close_oldest_connection(now)
        if self.staged_receives:
            self.add_to_completed_receives()

    # Kafka: Selector.pollSelectionKeys
    def poll_selection_keys(self, selection_keys, is_immediately_connected: bool, current_time_nanos: int) -> None:
        """``selection_keys``: (channel, ready mask) pairs -- the selected keys' attachments."""
        for channel, mask in selection_keys:
            if channel is _WAKEUP:
                continue   # drained as the select returned
            if channel.id not in self.channels:
                continue   # closed earlier in this loop
            self._update_idle(channel.id, current_time_nanos)
            send_failed = False
            try:
                # connect finished (OP_CONNECT is signalled as writable)
                if is_immediately_connected or (not channel.is_connected() and mask & OP_WRITE):
                    if channel.finish_connect():
                        self.connected.append(channel.id)
                    else:
                        continue
                    mask &= ~OP_WRITE
                # a connected channel that is not ready yet: one step of its handshake / authentication
                if channel.is_connected() and not channel.ready():
                    channel.prepare()
                    if channel.ready():
                        log.debug("%sSuccessfully authenticated with %s", self.log_context,
                                  channel.socket_description())
                    mask &= ~OP_WRITE   # the handshake used this writability
                # read every complete frame into staged_receives, unless some are still staged
                self.attempt_read(channel, mask)
                if channel.has_bytes_buffered():
                    # bytes wait inside the transport (TLS): the socket may never be readable again for them
                    self.keys_with_buffered_read.add(channel)
                # write what the channel has to send
                if channel.ready() and mask & OP_WRITE:
                    try:
                        send = channel.write()
                    except Exception:
                        send_failed = True
                        raise
                    if send is not None:
                        self.completed_sends.append(send)
            except DelayedResponseAuthenticationException as e:
                log.info("%sFailed authentication with %s (%s)", self.log_context, channel.socket_description(), e)
                self.maybe_delay_close_on_authentication_failure(channel)
            except Exception as e:   # noqa: BLE001 -- one bad connection never stops the loop
                # Kafka: a failed send drops the requests already read from that connection
                # (NOTIFY_ONLY): their answers could never be delivered, and the client will retry.
                self._on_channel_error(channel, e, CloseMode.NOTIFY_ONLY if send_failed else CloseMode.GRACEFUL)

    def _on_channel_error(self, channel: KafkaChannel, e: Exception, close_mode: CloseMode) -> None:
        desc = channel.socket_description()
        if isinstance(e, AuthenticationException):
            log.info("%sFailed authentication with %s (%s)", self.log_context, desc, e)
            self.authentication_exceptions[channel.id] = e
        elif isinstance(e, EOFError):
            if channel.has_bytes_pending():
                log.info("%sConnection with %s (id %s) disconnected in the middle of a frame",
                         self.log_context, desc, channel.id)
            else:
                log.debug("%sConnection with %s disconnected", self.log_context, desc)
        elif isinstance(e, AuthenticationException):
            log.info("%sFailed authentication with %s (%s)", self.log_context, desc, e)
        elif isinstance(e, (ConnectionError, OSError)):
            log.debug("%sConnection with %s disconnected: %s", self.log_context, desc, e)
        else:
            log.warning("%sUnexpected error from %s (id %s); closing connection: %s",
                        self.log_context, desc, channel.id, e)
        self._close(channel, close_mode)

    # Kafka: Selector.attemptRead -- read if the socket is readable or the transport holds bytes.
    def attempt_read(self, channel: KafkaChannel, mask: int = OP_READ) -> None:
        if not (channel.ready() and (mask & OP_READ or channel.has_bytes_buffered())
                and not self.has_staged_receive(channel) and channel not in self.explicitly_muted_channels):
            return
        while True:
            receive = channel.read()
            if receive is None:
                if channel.is_muted() and channel not in self.explicitly_muted_channels:
                    self.out_of_memory = True   # muted itself: the memory pool is out of memory
                else:
                    self.made_read_progress_last_poll = True
                return
            self.made_read_progress_last_poll = True
            self.add_to_staged_receives(channel, receive)

    # one recv empties the pair (wakeup writes one byte per select); Kafka (Java) leaves this to EPollSelectorImpl,
    # which reads its pipe in 128-byte gulps until a short read -- the same single read here
    def _drain_wakeup(self) -> None:
        try:
            while len(self._wakeup_r.recv(4096)) == 4096:
                pass
        except (BlockingIOError, InterruptedError):
            pass

    # Kafka: Selector.addToStagedReceives
    def add_to_staged_receives(self, channel: KafkaChannel, receive: NetworkReceive) -> None:
        deque = self.staged_receives.get(channel)
        if deque is None:
            deque = self.staged_receives[channel] = collections.deque()
        deque.append(receive)

    # Kafka: Selector.addToCompletedReceives -- at most one receive per unmuted channel per poll.
    def add_to_completed_receives(self) -> None:
        if not self.staged_receives:
            return
        for channel in list(self.staged_receives):
            if not channel.is_muted():
                deque = self.staged_receives[channel]
                self.completed_receives.append(deque.popleft())
                if not deque:
                    del self.staged_receives[channel]

    # Kafka: Selector.hasStagedReceive
    def has_staged_receive(self, channel: KafkaChannel) -> bool:
        return channel in self.staged_receives

    # Kafka: Selector.hasStagedReceives -- only unmuted channels make poll() skip waiting.
    def has_staged_receives(self) -> bool:
        return any(not ch.is_muted() for ch in self.staged_receives)

    # visible for testing (Kafka: Selector.numStagedReceives)
    def num_staged_receives(self, channel: KafkaChannel) -> int:
        deque = self.staged_receives.get(channel)
        return len(deque) if deque else 0

    # Kafka: Selector.clear
    def clear(self) -> None:
        self.completed_sends.clear()
        self.completed_receives.clear()
        self.connected.clear()
        self.disconnected.clear()
        self.authentication_exceptions.clear()
        self.made_read_progress_last_poll = False
        if not self.closing_channels and not self.failed_sends:
            return
        # Channels closed by the peer are kept until their staged receives were all handed out,
        # or until a send to them failed.
        for connection_id, channel in list(self.closing_channels.items()):
            deque = self.staged_receives.get(channel)
            send_failed = connection_id in self.failed_sends
            if send_failed:
                self.failed_sends.remove(connection_id)
            if not deque or send_failed:
                self._do_close(channel, True)
                del self.closing_channels[connection_id]
        for connection_id in self.failed_sends:
            self.disconnected[connection_id] = ChannelState.FAILED_SEND
        self.failed_sends.clear()

    # ---------------------------------------------------------------- mute
    # Kafka: Selector.mute
    def mute(self, connection_id: str) -> None:
        channel = self._open_or_closing_channel_or_fail(connection_id)
        channel.mute()
        self.explicitly_muted_channels.add(channel)

    # Kafka: Selector.unmute
    def unmute(self, connection_id: str) -> None:
        channel = self._open_or_closing_channel_or_fail(connection_id)
        if channel.maybe_unmute():
            self.explicitly_muted_channels.discard(channel)

    # ---------------------------------------------------------------- closing
    # Kafka: Selector.close(String) -- a local close: no disconnect notification.
    def close_connection(self, connection_id: str) -> None:
        channel = self.channels.get(connection_id)
        if channel is not None:
            channel.state = ChannelState.LOCAL_CLOSE
            self._close(channel, CloseMode.DISCARD_NO_NOTIFY)
        else:
            closing = self.closing_channels.pop(connection_id, None)
            if closing is not None:
                self._do_close(closing, False)

    # Kafka: Selector.close(KafkaChannel, CloseMode)
    def _close(self, channel: KafkaChannel, close_mode: CloseMode) -> None:
        channel.disconnect()
        if channel.id in self.connected:
            self.connected.remove(channel.id)
        deque = self.staged_receives.get(channel)
        if close_mode.process_outstanding and deque:
            # handed out by later polls, one at a time, like any other staged receive
            self.closing_channels[channel.id] = channel
            log.debug("%sTracking closing connection %s to process outstanding requests",
                      self.log_context, channel.id)
        else:
            self._do_close(channel, close_mode.notify_disconnect)
        self.channels.pop(channel.id, None)
        self._lru.pop(channel.id, None)
        self.delayed_closing_channels.pop(channel.id, None)

    # Kafka: Selector.doClose
    def _do_close(self, channel: KafkaChannel, notify_disconnect: bool) -> None:
        self.keys_with_buffered_read.discard(channel)
        channel.close()
        for receive in self.staged_receives.pop(channel, ()):
            receive.release()   # read but never handed out: its memory goes back to the pool
        self.explicitly_muted_channels.discard(channel)
        self.immediately_connected_keys.discard(channel)
        if notify_disconnect:
            self.disconnected[channel.id] = channel.state
            if channel.state is ChannelState.AUTHENTICATION_FAILED:   # Kafka: ChannelState.exception()
                self.authentication_exceptions[channel.id] = channel.authentication_exception

    # Kafka: Selector.close() -- everything, then the selector itself.
    def close(self) -> None:
        for channel in list(self.channels.values()):
            self._close(channel, CloseMode.DISCARD_NO_NOTIFY)
        for channel in list(self.closing_channels.values()):
            self._do_close(channel, False)
        self.closing_channels.clear()
        self.nio_selector.close()
        self._wakeup_r.close()
        self._wakeup_w.close()

    # ---------------------------------------------------------------- failed authentication (KIP-306)
    # Kafka: Selector.maybeDelayCloseOnAuthenticationFailure
    def maybe_delay_close_on_authentication_failure(self, channel: KafkaChannel) -> None:
        if self.failed_authentication_delay_ms > self.NO_FAILED_AUTHENTICATION_DELAY:
            deadline = self.time.nanoseconds() + self.failed_authentication_delay_ms * 1_000_000
            self.delayed_closing_channels[channel.id] = (channel, deadline, False)
        else:
            self.handle_close_on_authentication_failure(channel)

    # Kafka: Selector.completeDelayedChannelClose -- oldest first, until one is not due yet
    def complete_delayed_channel_close(self, now_nanos: int) -> None:
        while self.delayed_closing_channels:
            channel_id, (channel, deadline, response_sent) = next(iter(self.delayed_closing_channels.items()))
            if deadline - now_nanos > 0:
                return
            del self.delayed_closing_channels[channel_id]
            if response_sent:
                self._close(channel, CloseMode.GRACEFUL)
            else:
                self.handle_close_on_authentication_failure(channel, now_nanos)

    # Kafka: Selector.handleCloseOnAuthenticationFailure -- send the failure response, then close. Kafka closes
    # in the same step; kafkalite closes FAILURE_RESPONSE_LINGER_MS later, because a client that reads until
    # end-of-stream in one go and then reports only the end (kafka-python 3) would otherwise lose the answer.
    FAILURE_RESPONSE_LINGER_MS = 20

    def handle_close_on_authentication_failure(self, channel: KafkaChannel, now_nanos: int | None = None) -> None:
        try:
            channel.complete_close_on_authentication_failure()
            now = now_nanos if now_nanos is not None else self.time.nanoseconds()
            self.delayed_closing_channels[channel.id] = (channel, now + self.FAILURE_RESPONSE_LINGER_MS * 1_000_000,
                                                         True)
        except Exception as e:   # noqa: BLE001
            log.error("%sException handling close on authentication failure node %s: %s", self.log_context,
                      channel.id, e)
            self._close(channel, CloseMode.GRACEFUL)

    # ---------------------------------------------------------------- idle connections
    # the idle-expiry stamp, with the poll's clock reading as Kafka passes currentTimeNanos to its IdleExpiryManager
    def _update_idle(self, connection_id: str, now_nanos: int | None = None) -> None:
        if self._idle_ms >= 0:
            self._lru[connection_id] = self.time.nanoseconds() if now_nanos is None else now_nanos
            self._lru.move_to_end(connection_id)

    # Kafka: Selector.maybeCloseOldestConnection (IdleExpiryManager)
    def maybe_close_oldest_connection(self, now_nanos: int) -> None:
        if self._idle_ms < 0 or not self._lru:
            return
        connection_id, last_used = next(iter(self._lru.items()))
        if now_nanos - last_used > self._idle_ms * 1_000_000:
            channel = self.channels.get(connection_id)
            self._lru.pop(connection_id, None)
            if channel is not None:
                log.debug("%sAbout to close the idle connection from %s due to being idle for %d millis",
                          self.log_context, connection_id, (now_nanos - last_used) // 1_000_000)
                channel.state = ChannelState.EXPIRED
                self._close(channel, CloseMode.GRACEFUL)

    # ---------------------------------------------------------------- lookups
    def channel(self, connection_id: str) -> KafkaChannel | None:
        return self.channels.get(connection_id)

    def closing_channel(self, connection_id: str) -> KafkaChannel | None:
        return self.closing_channels.get(connection_id)

    def _open_or_closing_channel_or_fail(self, connection_id: str) -> KafkaChannel:
        channel = self.channels.get(connection_id) or self.closing_channels.get(connection_id)
        if channel is None:
            raise RuntimeError(f"Attempt to retrieve channel for which there is no connection. Connection id "
                               f"{connection_id} existing connections {list(self.channels)}")
        return channel

    def is_channel_ready(self, connection_id: str) -> bool:
        channel = self.channels.get(connection_id)
        return channel is not None and channel.ready() and channel.is_connected()
