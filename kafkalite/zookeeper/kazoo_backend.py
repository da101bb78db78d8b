"""No Kafka counterpart: the real-ZooKeeper backend of ``ZooKeeperClient``, over the ``kazoo`` package.

Kafka's ZooKeeperClient wraps ``org.apache.zookeeper.ZooKeeper``; kafkalite's wraps one ``kazoo.client.KazooClient``
per session behind the same small interface ``LocalSession`` offers (create/delete/exists/get_data/set_data/
get_children/multi/close, results as ``Code`` values). Selected when ``zookeeper.connect`` is set, e.g.
``127.0.0.1:2181,127.0.0.1:2182/kafka``; a missing chroot is created first, as Kafka's ``KafkaServer.initZkClient``
does. ``kazoo`` is imported lazily (the optional ``zk`` extra).

Events: kazoo calls watch functions on its one event thread; they are turned into ``WatchedEvent``s. A ``LOST``
session state (the server expired the session) becomes ``Expired``, after which ``ZooKeeperClient`` closes this
session and opens a new one, as Kafka does.

Left out: ACLs, SASL, and the read-only mode.
"""
from __future__ import annotations

import threading

from kafkalite.zookeeper.zoo_keeper_client import (
    CheckOp, Code, CreateOp, DeleteOp, EventType, KeeperException, KeeperState, OpResult, SetDataOp, Stat,
    WatchedEvent,
)

_EVENT_TYPES = {"CREATED": EventType.NODE_CREATED, "DELETED": EventType.NODE_DELETED,
                "CHANGED": EventType.NODE_DATA_CHANGED, "CHILD": EventType.NODE_CHILDREN_CHANGED}


def _code(exc: Exception) -> Code:
    try:
        return Code(getattr(exc, "code"))
    except (AttributeError, ValueError):
        return Code.SYSTEMERROR


def _stat(zstat) -> Stat | None:
    if zstat is None:
        return None
    return Stat(czxid=zstat.czxid, mzxid=zstat.mzxid, ctime=zstat.ctime, mtime=zstat.mtime, version=zstat.version,
                cversion=zstat.cversion, aversion=zstat.aversion, ephemeral_owner=zstat.ephemeralOwner,
                data_length=zstat.dataLength, num_children=zstat.numChildren, pzxid=zstat.pzxid)


def split_connect_string(connect_string: str) -> tuple[str, str]:
    """``"h1:2181,h2:2181/kafka"`` → ``("h1:2181,h2:2181", "/kafka")``; no chroot → ``""``."""
    slash = connect_string.find("/")
    if slash < 0:
        return connect_string, ""
    return connect_string[:slash], connect_string[slash:].rstrip("/")


class KazooSession:
    """One ZooKeeper session held by one KazooClient."""

    def __init__(self, connect_string: str, watcher, session_timeout_ms: int, connection_timeout_s: float):
        from kazoo.client import KazooClient, KazooState

        self._lost_state = KazooState.LOST
        self.watcher = watcher
        self._closed = False
        self.client = KazooClient(hosts=connect_string, timeout=session_timeout_ms / 1000.0)
        self.client.start(timeout=connection_timeout_s)
        self.session_id = self.client.client_id[0]
        self.client.add_listener(self._on_state)

    def _on_state(self, state) -> None:  # kazoo's connection thread: never block here
        if state == self._lost_state and not self._closed and self.watcher is not None:
            self.watcher(WatchedEvent(EventType.NONE, KeeperState.EXPIRED, None))

    def _on_watch(self, event) -> None:  # kazoo's event thread
        event_type = _EVENT_TYPES.get(event.type)
        if event_type is not None and not self._closed and self.watcher is not None:
            self.watcher(WatchedEvent(event_type, KeeperState.SYNC_CONNECTED, event.path))

    def _call(self, fn, *args, **kwargs):
        from kazoo.exceptions import KazooException

        try:
            return Code.OK, fn(*args, **kwargs)
        except KazooException as e:
            code = _code(e)
            if code in (Code.CONNECTIONLOSS, Code.SESSIONEXPIRED):
                raise KeeperException(code) from e
            return code, None

    def create(self, path, data, ephemeral=False, sequential=False):
        code, result = self._call(self.client.create, path, data or b"", ephemeral=ephemeral, sequence=sequential,
                                  include_data=True)
        return (code, None, None) if result is None else (code, result[0], _stat(result[1]))

    def delete(self, path, version=-1):
        return self._call(self.client.delete, path, version=version)[0]

    def exists(self, path, watch=False):
        code, zstat = self._call(self.client.exists, path, watch=self._on_watch if watch else None)
        return (Code.NONODE, None) if code == Code.OK and zstat is None else (code, _stat(zstat))

    def get_data(self, path, watch=False):
        code, result = self._call(self.client.get, path, watch=self._on_watch if watch else None)
        return (code, None, None) if result is None else (code, result[0], _stat(result[1]))

    def set_data(self, path, data, version=-1):
        code, zstat = self._call(self.client.set, path, data or b"", version=version)
        return code, _stat(zstat)

    def get_children(self, path, watch=False):
        code, result = self._call(self.client.get_children, path, watch=self._on_watch if watch else None,
                                  include_data=True)
        return (code, None, None) if result is None else (code, sorted(result[0]), _stat(result[1]))

    def multi(self, ops):
        txn = self.client.transaction()
        for op in ops:
            if isinstance(op, CreateOp):
                txn.create(op.path, op.data or b"", ephemeral=op.ephemeral, sequence=op.sequential)
            elif isinstance(op, DeleteOp):
                txn.delete(op.path, op.version)
            elif isinstance(op, SetDataOp):
                txn.set_data(op.path, op.data or b"", op.version)
            elif isinstance(op, CheckOp):
                txn.check(op.path, op.version)
            else:
                raise TypeError(f"unknown op {op!r}")
        code, raw = self._call(txn.commit)
        if raw is None:
            return code, [OpResult(code) for _ in ops]
        results, first_error = [], Code.OK
        for op, r in zip(ops, raw):
            if isinstance(r, Exception):
                c = _code(r)
                results.append(OpResult(c))
                if c != Code.OK and first_error == Code.OK:
                    first_error = c
            elif isinstance(op, CreateOp):
                results.append(OpResult(Code.OK, name=r))
            elif isinstance(op, SetDataOp):
                results.append(OpResult(Code.OK, stat=_stat(r)))
            else:
                results.append(OpResult(Code.OK))
        return first_error, results

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.client.stop()
            self.client.close()
        except Exception:  # closing a client whose session is already gone
            pass


class KazooBackend:
    """A factory of ``KazooSession``s for one ``zookeeper.connect`` string."""

    def __init__(self, connect_string: str, connection_timeout_s: float = 18.0):
        try:
            import kazoo  # noqa: F401
        except ImportError as e:
            raise RuntimeError("zookeeper.connect is set but the 'kazoo' package is missing: "
                               "pip install 'kafkalite[zk]'") from e
        self.connect_string = connect_string
        self.connection_timeout_s = connection_timeout_s
        self._chroot_checked = False
        self._lock = threading.Lock()

    def _ensure_chroot(self) -> None:
        hosts, chroot = split_connect_string(self.connect_string)
        if chroot and not self._chroot_checked:
            from kazoo.client import KazooClient

            client = KazooClient(hosts=hosts)
            client.start(timeout=self.connection_timeout_s)
            try:
                client.ensure_path(chroot)
            finally:
                client.stop()
                client.close()
        self._chroot_checked = True

    def connect(self, watcher, session_timeout_ms: int = 6000) -> KazooSession:
        with self._lock:
            self._ensure_chroot()
        return KazooSession(self.connect_string, watcher, session_timeout_ms, self.connection_timeout_s)

    def release(self) -> None:
        pass
