"""Mirrors Kafka 2.4: core/src/main/scala/kafka/zookeeper/ZooKeeperClient.scala

Classes:
- ZooKeeper's own vocabulary, which Kafka imports from ``org.apache.zookeeper``: ``Code`` (result codes),
  ``Stat``, ``EventType``/``KeeperState``/``WatchedEvent``, and the multi ops ``CreateOp``, ``DeleteOp``,
  ``SetDataOp``, ``CheckOp`` with their ``OpResult``.
- Kafka's request/response pairs: ``CreateRequest``/``CreateResponse``, ``DeleteRequest``, ``ExistsRequest``,
  ``GetDataRequest``, ``SetDataRequest``, ``GetChildrenRequest``, ``MultiRequest`` (and responses).
- Kafka's handler traits: ``StateChangeHandler``, ``ZNodeChangeHandler``, ``ZNodeChildChangeHandler``.
- ``ZooKeeperClient``: the handler registry, one-shot watch re-arming and session re-initialisation.

How watches work (as in Kafka): a handler is registered *by path*. ZooKeeper watches are one-shot; they are set
only as a side effect of a read: ``ExistsRequest``/``GetDataRequest`` on a path that has a ``ZNodeChangeHandler``,
``GetChildrenRequest(register_watch=True)`` on a path with a ``ZNodeChildChangeHandler``. When the watch fires,
the handler is called (on the backend's event thread) and must re-read the path to re-arm it.

Backends (chosen from ``connect_string``): empty or ``embedded`` selects the in-process ``LocalZooKeeper`` (under
``data_dir``), ``embedded:<dir>`` the one under ``<dir>`` (so several brokers in one process share one store and
form a cluster); anything else (``host:port[,host:port][/chroot]``) selects ``KazooBackend`` over a real ZooKeeper.

Left out: ACLs (every node is world-readable, as Kafka without ``zookeeper.set.acl``), SASL/auth-failure events,
the max-in-flight request pipelining (requests in one ``handle_requests`` call run one after the other),
``GetAclRequest``/``SetAclRequest``, and the JMX metrics.
"""
from __future__ import annotations

import enum
import threading
from typing import Any, Sequence

import attrs

from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM, Time


# ---------------------------------------------------------------- ZooKeeper's vocabulary (org.apache.zookeeper)

class Code(enum.IntEnum):
    """ZooKeeper's KeeperException.Code values (the subset a broker can meet)."""

    OK = 0
    SYSTEMERROR = -1
    RUNTIMEINCONSISTENCY = -2
    CONNECTIONLOSS = -4
    BADARGUMENTS = -8
    NONODE = -101
    NOAUTH = -102
    BADVERSION = -103
    NOCHILDRENFOREPHEMERALS = -108
    NODEEXISTS = -110
    NOTEMPTY = -111
    SESSIONEXPIRED = -112


class KeeperException(Exception):
    """ZooKeeper's KeeperException, carrying the result code and the path."""

    def __init__(self, code: Code, path: str | None = None):
        super().__init__(f"KeeperErrorCode = {code.name}" + (f" for {path}" if path else ""))
        self.code = code
        self.path = path


@attrs.frozen
class Stat:
    """ZooKeeper's Stat: the zxids and versions of one znode."""

    czxid: int = 0
    mzxid: int = 0
    ctime: int = 0
    mtime: int = 0
    version: int = 0
    cversion: int = 0
    aversion: int = 0
    ephemeral_owner: int = 0
    data_length: int = 0
    num_children: int = 0
    pzxid: int = 0


class EventType(enum.Enum):
    NONE = "None"
    NODE_CREATED = "NodeCreated"
    NODE_DELETED = "NodeDeleted"
    NODE_DATA_CHANGED = "NodeDataChanged"
    NODE_CHILDREN_CHANGED = "NodeChildrenChanged"


class KeeperState(enum.Enum):
    SYNC_CONNECTED = "SyncConnected"
    DISCONNECTED = "Disconnected"
    EXPIRED = "Expired"
    CLOSED = "Closed"


@attrs.frozen
class WatchedEvent:
    type: EventType
    state: KeeperState = KeeperState.SYNC_CONNECTED
    path: str | None = None


# Multi ops (ZooKeeper's Op.create/delete/setData/check), as Kafka's ZkOp wrappers name them.
@attrs.frozen
class CreateOp:
    path: str
    data: bytes | None = None
    ephemeral: bool = False
    sequential: bool = False


@attrs.frozen
class DeleteOp:
    path: str
    version: int = -1


@attrs.frozen
class SetDataOp:
    path: str
    data: bytes | None
    version: int = -1


@attrs.frozen
class CheckOp:
    path: str
    version: int


@attrs.frozen
class OpResult:
    """One op's result inside a multi: ``name`` for creates, ``stat`` for setData. In a failed multi the ops
    before the failing one report ``Code.OK`` (rolled back) and the ones after it ``RUNTIMEINCONSISTENCY``."""

    code: Code
    name: str | None = None
    stat: Stat | None = None


# ---------------------------------------------------------------- Kafka's requests and responses

class AsyncRequest:
    path: str


@attrs.frozen
class CreateRequest(AsyncRequest):
    path: str
    data: bytes | None = None
    ephemeral: bool = False
    sequential: bool = False
    ctx: Any = None


@attrs.frozen
class DeleteRequest(AsyncRequest):
    path: str
    version: int = -1
    ctx: Any = None


@attrs.frozen
class ExistsRequest(AsyncRequest):
    path: str
    ctx: Any = None


@attrs.frozen
class GetDataRequest(AsyncRequest):
    path: str
    ctx: Any = None


@attrs.frozen
class SetDataRequest(AsyncRequest):
    path: str
    data: bytes | None
    version: int = -1
    ctx: Any = None


@attrs.frozen
class GetChildrenRequest(AsyncRequest):
    path: str
    register_watch: bool = True
    ctx: Any = None


@attrs.frozen
class MultiRequest(AsyncRequest):
    zk_ops: Sequence[Any]
    ctx: Any = None

    @property
    def path(self) -> str | None:
        return None


class AsyncResponse:
    result_code: Code
    path: str | None

    # Kafka: AsyncResponse.resultException
    def result_exception(self) -> KeeperException | None:
        return None if self.result_code == Code.OK else KeeperException(self.result_code, self.path)

    # Kafka: AsyncResponse.maybeThrow
    def maybe_throw(self) -> None:
        exc = self.result_exception()
        if exc is not None:
            raise exc


@attrs.frozen
class CreateResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None
    name: str | None = None
    stat: Stat | None = None


@attrs.frozen
class DeleteResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None


@attrs.frozen
class ExistsResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None
    stat: Stat | None = None


@attrs.frozen
class GetDataResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None
    data: bytes | None = None
    stat: Stat | None = None


@attrs.frozen
class SetDataResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None
    stat: Stat | None = None


@attrs.frozen
class GetChildrenResponse(AsyncResponse):
    result_code: Code
    path: str
    ctx: Any = None
    children: list[str] = attrs.field(factory=list)
    stat: Stat | None = None


@attrs.frozen
class MultiResponse(AsyncResponse):
    result_code: Code
    path: str | None
    ctx: Any = None
    zk_op_results: list[OpResult] = attrs.field(factory=list)


# ---------------------------------------------------------------- Kafka's handler traits

class StateChangeHandler:
    """Kafka: StateChangeHandler -- told before and after the client replaces an expired session."""

    name: str = "state-change-handler"

    def before_initializing_session(self) -> None:
        pass

    def after_initializing_session(self) -> None:
        pass


class ZNodeChangeHandler:
    """Kafka: ZNodeChangeHandler -- creation, deletion and data change of one path."""

    path: str

    def handle_creation(self) -> None:
        pass

    def handle_deletion(self) -> None:
        pass

    def handle_data_change(self) -> None:
        pass


class ZNodeChildChangeHandler:
    """Kafka: ZNodeChildChangeHandler -- the children of one path changed."""

    path: str

    def handle_child_change(self) -> None:
        pass


# ---------------------------------------------------------------- the client

EMBEDDED_PREFIX = "embedded:"


def is_embedded(connect_string: str | None) -> bool:
    return not connect_string or connect_string.strip() in ("", "embedded") \
        or connect_string.strip().startswith(EMBEDDED_PREFIX)


def embedded_data_dir(connect_string: str | None, default: str | None) -> str | None:
    """The in-process store's directory: ``<dir>`` of ``embedded:<dir>``, else ``default``."""
    cs = (connect_string or "").strip()
    return cs[len(EMBEDDED_PREFIX):] if cs.startswith(EMBEDDED_PREFIX) else default


class ZooKeeperClient(Logging):
    """Kafka: ZooKeeperClient -- requests in, responses out; handlers by path; re-init on session expiry.

    ``backend`` may be passed directly (tests share one ``LocalZooKeeper``); otherwise it is chosen from
    ``connect_string`` (see the module docstring).
    """

    def __init__(self, connect_string: str | None, session_timeout_ms: int = 6000, time: Time = SYSTEM,
                 data_dir: str | None = None, backend: Any = None, name: str = ""):
        self.connect_string = connect_string or "embedded"
        self.session_timeout_ms = session_timeout_ms
        self.time = time
        self.name = name
        self.log_ident = f"[ZooKeeperClient{(' ' + name) if name else ''}] "
        self._owns_backend = backend is None
        if backend is None:
            if is_embedded(connect_string):
                from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper
                backend = LocalZooKeeper.open(embedded_data_dir(connect_string, data_dir), time)
            else:
                from kafkalite.zookeeper.kazoo_backend import KazooBackend
                backend = KazooBackend(connect_string)
        self.backend = backend
        self.znode_change_handlers: dict[str, ZNodeChangeHandler] = {}
        self.znode_child_change_handlers: dict[str, ZNodeChildChangeHandler] = {}
        self.state_change_handlers: dict[str, StateChangeHandler] = {}
        self._initialization_lock = threading.RLock()
        self._closed = False
        self._expiry_threads = 0
        self.info(f"Initializing a new session to {self.connect_string}.")
        self.zoo_keeper = self.backend.connect(self._process_event, session_timeout_ms)

    # Kafka: ZooKeeperClient.sessionId
    @property
    def session_id(self) -> int:
        return self.zoo_keeper.session_id

    # Kafka: ZooKeeperClient.handleRequest
    def handle_request(self, request: AsyncRequest) -> AsyncResponse:
        return self.handle_requests([request])[0]

    # Kafka: ZooKeeperClient.handleRequests
    def handle_requests(self, requests: Sequence[AsyncRequest]) -> list[AsyncResponse]:
        with self._initialization_lock:
            if self._closed:
                raise RuntimeError("ZooKeeperClient is closed")
            if len(requests) < 2 or not hasattr(self.zoo_keeper, "group_commit"):
                return [self._send(self.zoo_keeper, r) for r in requests]
            # pipelined requests, as Kafka sends them: the embedded store fsyncs the batch once (a real
            # ZooKeeper server group-commits them in its SyncRequestProcessor the same way)
            with self.zoo_keeper.group_commit():
                return [self._send(self.zoo_keeper, r) for r in requests]

    # Kafka: ZooKeeperClient.send
    def _send(self, zk: Any, request: AsyncRequest) -> AsyncResponse:
        try:
            if isinstance(request, CreateRequest):
                code, name, stat = zk.create(request.path, request.data, request.ephemeral, request.sequential)
                return CreateResponse(code, request.path, request.ctx, name, stat)
            if isinstance(request, DeleteRequest):
                return DeleteResponse(zk.delete(request.path, request.version), request.path, request.ctx)
            if isinstance(request, ExistsRequest):
                code, stat = zk.exists(request.path, self._should_watch(request))
                return ExistsResponse(code, request.path, request.ctx, stat)
            if isinstance(request, GetDataRequest):
                code, data, stat = zk.get_data(request.path, self._should_watch(request))
                return GetDataResponse(code, request.path, request.ctx, data, stat)
            if isinstance(request, SetDataRequest):
                code, stat = zk.set_data(request.path, request.data, request.version)
                return SetDataResponse(code, request.path, request.ctx, stat)
            if isinstance(request, GetChildrenRequest):
                code, children, stat = zk.get_children(request.path, self._should_watch(request))
                return GetChildrenResponse(code, request.path, request.ctx, children or [], stat)
            if isinstance(request, MultiRequest):
                code, results = zk.multi(list(request.zk_ops))
                return MultiResponse(code, None, request.ctx, results)
        except KeeperException as e:  # connection loss / expiry surface as result codes, as in Kafka
            return _error_response(request, e.code)
        raise TypeError(f"unknown request {request!r}")

    # Kafka: ZooKeeperClient.shouldWatch
    def _should_watch(self, request: AsyncRequest) -> bool:
        if isinstance(request, GetChildrenRequest):
            return request.register_watch and request.path in self.znode_child_change_handlers
        if isinstance(request, (ExistsRequest, GetDataRequest)):
            return request.path in self.znode_change_handlers
        raise ValueError(f"Request {request} is not watchable")

    # Kafka: ZooKeeperClient.registerZNodeChangeHandler
    def register_znode_change_handler(self, handler: ZNodeChangeHandler) -> None:
        self.znode_change_handlers[handler.path] = handler

    # Kafka: ZooKeeperClient.unregisterZNodeChangeHandler
    def unregister_znode_change_handler(self, path: str) -> None:
        self.znode_change_handlers.pop(path, None)

    # Kafka: ZooKeeperClient.registerZNodeChildChangeHandler
    def register_znode_child_change_handler(self, handler: ZNodeChildChangeHandler) -> None:
        self.znode_child_change_handlers[handler.path] = handler

    # Kafka: ZooKeeperClient.unregisterZNodeChildChangeHandler
    def unregister_znode_child_change_handler(self, path: str) -> None:
        self.znode_child_change_handlers.pop(path, None)

    # Kafka: ZooKeeperClient.registerStateChangeHandler
    def register_state_change_handler(self, handler: StateChangeHandler) -> None:
        self.state_change_handlers[handler.name] = handler

    # Kafka: ZooKeeperClient.unregisterStateChangeHandler
    def unregister_state_change_handler(self, name: str) -> None:
        self.state_change_handlers.pop(name, None)

    # Kafka: ZooKeeperClientWatcher.process -- runs on the backend's event thread
    def _process_event(self, event: WatchedEvent) -> None:
        if event.type == EventType.NONE:
            if event.state == KeeperState.EXPIRED and not self._closed:
                self._schedule_session_expiry_handler()
            return
        path = event.path
        try:
            if event.type == EventType.NODE_CHILDREN_CHANGED:
                handler = self.znode_child_change_handlers.get(path)
                if handler is not None:
                    handler.handle_child_change()
            else:
                handler = self.znode_change_handlers.get(path)
                if handler is not None:
                    if event.type == EventType.NODE_CREATED:
                        handler.handle_creation()
                    elif event.type == EventType.NODE_DELETED:
                        handler.handle_deletion()
                    elif event.type == EventType.NODE_DATA_CHANGED:
                        handler.handle_data_change()
        except Exception as e:  # a handler must never kill the event thread
            self.error(f"Handler for {event.type.value} on {path} failed: {e!r}", exc_info=e)

    # Kafka: ZooKeeperClient.scheduleSessionExpiryHandler (the "zk-session-expiry-handler" thread)
    def _schedule_session_expiry_handler(self) -> None:
        name = f"zk-session-expiry-handler{self._expiry_threads}"
        self._expiry_threads += 1
        threading.Thread(target=self._reinitialize, name=name, daemon=True).start()

    # Kafka: ZooKeeperClient.reinitialize
    def _reinitialize(self) -> None:
        for handler in list(self.state_change_handlers.values()):
            handler.before_initializing_session()
        with self._initialization_lock:
            if self._closed:
                return
            self.info("Session expired; initializing a new session.")
            self.zoo_keeper.close()
            self.zoo_keeper = self.backend.connect(self._process_event, self.session_timeout_ms)
        for handler in list(self.state_change_handlers.values()):
            handler.after_initializing_session()

    # Kafka: ZooKeeperClient.forceReinitialize (for tests)
    def force_reinitialize(self) -> None:
        self._reinitialize()

    # Kafka: ZooKeeperClient.close
    def close(self) -> None:
        with self._initialization_lock:
            if self._closed:
                return
            self._closed = True
            self.info("Closing.")
            self.znode_change_handlers.clear()
            self.znode_child_change_handlers.clear()
            self.state_change_handlers.clear()
            self.zoo_keeper.close()
            if self._owns_backend:
                self.backend.release()
        self.info("Closed.")


def _error_response(request: AsyncRequest, code: Code) -> AsyncResponse:
    if isinstance(request, CreateRequest):
        return CreateResponse(code, request.path, request.ctx)
    if isinstance(request, DeleteRequest):
        return DeleteResponse(code, request.path, request.ctx)
    if isinstance(request, ExistsRequest):
        return ExistsResponse(code, request.path, request.ctx)
    if isinstance(request, GetDataRequest):
        return GetDataResponse(code, request.path, request.ctx)
    if isinstance(request, SetDataRequest):
        return SetDataResponse(code, request.path, request.ctx)
    if isinstance(request, GetChildrenRequest):
        return GetChildrenResponse(code, request.path, request.ctx)
    return MultiResponse(code, None, getattr(request, "ctx", None))

