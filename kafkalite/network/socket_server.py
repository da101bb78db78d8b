"""Mirrors Kafka 2.4: core/src/main/scala/kafka/network/SocketServer.scala

Classes: SocketServer, AbstractServerThread, Acceptor, Processor, ConnectionQuotas,
TooManyConnectionsException.

The threads of the network layer (S1–S3, S10–S17, S21–S23):
- one Acceptor per listener ("data-plane-kafka-socket-acceptor-<listener>-<protocol>-<port>"),
  accepting connections and handing them round-robin to its Processors;
- ``num.network.threads`` Processors per listener
  ("data-plane-kafka-network-thread-<broker>-<listener>-<protocol>-<id>"), each owning a Selector
  and running the loop configureNewConnections → processNewResponses → poll →
  processCompletedReceives → processCompletedSends → processDisconnected;
- with ``control.plane.listener.name`` set, one more Acceptor and exactly one Processor for it,
  feeding a RequestChannel of depth 20 ("control-plane-..." threads).

Era notes: ``Processor.accept`` puts the socket on ``new_connections``, an unbounded
ConcurrentLinkedQueue-style deque, and wakes the selector (Kafka <= 2.1; 2.2 made it a blocking
queue of 20, KIP-402). ``startup(start_processing_requests=False)`` + ``start_processing_requests()``
is the 2.6 spelling of 2.4's ``startup(startupProcessors=false)`` + ``startDataPlaneProcessors()``.
Each Processor has its own channel builder for its listener's security protocol (ChannelBuilders.server_channel_builder:
PLAINTEXT or SSL), and puts the channel's principal into each request's RequestContext.
Omitted: connection-rate quotas, SASL, dynamic resize of the processor pool, metrics objects.
"""
from __future__ import annotations

import collections
import errno
import functools
import logging
import selectors
import socket
import threading
import time as time_module

import attrs

from kafkalite.common.memory.memory_pool import MemoryPool, SimpleMemoryPool
from kafkalite.network.kafka_channel import ChannelMuteEvent
from kafkalite.network.request_channel import (CloseConnectionAction, EndThrottlingAction, NoOpAction, Request,
                                               RequestChannel, RequestContext, SendAction, StartThrottlingAction,
                                               request_logger)
from kafkalite.network.channel_builders import ChannelBuilders
from kafkalite.network.selector import Selector
from kafkalite.protocol.errors import InvalidRequestException
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM

DATA_PLANE_THREAD_PREFIX = "data-plane"
CONTROL_PLANE_THREAD_PREFIX = "control-plane"
DATA_PLANE_METRIC_PREFIX = ""
CONTROL_PLANE_METRIC_PREFIX = "ControlPlane"
CONTROL_PLANE_QUEUE_SIZE = 20


class SocketServer(Logging):
    """Kafka: SocketServer -- owns the acceptors, processors and request channels of both planes."""

    def __init__(self, config, time=SYSTEM, credential_provider=None, api_versions_response=None):
        self.config = config
        self.time = time
        # Kafka: SocketServer.credentialProvider -- the SCRAM credential cache SASL listeners authenticate with
        self.credential_provider = credential_provider
        self.api_versions_response = api_versions_response   # what a SASL listener answers before the handshake
        self.log_ident = f"[SocketServer brokerId={config.broker_id}] "
        self.max_queued_requests = config.queued_max_requests
        # Kafka: SocketServer.memoryPool -- queued.max.request.bytes bounds the bytes of requests read but
        # not yet handled, across all data-plane processors (the control plane takes MemoryPool.NONE)
        queued_max_bytes = config.get("queued.max.request.bytes")
        self.memory_pool = SimpleMemoryPool(queued_max_bytes, config.socket_request_max_bytes, False) \
            if queued_max_bytes > 0 else MemoryPool.NONE
        self.data_plane_processors: dict[int, Processor] = {}
        self.data_plane_acceptors: dict = {}   # EndPoint -> Acceptor
        self.data_plane_request_channel = RequestChannel(
            self.max_queued_requests, DATA_PLANE_METRIC_PREFIX,
            control_first=config.get("kafkalite.request.priority") == "control-first")
        self.control_plane_processor_opt: Processor | None = None
        self.control_plane_acceptor_opt: Acceptor | None = None
        self.control_plane_request_channel_opt = (
            RequestChannel(CONTROL_PLANE_QUEUE_SIZE, CONTROL_PLANE_METRIC_PREFIX)
            if config.control_plane_listener is not None else None)
        self.next_processor_id = 0
        self.connection_quotas: ConnectionQuotas | None = None
        self.stopped_processing_requests = False
        self._lock = threading.RLock()
        if config.values.get("kafkalite.request.trace"):   # the request trace (request_channel.py)
            request_logger.setLevel(logging.DEBUG)

    # Kafka: SocketServer.startup -- binds every listener; processors start now or later (S23).
    def startup(self, start_processing_requests: bool = True) -> None:
        with self._lock:
            self.connection_quotas = ConnectionQuotas(self.config)
            self.create_control_plane_acceptor_and_processor(self.config.control_plane_listener)
            self.create_data_plane_acceptors_and_processors(self.config.num_network_threads,
                                                            self.config.data_plane_listeners)
            if start_processing_requests:
                self.start_processing_requests()
        self.info(f"Started {len(self.data_plane_acceptors) + (1 if self.control_plane_acceptor_opt else 0)} "
                  f"acceptor threads")

    # Kafka 2.6: SocketServer.startProcessingRequests -- control plane first, then the data plane with
    # the inter-broker listener first, so the broker's own traffic can flow before clients'.
    def start_processing_requests(self) -> None:
        self.info("Starting socket server acceptors and processors")
        with self._lock:
            if self.control_plane_acceptor_opt is not None:
                self.control_plane_acceptor_opt.start_processors(CONTROL_PLANE_THREAD_PREFIX)
                self.info("Started control-plane processor for the control-plane acceptor")
            inter_broker = self.config.inter_broker_listener_name
            ordered = sorted(self.data_plane_acceptors.items(),
                             key=lambda kv: kv[0].listener_name != inter_broker)
            for endpoint, acceptor in ordered:
                acceptor.start_processors(DATA_PLANE_THREAD_PREFIX)
            self.info(f"Started data-plane processors for {len(self.data_plane_acceptors)} acceptors")

    # Kafka: SocketServer.createDataPlaneAcceptorsAndProcessors
    def create_data_plane_acceptors_and_processors(self, data_processors_per_listener: int, endpoints) -> None:
        for endpoint in endpoints:
            self.connection_quotas.add_listener(endpoint.listener_name)
            acceptor = self.create_acceptor(endpoint, DATA_PLANE_THREAD_PREFIX)
            self.add_data_plane_processors(acceptor, endpoint, data_processors_per_listener)
            thread = threading.Thread(
                target=acceptor.run, daemon=True,
                name=f"{DATA_PLANE_THREAD_PREFIX}-kafka-socket-acceptor-{endpoint.listener_name}-"
                     f"{endpoint.security_protocol}-{acceptor.bound_port}")
            acceptor.thread = thread
            thread.start()
            acceptor.await_startup()
            self.data_plane_acceptors[endpoint] = acceptor
            self.info(f"Created data-plane acceptor and processors for endpoint : {endpoint.connection_string()}")

    # Kafka: SocketServer.createControlPlaneAcceptorAndProcessor -- exactly one of each (S22).
    def create_control_plane_acceptor_and_processor(self, endpoint_opt) -> None:
        if endpoint_opt is None:
            return
        endpoint = endpoint_opt
        self.connection_quotas.add_listener(endpoint.listener_name)
        acceptor = self.create_acceptor(endpoint, CONTROL_PLANE_THREAD_PREFIX)
        processor = self.new_processor(self.next_processor_id, self.control_plane_request_channel_opt,
                                       endpoint.listener_name, endpoint.security_protocol, True)
        self.next_processor_id += 1
        self.control_plane_request_channel_opt.add_processor(processor)
        acceptor.add_processors([processor], CONTROL_PLANE_THREAD_PREFIX)
        thread = threading.Thread(
            target=acceptor.run, daemon=True,
            name=f"{CONTROL_PLANE_THREAD_PREFIX}-kafka-socket-acceptor-{endpoint.listener_name}-"
                 f"{endpoint.security_protocol}-{acceptor.bound_port}")
        acceptor.thread = thread
        thread.start()
        acceptor.await_startup()
        self.control_plane_acceptor_opt = acceptor
        self.control_plane_processor_opt = processor
        self.info(f"Created control-plane acceptor and processor for endpoint : {endpoint.connection_string()}")

    # Kafka: SocketServer.createAcceptor
    def create_acceptor(self, endpoint, thread_prefix: str) -> "Acceptor":
        return Acceptor(endpoint, self.config.socket_send_buffer_bytes, self.config.socket_receive_buffer_bytes,
                        self.config.broker_id, self.connection_quotas, thread_prefix)

    # Kafka: SocketServer.addDataPlaneProcessors
    def add_data_plane_processors(self, acceptor: "Acceptor", endpoint, new_processors_per_listener: int) -> None:
        listener_processors = []
        for _ in range(new_processors_per_listener):
            processor = self.new_processor(self.next_processor_id, self.data_plane_request_channel,
                                           endpoint.listener_name, endpoint.security_protocol, False)
            listener_processors.append(processor)
            self.data_plane_request_channel.add_processor(processor)
            self.next_processor_id += 1
        for p in listener_processors:
            self.data_plane_processors[p.id] = p
        acceptor.add_processors(listener_processors, DATA_PLANE_THREAD_PREFIX)

    # Kafka: SocketServer.newProcessor
    def new_processor(self, processor_id: int, request_channel: RequestChannel, listener_name: str,
                      security_protocol: str, control_plane: bool) -> "Processor":
        return Processor(processor_id, self.time, self.config.socket_request_max_bytes, request_channel,
                         self.connection_quotas, self.config.connections_max_idle_ms, listener_name,
                         security_protocol, self.config.broker_id, control_plane,
                         MemoryPool.NONE if control_plane else self.memory_pool,
                         channel_builder=self.create_channel_builder(listener_name, security_protocol),
                         failed_authentication_delay_ms=self.failed_authentication_delay_ms())

    # Each Processor gets its own channel builder (Kafka: the ChannelBuilders.serverChannelBuilder call
    # in Processor, passed to Processor.createSelector). SASL listeners authenticate SCRAM users against the
    # broker's credential cache and answer ApiVersions before the handshake with KafkaApis' versions.
    def create_channel_builder(self, listener_name: str, security_protocol: str):
        if not hasattr(self.config, "values_with_prefix_override"):
            return None   # a bare test config: PLAINTEXT
        cache = self.credential_provider.credential_cache if self.credential_provider is not None else None
        builder = ChannelBuilders.server_channel_builder(
            listener_name, listener_name == getattr(self.config, "inter_broker_listener_name", None),
            security_protocol, self.config, credential_cache=cache, time=self.time)
        if hasattr(builder, "api_versions_response"):
            builder.api_versions_response = self.api_versions_response
        return builder

    # Kafka: KafkaConfig.failedAuthenticationDelayMs (KIP-306)
    def failed_authentication_delay_ms(self) -> int:
        values = getattr(self.config, "values", None)
        return values.get("connection.failed.authentication.delay.ms", 0) if isinstance(values, dict) else 0

    # Kafka: SocketServer.reconfigurableConfigs / reconfigure (BrokerReconfigurable, S24)
    reconfigurable_configs = frozenset({"max.connections", "max.connections.per.ip", "max.connections.per.ip.overrides"})

    def validate_reconfiguration(self, new_config) -> None:
        pass

    def reconfigure(self, old_config, new_config) -> None:
        self.info(f"Updating connection quotas: max.connections.per.ip={new_config.max_connections_per_ip}, "
                  f"overrides={new_config.max_connections_per_ip_overrides}, max.connections={new_config.max_connections}")
        self.connection_quotas.update_max_connections_per_ip(new_config.max_connections_per_ip)
        self.connection_quotas.update_max_connections_per_ip_override(new_config.max_connections_per_ip_overrides)
        self.connection_quotas.update_broker_max_connections(new_config.max_connections)

    # Kafka: SocketServer.boundPort
    def bound_port(self, listener_name: str) -> int:
        for endpoint, acceptor in self.data_plane_acceptors.items():
            if endpoint.listener_name == listener_name:
                return acceptor.bound_port
        cp = self.control_plane_acceptor_opt
        if cp is not None and cp.end_point.listener_name == listener_name:
            return cp.bound_port
        raise KeyError(f"No listener named {listener_name}")

    def all_processors(self) -> list["Processor"]:
        procs = list(self.data_plane_processors.values())
        if self.control_plane_processor_opt is not None:
            procs.append(self.control_plane_processor_opt)
        return procs

    # Kafka: SocketServer.stopProcessingRequests
    def stop_processing_requests(self) -> None:
        self.info("Stopping socket server request processors")
        with self._lock:
            acceptors = list(self.data_plane_acceptors.values())
            if self.control_plane_acceptor_opt is not None:
                acceptors.append(self.control_plane_acceptor_opt)
            for a in acceptors:
                a.initiate_shutdown()
            for a in acceptors:
                a.await_shutdown()
            self.data_plane_request_channel.clear()
            if self.control_plane_request_channel_opt is not None:
                self.control_plane_request_channel_opt.clear()
            self.stopped_processing_requests = True
        self.info("Stopped socket server request processors")

    # Kafka: SocketServer.shutdown
    def shutdown(self) -> None:
        self.info("Shutting down socket server")
        with self._lock:
            if not self.stopped_processing_requests:
                self.stop_processing_requests()
            self.data_plane_request_channel.shutdown()
            if self.control_plane_request_channel_opt is not None:
                self.control_plane_request_channel_opt.shutdown()
        self.info("Shutdown completed")


class AbstractServerThread(Logging):
    """Kafka: AbstractServerThread -- a startup latch, a shutdown latch and an alive flag."""

    def __init__(self):
        self._startup_latch = threading.Event()
        self._shutdown_latch = threading.Event()
        self._alive = threading.Event()
        self._alive.set()
        self.thread: threading.Thread | None = None

    def await_startup(self, timeout: float = 30.0) -> None:
        self._startup_latch.wait(timeout)

    def startup_complete(self) -> None:
        self._shutdown_latch.clear()
        self._startup_latch.set()

    def shutdown_complete(self) -> None:
        self._shutdown_latch.set()

    # Kafka: AbstractServerThread.shutdown (its first half)
    def initiate_shutdown(self) -> None:
        if self._alive.is_set():
            self._alive.clear()
            self.wakeup()

    def await_shutdown(self, timeout: float = 30.0) -> None:
        if self._startup_latch.is_set():
            self._shutdown_latch.wait(timeout)

    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.await_shutdown()

    @property
    def is_running(self) -> bool:
        return self._alive.is_set()

    def wakeup(self) -> None:
        raise NotImplementedError


class Acceptor(AbstractServerThread):
    """Kafka: Acceptor -- one per listener; accepts and assigns connections round-robin (S2)."""

    def __init__(self, end_point, send_buffer_size: int, recv_buffer_size: int, broker_id: int,
                 connection_quotas: "ConnectionQuotas", thread_prefix: str = DATA_PLANE_THREAD_PREFIX):
        super().__init__()
        self.end_point = end_point
        self.send_buffer_size = send_buffer_size
        self.recv_buffer_size = recv_buffer_size
        self.broker_id = broker_id
        self.connection_quotas = connection_quotas
        self.thread_prefix = thread_prefix
        self.log_ident = f"[{thread_prefix}-kafka-socket-acceptor-{end_point.listener_name}] "
        self.nio_selector = selectors.DefaultSelector()
        self._backoff_until: float | None = None    # out of file descriptors: not accepting until then
        self._next_backoff_log = 0.0
        self._accept_failures = 0
        self.server_channel = self.open_server_socket(end_point.host, end_point.port)
        self.bound_port = self.server_channel.getsockname()[1]
        self.processors: list[Processor] = []
        self.processors_started = False
        self._processors_lock = threading.Lock()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)

    # Kafka: Acceptor.addProcessors
    def add_processors(self, new_processors: list["Processor"], processor_thread_prefix: str) -> None:
        with self._processors_lock:
            self.processors.extend(new_processors)
            if self.processors_started:
                self._start_processor_threads(new_processors, processor_thread_prefix)

    # Kafka: Acceptor.startProcessors
    def start_processors(self, processor_thread_prefix: str) -> None:
        with self._processors_lock:
            if not self.processors_started:
                self.processors_started = True
                self._start_processor_threads(self.processors, processor_thread_prefix)

    def _start_processor_threads(self, processors, prefix: str) -> None:
        ep = self.end_point
        for p in processors:
            t = threading.Thread(target=p.run, daemon=True,
                                 name=f"{prefix}-kafka-network-thread-{self.broker_id}-{ep.listener_name}-"
                                      f"{ep.security_protocol}-{p.id}")
            p.thread = t
            t.start()

    # Kafka: Acceptor.run
    def run(self) -> None:
        self.nio_selector.register(self.server_channel, selectors.EVENT_READ, "accept")
        self.nio_selector.register(self._wake_r, selectors.EVENT_READ, "wakeup")
        self.startup_complete()
        try:
            current_processor_index = 0
            while self.is_running:
                try:
                    self._maybe_end_accept_backoff()
                    for key, _ in self.nio_selector.select(self._select_timeout_s()):
                        if not self.is_running:
                            break
                        if key.data == "wakeup":
                            self._drain()
                            continue
                        try:
                            accepted = self.accept()
                            if accepted is not None:
                                with self._processors_lock:
                                    current_processor_index %= len(self.processors)
                                    processor = self.processors[current_processor_index]
                                current_processor_index += 1
                                processor.accept(*accepted)
                        except OSError as e:
                            if e.errno not in (errno.EMFILE, errno.ENFILE):
                                raise
                            self._start_accept_backoff(e)
                        except Exception as e:  # noqa: BLE001
                            self.error(f"Error while accepting connection: {e}", exc_info=True)
                except Exception as e:  # noqa: BLE001
                    self.error(f"Error occurred: {e}", exc_info=True)
        finally:
            self.debug("Closing server socket and selector.")
            for p in self.processors:
                p.initiate_shutdown()
            for p in self.processors:
                p.await_shutdown()
            self.server_channel.close()
            self.nio_selector.close()
            self._wake_r.close()
            self._wake_w.close()
            self.shutdown_complete()

    # Kafka 2.4 logs "Error occurred" for every failed accept and tries again at once: out of file
    # descriptors, the server socket stays readable and the thread spins, logging each time. kafkalite
    # stops selecting on the server socket for ACCEPT_BACKOFF_MS and logs once per LOG_INTERVAL_MS; the
    # connections wait in the listen backlog meanwhile.
    ACCEPT_BACKOFF_MS = 100
    ACCEPT_BACKOFF_LOG_INTERVAL_MS = 10_000

    def _start_accept_backoff(self, e: OSError) -> None:
        now = time_module.monotonic()
        self._accept_failures += 1
        if now >= self._next_backoff_log:
            self.error(f"Error while accepting connection: {e.strerror} ({self._accept_failures} time(s) since the "
                       f"last report); not accepting for {self.ACCEPT_BACKOFF_MS} ms at a time until file "
                       f"descriptors are free")
            self._accept_failures = 0
            self._next_backoff_log = now + self.ACCEPT_BACKOFF_LOG_INTERVAL_MS / 1000
        if self._backoff_until is None:
            self.nio_selector.unregister(self.server_channel)
        self._backoff_until = now + self.ACCEPT_BACKOFF_MS / 1000

    def _maybe_end_accept_backoff(self) -> None:
        if self._backoff_until is not None and time_module.monotonic() >= self._backoff_until:
            self._backoff_until = None
            self.nio_selector.register(self.server_channel, selectors.EVENT_READ, "accept")

    def _select_timeout_s(self) -> float:
        if self._backoff_until is None:
            return 0.5
        return max(0.0, min(0.5, self._backoff_until - time_module.monotonic()))

    def _drain(self) -> None:
        try:
            while self._wake_r.recv(64):
                pass
        except (BlockingIOError, OSError):
            pass

    # Kafka: Acceptor.openServerSocket
    def open_server_socket(self, host: str, port: int) -> socket.socket:
        bind_host = host or "0.0.0.0"
        family = socket.AF_INET6 if ":" in bind_host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if self.recv_buffer_size > 0:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, self.recv_buffer_size)
        try:
            sock.bind((bind_host, port))
        except OSError as e:
            sock.close()
            raise OSError(e.errno, f"Socket server failed to bind to {bind_host}:{port}: {e.strerror}.") from e
        sock.listen(512)
        sock.setblocking(False)
        self.info(f"Awaiting socket connections on {bind_host}:{sock.getsockname()[1]}.")
        return sock

    # Kafka: Acceptor.accept -- quotas first, then socket options.
    def accept(self) -> tuple[socket.socket, tuple] | None:
        """The accepted socket and its remote address. The address is kept from here on (Java's
        ``socket.getInetAddress``): once a peer resets, ``getpeername()`` fails, and the connection's
        quota slot must still be given back."""
        try:
            sock, addr = self.server_channel.accept()
        except (BlockingIOError, InterruptedError):
            return None
        try:
            self.connection_quotas.inc(self.end_point.listener_name, addr[0], lambda: self.is_running)
        except TooManyConnectionsException as e:
            self.info(f"Rejected connection from {e.ip}, address already has the configured maximum of "
                      f"{e.count} connections.")
            sock.close()
            return None
        try:
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
            if self.send_buffer_size > 0:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_size)
        except OSError as e:
            self.debug(f"Closing connection from {addr[0]} that failed before it was set up: {e}")
            self.connection_quotas.dec(self.end_point.listener_name, addr[0])
            sock.close()
            return None
        return sock, addr

    def wakeup(self) -> None:
        try:
            self._wake_w.send(b"\x00")
        except OSError:
            pass


@attrs.frozen
class ConnectionId:
    """Kafka: Processor.ConnectionId(localHost, localPort, remoteHost, remotePort, index) -- the selector's key
    for a connection, ``<local host>:<port>-<remote host>:<port>-<index>``."""

    local_host: str
    local_port: int
    remote_host: str
    remote_port: int
    index: int

    # Kafka: ConnectionId.fromString
    @classmethod
    def from_string(cls, s: str) -> "ConnectionId":
        local, remote, index = s.split("-")
        local_host, local_port = local.rsplit(":", 1)
        remote_host, remote_port = remote.rsplit(":", 1)
        return cls(local_host, int(local_port), remote_host, int(remote_port), int(index))

    def __str__(self) -> str:
        return f"{self.local_host}:{self.local_port}-{self.remote_host}:{self.remote_port}-{self.index}"


# Kafka's RequestContext takes the client's address from channel.socketAddress; kafkalite's channels keep
# only the connection id, which is parsed once per connection here, not once per request (issue 18)
@functools.lru_cache(maxsize=4096)
def remote_host_of(connection_id: str) -> str:
    return ConnectionId.from_string(connection_id).remote_host


class Processor(AbstractServerThread):
    """Kafka: Processor -- one network thread with its own Selector (S3)."""

    def __init__(self, processor_id: int, time, max_request_size: int, request_channel: RequestChannel,
                 connection_quotas: "ConnectionQuotas", connections_max_idle_ms: int, listener_name: str,
                 security_protocol: str, broker_id: int = 0, control_plane: bool = False,
                 memory_pool: MemoryPool = MemoryPool.NONE, channel_builder=None,
                 failed_authentication_delay_ms: int = 0):
        super().__init__()
        self.id = processor_id
        self.time = time
        self.request_channel = request_channel
        self.connection_quotas = connection_quotas
        self.listener_name = listener_name
        self.security_protocol = security_protocol
        self.control_plane = control_plane
        prefix = CONTROL_PLANE_THREAD_PREFIX if control_plane else DATA_PLANE_THREAD_PREFIX
        self.log_ident = f"[{prefix}-kafka-network-thread-{broker_id}-{listener_name}-{security_protocol}-{processor_id}] "
        # Kafka (<= 2.1): ConcurrentLinkedQueue[SocketChannel] newConnections
        self.new_connections: collections.deque[tuple[socket.socket, tuple]] = collections.deque()
        self.inflight_responses: dict[str, object] = {}
        # Kafka: LinkedBlockingDeque[RequestChannel.Response] responseQueue -- one per Processor
        self.response_queue: collections.deque = collections.deque()
        self._enqueue_lock = threading.Lock()
        self.selector = Selector(max_request_size, connections_max_idle_ms, time,
                                 log_context=self.log_ident, memory_pool=memory_pool,
                                 channel_builder=channel_builder,
                                 failed_authentication_delay_ms=failed_authentication_delay_ms,
                                 write_at_once=True)
        self._next_connection_index = 0
        self.accept_trace: dict = {}   # the request trace's "accepted" hop, until the connection's first request
        self.started_nanos = time.nanoseconds()

    # Kafka: Processor.run -- the six phases of S3, in Kafka's order, forever.
    def run(self) -> None:
        self.startup_complete()
        running = self._alive.is_set   # Kafka: isRunning
        try:
            while running():
                try:
                    self.configure_new_connections()
                    self.process_new_responses()
                    self.poll()
                    self.process_completed_receives()
                    self.process_completed_sends()
                    self.process_disconnected()
                except Exception as e:  # noqa: BLE001 -- a turn that fails is logged; the loop goes on
                    self.error(f"Processor got uncaught exception: {e}", exc_info=True)
        finally:
            self.debug(f"Closing selector - processor {self.id}")
            self.close_all()
            self.shutdown_complete()

    # Kafka: Processor.accept (<= 2.1) -- queue the socket and wake the selector (S10).
    def accept(self, sock: socket.socket, remote_address: tuple | None = None) -> None:
        if request_logger.isEnabledFor(logging.DEBUG):
            self.accept_trace[sock] = (threading.current_thread().name, self.time.nanoseconds())
        if remote_address is None:
            remote_address = sock.getpeername()
        self.new_connections.append((sock, remote_address))
        self.wakeup()

    # Kafka: Processor.configureNewConnections -- register each new socket with OP_READ (S11).
    def configure_new_connections(self) -> None:
        while self.new_connections:
            sock, remote_address = self.new_connections.popleft()
            try:
                connection_id = self.connection_id(sock, remote_address)
                self.debug(f"Processor {self.id} listening to new connection from {connection_id}")
                self.selector.register(connection_id, sock)
                if self.accept_trace:
                    self.accept_trace[connection_id] = self.accept_trace.pop(sock, None)
            except Exception as e:  # noqa: BLE001
                self.error(f"Processor {self.id} closed connection from {remote_address[0]}: {e}")
                self.accept_trace.pop(sock, None)
                self._close_socket(sock, remote_address[0])

    # Kafka: Processor.connectionId -- local:port-remote:port-index
    def connection_id(self, sock: socket.socket, remote: tuple | None = None) -> str:
        local = sock.getsockname()
        remote = remote or sock.getpeername()
        cid = ConnectionId(local[0], local[1], remote[0], remote[1], self._next_connection_index)
        self._next_connection_index += 1
        return str(cid)

    # Kafka: Processor.processNewResponses (S14)
    def process_new_responses(self) -> None:
        queue = self.response_queue
        while queue:   # most turns find it empty: no IndexError raised and caught for nothing
            try:
                response = queue.popleft()
            except IndexError:   # cleared meanwhile (RequestChannel.clear at shutdown)
                return
            connection_id = response.request.context.connection_id
            response.request.response_dequeue_time_nanos = self.time.nanoseconds()
            response.request.trace.hop("response-dequeued", f"Processor {self.id}, {response.response_action.name}")
            try:
                action = response.response_action
                if action is NoOpAction:
                    # acks=0: nothing to write, just read the next request
                    response.request.update_request_metrics()
                    if self.is_trace_enabled():
                        self.trace(f"Socket server received empty response to send, registering for read: {response}")
                    self.handle_channel_mute_event(connection_id, ChannelMuteEvent.RESPONSE_SENT)
                    self.try_unmute_channel(connection_id)
                elif action is SendAction:
                    self.send_response(response, response.response_send)
                elif action is StartThrottlingAction:
                    # Kafka: case _: StartThrottlingResponse -- the channel stays muted past its response
                    self.handle_channel_mute_event(connection_id, ChannelMuteEvent.THROTTLE_STARTED)
                elif action is EndThrottlingAction:
                    # Kafka: case _: EndThrottlingResponse -- throttle time over: read again if the response is out
                    self.handle_channel_mute_event(connection_id, ChannelMuteEvent.THROTTLE_ENDED)
                    self.try_unmute_channel(connection_id)
                elif action is CloseConnectionAction:
                    response.request.update_request_metrics()
                    self.trace("Closing socket connection actively according to the response code.")
                    self.close(connection_id)
                else:
                    raise ValueError(f"Unknown response action {action}")
            except Exception as e:  # noqa: BLE001
                self.process_channel_exception(connection_id, f"Exception while processing response for {connection_id}", e)

    # Kafka: Processor.sendResponse -- hand the bytes to the selector; remember it until sent.
    def send_response(self, response, response_send) -> None:
        connection_id = response.request.context.connection_id
        if self.selector.channel(connection_id) is None and self.selector.closing_channel(connection_id) is None:
            self.warn(f"Attempting to send response via channel for which there is no open connection, "
                      f"connection id {connection_id}")
            response.request.update_request_metrics()
            return
        self.selector.send(response_send)
        self.inflight_responses[connection_id] = response

    # Kafka: Processor.poll
    def poll(self) -> None:
        timeout = 0 if self.new_connections else 300
        try:
            self.selector.poll(timeout)
        except (OSError, ValueError) as e:
            self.error(f"Processor {self.id} poll failed: {e}")

    # Kafka's NetworkProcessorAvgIdlePercent averages the Selectors' io-wait-ratio: the time a Processor
    # spends waiting in select, not reading, writing or sending files (S7).
    @property
    def idle_nanos(self) -> int:
        return self.selector.io_wait_time_nanos

    # Kafka: Processor.processCompletedReceives -- parse, queue, mute (S13).
    def process_completed_receives(self) -> None:
        for receive in self.selector.completed_receives:
            connection_id = receive.source
            try:
                channel = self.open_or_closing_channel(connection_id)
                if channel is None:
                    raise RuntimeError(f"Channel {connection_id} removed from selector before processing completed receive")
                payload = receive.payload()
                # (both KIP-368 checks need an authenticator; every broker channel has one, a trivial one
                # without SASL, so this guards channels built by hand in tests)
                if channel.authenticator is not None:
                    # Kafka: a SaslHandshake on an authenticated SASL connection may begin re-authentication
                    if payload[:2] == b"\x00\x11" and \
                            channel.maybe_begin_server_reauthentication(bytes(payload), self.time.nanoseconds()):
                        self.trace(f"Began re-authentication: {channel}")
                        receive.release()
                        continue
                    # Kafka: a SASL session past connections.max.reauth.ms is closed at its next request
                    if channel.server_authentication_session_expired(self.time.nanoseconds()):
                        self.debug(f"Disconnecting expired channel: {channel}")
                        receive.release()
                        self.close(connection_id)
                        continue
                header, body_offset = self.parse_request_header(payload)
                context = RequestContext(header, connection_id, remote_host_of(connection_id),
                                         self.listener_name, self.security_protocol,
                                         principal=channel.principal())
                request = Request(self.id, context, self.time.nanoseconds(), payload, body_offset,
                                  from_control_plane=self.control_plane, release=receive.release)
                if request.trace.enabled:
                    accepted = self.accept_trace.pop(connection_id, None)
                    if accepted is not None:
                        request.trace.hop("accepted", "connection's first request", *accepted)
                    request.trace.hop("read", f"Processor {self.id}", at_nanos=request.start_time_nanos)
                self.request_channel.send_request(request)
                self.selector.mute(connection_id)
                channel.handle_channel_mute_event(ChannelMuteEvent.REQUEST_RECEIVED)   # Kafka: Processor.handleChannelMuteEvent
            except Exception as e:  # noqa: BLE001 -- an unparseable request closes this connection only (S17)
                receive.release()
                self.process_channel_exception(connection_id, f"Exception while processing request from {connection_id}", e)

    # Kafka 2.7: Processor.parseRequestHeader
    @staticmethod
    def parse_request_header(payload: memoryview):
        try:
            return RequestHeader.parse(payload)
        except InvalidRequestException as e:
            best_guess = int.from_bytes(payload[:2], "big", signed=True) if len(payload) >= 2 else None
            raise InvalidRequestException(f"Error parsing request header. Our best guess of the apiKey is: "
                                          f"{best_guess}: {e}") from e

    # Kafka: Processor.processCompletedSends -- the response is out: read the next request (S16).
    def process_completed_sends(self) -> None:
        for send in self.selector.completed_sends:
            connection_id = send.destination
            try:
                response = self.inflight_responses.pop(connection_id, None)
                if response is None:
                    raise RuntimeError(f"Send for {connection_id} completed, but not in `inflightResponses`")
                response.request.update_request_metrics()
                if response.on_complete is not None:
                    response.on_complete(send)
                self.handle_channel_mute_event(connection_id, ChannelMuteEvent.RESPONSE_SENT)
                self.try_unmute_channel(connection_id)
            except Exception as e:  # noqa: BLE001
                self.process_channel_exception(connection_id, f"Exception while processing completed send to {connection_id}", e)

    # Kafka: Processor.processDisconnected
    def process_disconnected(self) -> None:
        if not self.selector.disconnected:
            return
        for connection_id in list(self.selector.disconnected):
            try:
                remote_host = ConnectionId.from_string(connection_id).remote_host
                self._forget_inflight_response(connection_id)
                self.accept_trace.pop(connection_id, None)
                self.connection_quotas.dec(self.listener_name, remote_host)
            except Exception as e:  # noqa: BLE001
                self.process_exception(f"Exception while processing disconnection of {connection_id}", e)

    # Kafka: inflightResponses.remove(connectionId).foreach(updateRequestMetrics) -- a response that was being
    # sent when its connection went away still counts in the request metrics and the request log
    def _forget_inflight_response(self, connection_id: str) -> None:
        response = self.inflight_responses.pop(connection_id, None)
        if response is not None:
            response.request.update_request_metrics()

    # Kafka: Processor.handleChannelMuteEvent
    def handle_channel_mute_event(self, connection_id: str, event: ChannelMuteEvent) -> None:
        channel = self.open_or_closing_channel(connection_id)
        if channel is not None:
            channel.handle_channel_mute_event(event)

    # Kafka: Processor.tryUnmuteChannel
    def try_unmute_channel(self, connection_id: str) -> None:
        if self.open_or_closing_channel(connection_id) is not None:
            self.selector.unmute(connection_id)

    # Kafka: Processor.processChannelException -- close the one connection, log why.
    def process_channel_exception(self, connection_id: str, error_message: str, e: Exception) -> None:
        if self.open_or_closing_channel(connection_id) is not None:
            self.error(f"Closing socket for {connection_id} because of error: {error_message}: "
                       f"{type(e).__name__}: {e}")
            self.close(connection_id)
        self.process_exception(error_message, e, log=False)

    def process_exception(self, error_message: str, e: Exception, log: bool = True) -> None:
        if log:
            self.error(f"{error_message}: {type(e).__name__}: {e}")

    # Kafka: Processor.close(connectionId)
    def close(self, connection_id: str) -> None:
        if self.open_or_closing_channel(connection_id) is not None:
            self.debug(f"Closing selector connection {connection_id}")
            remote_host = ConnectionId.from_string(connection_id).remote_host
            self.connection_quotas.dec(self.listener_name, remote_host)
            self.selector.close_connection(connection_id)
            self._forget_inflight_response(connection_id)
            self.accept_trace.pop(connection_id, None)

    def _close_socket(self, sock: socket.socket, remote_host: str) -> None:
        self.connection_quotas.dec(self.listener_name, remote_host)
        sock.close()

    # Kafka: Processor.enqueueResponse -- called by handler threads; wakes this Processor.
    # Kafka wakes the selector for every response; here only the response that makes the queue
    # non-empty does (the Processor drains the whole queue each turn), which saves a syscall per
    # response under load. The lock makes "append, then look at the length" one step for the
    # handler threads, so two of them can never both see a length of 2 and both skip the wakeup.
    def enqueue_response(self, response) -> None:
        response.request.response_complete_time_nanos = self.time.nanoseconds()
        response.request.trace.hop("response-queued", f"Processor {self.id}'s response queue")
        with self._enqueue_lock:
            self.response_queue.append(response)
            first = len(self.response_queue) == 1
        if first:
            self.wakeup()

    def response_queue_size(self) -> int:
        return len(self.response_queue)

    def clear_response_queue(self) -> None:
        self.response_queue.clear()

    def wakeup(self) -> None:
        self.selector.wakeup()

    # Kafka: Processor.closeAll
    def close_all(self) -> None:
        while self.new_connections:
            sock, remote_address = self.new_connections.popleft()
            self._close_socket(sock, remote_address[0])
        for connection_id in list(self.selector.channels):
            self.close(connection_id)
        self.selector.close()

    # Kafka: Processor.openOrClosingChannel -- a connection may still be closing with requests to answer
    def open_or_closing_channel(self, connection_id: str):
        return self.selector.channel(connection_id) or self.selector.closing_channel(connection_id)

    # visible for testing (Kafka: Processor.numStagedReceives)
    def num_staged_receives(self, connection_id: str) -> int:
        channel = self.open_or_closing_channel(connection_id)
        return self.selector.num_staged_receives(channel) if channel is not None else 0


class TooManyConnectionsException(Exception):
    """Kafka: TooManyConnectionsException."""

    def __init__(self, ip: str, count: int):
        super().__init__(f"Too many connections from {ip} (maximum = {count})")
        self.ip = ip
        self.count = count


class ConnectionQuotas:
    """Kafka: ConnectionQuotas -- connection counts per IP and per listener (S24).

    ``max.connections.per.ip`` refuses the (N+1)th connection from one address;
    ``max.connections.per.ip.overrides`` sets other limits for given hosts; ``max.connections`` caps
    each listener, and the Acceptor waits for a free slot, except on the inter-broker listener,
    which Kafka protects so brokers can always talk to each other. The limits can change while the
    broker runs (``update_max_connections_per_ip`` and friends, called by dynamic broker configs).
    """

    def __init__(self, config):
        self.default_max_connections_per_ip = config.max_connections_per_ip
        self.max_connections_per_ip_overrides = dict(config.max_connections_per_ip_overrides)
        self.broker_max_connections = config.max_connections
        self.inter_broker_listener_name = config.inter_broker_listener_name
        self.counts: dict[str, int] = {}
        self.listener_counts: dict[str, int] = {}
        self._cond = threading.Condition()

    def add_listener(self, listener_name: str) -> None:
        with self._cond:
            self.listener_counts.setdefault(listener_name, 0)

    def remove_listener(self, listener_name: str) -> None:
        with self._cond:
            self.listener_counts.pop(listener_name, None)

    def max_connections_per_ip(self, address: str) -> int:
        return self.max_connections_per_ip_overrides.get(address, self.default_max_connections_per_ip)

    # Kafka: ConnectionQuotas.inc
    def inc(self, listener_name: str, address: str, still_running=lambda: True) -> None:
        with self._cond:
            self._wait_for_connection_slot(listener_name, still_running)
            count = self.counts.get(address, 0) + 1
            limit = self.max_connections_per_ip(address)
            if count > limit:
                raise TooManyConnectionsException(address, limit)
            self.counts[address] = count
            self.listener_counts[listener_name] = self.listener_counts.get(listener_name, 0) + 1

    # Kafka: ConnectionQuotas.waitForConnectionSlot -- the Acceptor waits until a connection closes
    # (checking every half second that it is still running, so shutdown is never stuck).
    def _wait_for_connection_slot(self, listener_name: str, still_running) -> None:
        if listener_name == self.inter_broker_listener_name and len(self.listener_counts) > 1:
            return   # the protected listener: brokers can always reach each other
        while sum(self.listener_counts.values()) >= self.broker_max_connections:
            if not still_running():
                raise TooManyConnectionsException(f"listener {listener_name}", self.broker_max_connections)
            self._cond.wait(0.5)

    # Kafka: ConnectionQuotas.dec
    def dec(self, listener_name: str, address: str) -> None:
        with self._cond:
            count = self.counts.get(address)
            if count is None:
                logging.getLogger("kafka.network.ConnectionQuotas").error(
                    "Attempted to decrease connection count for address with no connections, address: %s", address)
                return
            if count == 1:
                del self.counts[address]
            else:
                self.counts[address] = count - 1
            if listener_name in self.listener_counts and self.listener_counts[listener_name] > 0:
                self.listener_counts[listener_name] -= 1
            self._cond.notify_all()

    # Kafka: ConnectionQuotas.get
    def get(self, address: str) -> int:
        with self._cond:
            return self.counts.get(address, 0)

    # Kafka: ConnectionQuotas.updateMaxConnectionsPerIp / updateMaxConnectionsPerIpOverride / updateBrokerMaxConnections
    def update_max_connections_per_ip(self, max_connections_per_ip: int) -> None:
        with self._cond:
            self.default_max_connections_per_ip = max_connections_per_ip

    def update_max_connections_per_ip_override(self, overrides: dict[str, int]) -> None:
        with self._cond:
            self.max_connections_per_ip_overrides = dict(overrides)

    def update_broker_max_connections(self, max_connections: int) -> None:
        with self._cond:
            self.broker_max_connections = max_connections
            self._cond.notify_all()
