"""No Kafka counterpart: an in-process stand-in for a ZooKeeper server, so one broker needs no external process.

Kafka 2.4 always talks to a real ZooKeeper; its tests start an ``EmbeddedZookeeper`` in the test JVM. kafkalite's
default (``zookeeper.connect`` empty or ``embedded``) is this class: the ZooKeeper semantics the controller relies on
(research/controller.md §4), inside the broker process and persisted under the log dir.

Classes: ``LocalZooKeeper`` (the tree, sessions, watches, persistence); its ``LocalSession`` (one client session; the
backend interface ``ZooKeeperClient`` drives, shared with ``KazooBackend``) is in local_session.py.

Semantics kept from ZooKeeper:
- every znode has a ``Stat`` (czxid, mzxid, version, cversion, ephemeral_owner, pzxid, ...); one global zxid counts
  committed transactions (a multi is one transaction, one zxid);
- ephemeral nodes belong to a session and vanish when it is closed or expired, and on restart;
- sequential nodes get a 10-digit suffix taken from the parent's cversion, as ZooKeeper does;
- conditional setData/delete/check (version, or -1 for any); ``multi`` is all-or-nothing;
- one-shot watches: data/exists watches (NodeCreated, NodeDeleted, NodeDataChanged) and child watches
  (NodeChildrenChanged, NodeDeleted), at most one event per session per path; events are queued when the
  transaction commits, in zxid order, and delivered by one dispatcher thread;
- durability: ``<data_dir>/__zookeeper/snapshot.json`` plus ``txn.log`` (one JSON line per transaction, fsync'd);
  open replays both and deletes the ephemerals of the previous run;
- an exclusive ``fcntl`` lock: the store is single-process. Several ``ZooKeeperClient``s in one process share one
  instance through a registry keyed by data dir (``LocalZooKeeper.open``), each with its own session.

Left out: a network server, quorum, ACLs, quotas, containers/TTL nodes, and time-based session expiry (no heartbeats
are lost inside one process; tests call ``expire_session``).
"""
from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import threading
import attrs

from kafkalite.utils.logging import Logging
from kafkalite.zookeeper.local_session import LocalSession
from kafkalite.utils.time import SYSTEM, Time
from kafkalite.zookeeper.zoo_keeper_client import (
    CheckOp, Code, CreateOp, DeleteOp, EventType, KeeperException, KeeperState, OpResult, SetDataOp, Stat,
    WatchedEvent,
)

ZK_DIR = "__zookeeper"
SNAPSHOT_FILE = "snapshot.json"
TXN_LOG_FILE = "txn.log"
LOCK_FILE = "lock"
SNAP_COUNT = 10_000  # transactions in the log before a new snapshot (ZooKeeper's snapCount is 100,000)


class LocalZooKeeperLockedException(RuntimeError):
    """A second process tried to open a data dir whose embedded ZooKeeper is in use."""


_NO_CHILDREN: frozenset[str] = frozenset()


@attrs.define
class _Node:
    data: bytes
    czxid: int
    mzxid: int
    ctime: int
    mtime: int
    version: int = 0
    cversion: int = 0
    ephemeral_owner: int = 0
    pzxid: int = 0
    # a leaf (most znodes: a broker holds two per partition) shares one empty frozenset; the first child makes
    # the node its own set (an empty set costs ~216 B)
    children: set[str] | frozenset[str] = _NO_CHILDREN

    def add_child(self, name: str) -> None:
        if not self.children:
            self.children = set()
        self.children.add(name)

    def discard_child(self, name: str) -> None:
        if self.children:
            self.children.discard(name)

    def stat(self) -> Stat:
        return Stat(czxid=self.czxid, mzxid=self.mzxid, ctime=self.ctime, mtime=self.mtime, version=self.version,
                    cversion=self.cversion, ephemeral_owner=self.ephemeral_owner, data_length=len(self.data),
                    num_children=len(self.children), pzxid=self.pzxid)

    def copy(self) -> "_Node":
        return attrs.evolve(self, children=set(self.children) if self.children else _NO_CHILDREN)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def _check_path(path: str) -> None:
    if not path.startswith("/") or (path != "/" and (path.endswith("/") or "//" in path)):
        raise KeeperException(Code.BADARGUMENTS, path)


def _encode_data(data: bytes) -> dict:
    try:
        return {"data": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"data_b64": base64.b64encode(data).decode("ascii")}


def _decode_data(entry: dict) -> bytes:
    if "data_b64" in entry:
        return base64.b64decode(entry["data_b64"])
    return entry.get("data", "").encode("utf-8")


class LocalZooKeeper(Logging):
    """An in-process znode tree with sessions, versions, one-shot watches and a durable txn log."""

    _registry: dict[str, "LocalZooKeeper"] = {}
    _registry_lock = threading.Lock()

    # ------------------------------------------------------------ life cycle

    @classmethod
    def open(cls, data_dir: str | None, time: Time = SYSTEM) -> "LocalZooKeeper":
        """The shared store for ``data_dir`` (one per process, reference counted); ``None`` → a private in-memory one."""
        if data_dir is None:
            return cls(None, time)
        key = os.path.realpath(data_dir)
        with cls._registry_lock:
            zk = cls._registry.get(key)
            if zk is None:
                zk = cls(key, time)
                cls._registry[key] = zk
            zk._refs += 1
            return zk

    def __init__(self, data_dir: str | None, time: Time = SYSTEM, fsync: bool = True):
        self.time = time
        self.fsync = fsync
        self.log_ident = f"[LocalZooKeeper dir={data_dir}] "
        self._lock = threading.RLock()
        self._refs = 0 if data_dir is not None else 1
        self._closed = False
        self.zxid = 0
        self.nodes: dict[str, _Node] = {"/": _Node(b"", 0, 0, 0, 0)}
        self.sessions: dict[int, LocalSession] = {}
        self._next_session_id = (SYSTEM.milliseconds() & 0xFFFFFFFFFF) << 16
        self.data_watches: dict[str, set[int]] = {}
        self.child_watches: dict[str, set[int]] = {}
        self._events: queue.Queue = queue.Queue()
        self._saved: dict[str, _Node | None] | None = None  # undo records of the running transaction
        self._txn_ops: list[dict] = []
        self._pending: list[tuple[str, str]] = []  # watch triggers of the running transaction
        self._txns_since_snapshot = 0
        self._group_depth = 0          # > 0 inside group_commit: fsync and watches wait for its end
        self._group_fsync_owed = False
        self._group_pending: list[tuple[str, str]] = []
        self._log_file = None
        self._lock_fd = None
        self.dir = None
        self.data_dir = data_dir
        if data_dir is not None:
            self.dir = os.path.join(data_dir, ZK_DIR)
            os.makedirs(self.dir, exist_ok=True)
            self._acquire_lock()
            self._load()
            self._log_file = open(os.path.join(self.dir, TXN_LOG_FILE), "ab")
            self._drop_stale_ephemerals()
        self._dispatcher = threading.Thread(target=self._dispatch_loop, name="LocalZooKeeper-EventThread",
                                            daemon=True)
        self._dispatcher.start()

    def _acquire_lock(self) -> None:
        path = os.path.join(self.dir, LOCK_FILE)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            owner = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise LocalZooKeeperLockedException(
                f"The embedded ZooKeeper in {self.dir} is locked by another process (pid {owner}). It serves one "
                f"process only: use real ZooKeeper (zookeeper.connect) for multi-process clusters.") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        self._lock_fd = fd

    def release(self) -> None:
        """Drop one reference; the last one closes the store (snapshot, unlock)."""
        with LocalZooKeeper._registry_lock:
            self._refs -= 1
            if self._refs > 0:
                return
            if self.data_dir is not None:
                LocalZooKeeper._registry.pop(self.data_dir, None)
        self.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for sid in list(self.sessions):
                self._end_session(sid, None)
            if self.dir is not None:
                self._take_snapshot()
                self._log_file.close()
                os.close(self._lock_fd)
        self._events.put(None)
        if threading.current_thread() is not self._dispatcher:
            self._dispatcher.join(timeout=5)

    # ------------------------------------------------------------ sessions

    def connect(self, watcher, session_timeout_ms: int = 6000) -> LocalSession:
        with self._lock:
            if self._closed:
                raise KeeperException(Code.CONNECTIONLOSS)
            self._next_session_id += 1
            session = LocalSession(self, self._next_session_id, watcher, session_timeout_ms)
            self.sessions[session.session_id] = session
            return session

    def close_session(self, session_id: int) -> None:
        """A client closed its session: its ephemerals go at once, no event to it."""
        with self._lock:
            self._end_session(session_id, None)

    def expire_session(self, session_id: int) -> None:
        """The server expired a session (tests use this as ZooKeeper's forced expiry): its ephemerals go and the
        client is told ``Expired``."""
        with self._lock:
            self._end_session(session_id, KeeperState.EXPIRED)

    def _end_session(self, session_id: int, state: KeeperState | None) -> None:
        session = self.sessions.pop(session_id, None)
        if session is None:
            return
        owned = sorted((p for p, n in self.nodes.items() if n.ephemeral_owner == session_id), reverse=True)
        if owned and not self._closed:
            self._run_txn(lambda: [self._delete_node(p, -1) for p in owned])
        for table in (self.data_watches, self.child_watches):
            for watchers in table.values():
                watchers.discard(session_id)
        if state is not None and session.watcher is not None:
            self._events.put((session.watcher, WatchedEvent(EventType.NONE, state, None)))

    def _session(self, session_id: int) -> LocalSession:
        if self._closed:
            raise KeeperException(Code.CONNECTIONLOSS)
        session = self.sessions.get(session_id)
        if session is None:
            raise KeeperException(Code.SESSIONEXPIRED)
        return session

    # ------------------------------------------------------------ reads

    def exists(self, session_id: int, path: str, watch: bool = False):
        with self._lock:
            self._session(session_id)
            _check_path(path)
            node = self.nodes.get(path)
            if watch:  # an exists watch is set whether or not the node is there (it fires on creation)
                self.data_watches.setdefault(path, set()).add(session_id)
            if node is None:
                return Code.NONODE, None
            return Code.OK, node.stat()

    def get_data(self, session_id: int, path: str, watch: bool = False):
        with self._lock:
            self._session(session_id)
            _check_path(path)
            node = self.nodes.get(path)
            if node is None:
                return Code.NONODE, None, None
            if watch:
                self.data_watches.setdefault(path, set()).add(session_id)
            return Code.OK, node.data, node.stat()

    def get_children(self, session_id: int, path: str, watch: bool = False):
        with self._lock:
            self._session(session_id)
            _check_path(path)
            node = self.nodes.get(path)
            if node is None:
                return Code.NONODE, None, None
            if watch:
                self.child_watches.setdefault(path, set()).add(session_id)
            return Code.OK, sorted(node.children), node.stat()

    # ------------------------------------------------------------ writes (each one transaction)

    def create(self, session_id: int, path: str, data: bytes | None, ephemeral=False, sequential=False):
        with self._lock:
            self._session(session_id)
            try:
                name = self._run_txn(lambda: self._create_node(path, data, session_id if ephemeral else 0,
                                                               sequential))
            except KeeperException as e:
                return e.code, None, None
            return Code.OK, name, self.nodes[name].stat()

    def delete(self, session_id: int, path: str, version: int = -1) -> Code:
        with self._lock:
            self._session(session_id)
            try:
                self._run_txn(lambda: self._delete_node(path, version))
            except KeeperException as e:
                return e.code
            return Code.OK

    def set_data(self, session_id: int, path: str, data: bytes | None, version: int = -1):
        with self._lock:
            self._session(session_id)
            try:
                self._run_txn(lambda: self._set_node(path, data, version))
            except KeeperException as e:
                return e.code, None
            return Code.OK, self.nodes[path].stat()

    def multi(self, session_id: int, ops: list):
        """All ops or none. Returns (code of the first failure or OK, one OpResult per op)."""
        with self._lock:
            self._session(session_id)
            results: list[OpResult] = []

            def apply_all():
                for op in ops:
                    results.append(self._apply_op(session_id, op))

            try:
                self._run_txn(apply_all)
            except KeeperException as e:
                failed = len(results)
                out = [OpResult(Code.OK) for _ in range(failed)] + [OpResult(e.code)]
                out += [OpResult(Code.RUNTIMEINCONSISTENCY) for _ in range(len(ops) - failed - 1)]
                return e.code, out
            return Code.OK, results

    def _apply_op(self, session_id: int, op) -> OpResult:
        if isinstance(op, CreateOp):
            name = self._create_node(op.path, op.data, session_id if op.ephemeral else 0, op.sequential)
            return OpResult(Code.OK, name=name)
        if isinstance(op, DeleteOp):
            self._delete_node(op.path, op.version)
            return OpResult(Code.OK)
        if isinstance(op, SetDataOp):
            self._set_node(op.path, op.data, op.version)
            return OpResult(Code.OK, stat=self.nodes[op.path].stat())
        if isinstance(op, CheckOp):
            node = self.nodes.get(op.path)
            if node is None:
                raise KeeperException(Code.NONODE, op.path)
            if op.version != -1 and op.version != node.version:
                raise KeeperException(Code.BADVERSION, op.path)
            return OpResult(Code.OK)
        raise KeeperException(Code.BADARGUMENTS)

    # ------------------------------------------------------------ the transaction machinery

    def _run_txn(self, body):
        """Run ``body`` as one transaction: on KeeperException undo everything, else commit (log, watches)."""
        self._saved, self._txn_ops, self._pending = {}, [], []
        self.zxid += 1
        try:
            result = body()
        except KeeperException:
            for path, node in self._saved.items():
                if node is None:
                    self.nodes.pop(path, None)
                else:
                    self.nodes[path] = node
            self.zxid -= 1
            raise
        finally:
            self._saved = None
        if self._txn_ops:
            self._commit()
        else:
            self.zxid -= 1
        return result

    def _remember(self, path: str) -> None:
        if path not in self._saved:
            node = self.nodes.get(path)
            self._saved[path] = node.copy() if node is not None else None

    def _create_node(self, path: str, data: bytes | None, owner: int, sequential: bool, now: int | None = None) -> str:
        _check_path(path)
        parent_path = _parent(path)
        parent = self.nodes.get(parent_path)
        if path == "/" or parent is None:
            raise KeeperException(Code.NODEEXISTS if path == "/" else Code.NONODE, path)
        if parent.ephemeral_owner:
            raise KeeperException(Code.NOCHILDRENFOREPHEMERALS, path)
        if sequential:
            path = f"{path}{parent.cversion:010d}"
        if path in self.nodes:
            raise KeeperException(Code.NODEEXISTS, path)
        now = self.time.milliseconds() if now is None else now
        self._remember(parent_path)
        self._remember(path)
        self.nodes[path] = _Node(data or b"", self.zxid, self.zxid, now, now, ephemeral_owner=owner, pzxid=self.zxid)
        parent.add_child(path.rsplit("/", 1)[1])
        parent.cversion += 1
        parent.pzxid = self.zxid
        self._txn_ops.append({"op": "create", "path": path, "owner": owner, "time": now, **_encode_data(data or b"")})
        self._pending.append(("create", path))
        return path

    def _delete_node(self, path: str, version: int) -> None:
        _check_path(path)
        node = self.nodes.get(path)
        if path == "/":
            raise KeeperException(Code.BADARGUMENTS, path)
        if node is None:
            raise KeeperException(Code.NONODE, path)
        if version != -1 and version != node.version:
            raise KeeperException(Code.BADVERSION, path)
        if node.children:
            raise KeeperException(Code.NOTEMPTY, path)
        parent_path = _parent(path)
        self._remember(parent_path)
        self._remember(path)
        del self.nodes[path]
        parent = self.nodes[parent_path]
        parent.discard_child(path.rsplit("/", 1)[1])
        parent.cversion += 1
        parent.pzxid = self.zxid
        self._txn_ops.append({"op": "delete", "path": path})
        self._pending.append(("delete", path))

    def _set_node(self, path: str, data: bytes | None, version: int, now: int | None = None) -> None:
        _check_path(path)
        node = self.nodes.get(path)
        if node is None:
            raise KeeperException(Code.NONODE, path)
        if version != -1 and version != node.version:
            raise KeeperException(Code.BADVERSION, path)
        now = self.time.milliseconds() if now is None else now
        self._remember(path)
        node.data = data or b""
        node.version += 1
        node.mzxid = self.zxid
        node.mtime = now
        self._txn_ops.append({"op": "set", "path": path, "time": now, **_encode_data(data or b"")})
        self._pending.append(("set", path))

    def _commit(self) -> None:
        if self._log_file is not None:
            line = json.dumps({"zxid": self.zxid, "ops": self._txn_ops}, separators=(",", ":")) + "\n"
            self._log_file.write(line.encode("utf-8"))
            self._log_file.flush()
            if self._group_depth:
                self._group_fsync_owed = True
            elif self.fsync:
                os.fsync(self._log_file.fileno())
            self._txns_since_snapshot += 1
            if self._txns_since_snapshot >= SNAP_COUNT:
                self._take_snapshot()
        if self._group_depth:
            self._group_pending += self._pending
            return
        for kind, path in self._pending:
            self._trigger_watches(kind, path)

    @contextlib.contextmanager
    def group_commit(self):
        """ZooKeeper's SyncRequestProcessor group commit: the transactions of one pipelined batch (a
        ZooKeeperClient.handle_requests call -- the controller writes one partition-state znode per new
        partition) are logged one by one but fsync'd once, at the end, and their watches fire after that
        fsync, in zxid order. The store's lock is held for the whole batch, so nothing interleaves; the
        caller gets its responses only once they are durable, as before."""
        with self._lock:
            self._group_depth += 1
            try:
                yield
            finally:
                self._group_depth -= 1
                if self._group_depth == 0:
                    owed, pending = self._group_fsync_owed, self._group_pending
                    self._group_fsync_owed, self._group_pending = False, []
                    if owed and self.fsync and self._log_file is not None:
                        os.fsync(self._log_file.fileno())
                    for kind, path in pending:
                        self._trigger_watches(kind, path)

    def _trigger_watches(self, kind: str, path: str) -> None:
        fired: list[tuple[int, EventType, str]] = []
        if kind == "create":
            fired += [(s, EventType.NODE_CREATED, path) for s in self.data_watches.pop(path, ())]
            fired += [(s, EventType.NODE_CHILDREN_CHANGED, _parent(path))
                      for s in self.child_watches.pop(_parent(path), ())]
        elif kind == "delete":
            deleted = self.data_watches.pop(path, set()) | self.child_watches.pop(path, set())
            fired += [(s, EventType.NODE_DELETED, path) for s in deleted]
            fired += [(s, EventType.NODE_CHILDREN_CHANGED, _parent(path))
                      for s in self.child_watches.pop(_parent(path), ())]
        else:
            fired += [(s, EventType.NODE_DATA_CHANGED, path) for s in self.data_watches.pop(path, ())]
        for session_id, event_type, event_path in sorted(fired, key=lambda f: f[0]):
            session = self.sessions.get(session_id)
            if session is not None and session.watcher is not None:
                self._events.put((session.watcher, WatchedEvent(event_type, KeeperState.SYNC_CONNECTED, event_path)))

    def _dispatch_loop(self) -> None:
        while True:
            item = self._events.get()
            if item is None:
                return
            watcher, event = item
            try:
                watcher(event)
            except Exception as e:
                self.error(f"Watcher failed on {event}: {e!r}", exc_info=e)

    # ------------------------------------------------------------ persistence

    def _take_snapshot(self) -> None:
        nodes = []
        for path, n in sorted(self.nodes.items()):
            nodes.append({"path": path, "czxid": n.czxid, "mzxid": n.mzxid, "ctime": n.ctime, "mtime": n.mtime,
                          "version": n.version, "cversion": n.cversion, "pzxid": n.pzxid,
                          "ephemeral_owner": n.ephemeral_owner, **_encode_data(n.data)})
        tmp = os.path.join(self.dir, SNAPSHOT_FILE + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"zxid": self.zxid, "nodes": nodes}, f, separators=(",", ":"))
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(self.dir, SNAPSHOT_FILE))
        if self._log_file is not None and not self._log_file.closed:
            self._log_file.truncate(0)
        else:
            open(os.path.join(self.dir, TXN_LOG_FILE), "wb").close()
        self._txns_since_snapshot = 0

    def _load(self) -> None:
        snap_path = os.path.join(self.dir, SNAPSHOT_FILE)
        if os.path.exists(snap_path):
            with open(snap_path, encoding="utf-8") as f:
                snap = json.load(f)
            self.zxid = snap["zxid"]
            self.nodes = {}
            for e in snap["nodes"]:
                self.nodes[e["path"]] = _Node(_decode_data(e), e["czxid"], e["mzxid"], e["ctime"], e["mtime"],
                                              e["version"], e["cversion"], e["ephemeral_owner"], e["pzxid"])
            for path in self.nodes:
                if path != "/":
                    self.nodes[_parent(path)].add_child(path.rsplit("/", 1)[1])
        log_path = os.path.join(self.dir, TXN_LOG_FILE)
        if not os.path.exists(log_path):
            return
        replayed = 0
        with open(log_path, "rb") as f:
            for raw in f:
                try:
                    txn = json.loads(raw)
                except ValueError:
                    self.warn(f"Ignoring a torn transaction at the end of {log_path}")
                    break
                if txn["zxid"] <= self.zxid:
                    continue
                self._replay(txn)
                replayed += 1
        self._txns_since_snapshot = replayed
        self.info(f"Loaded {len(self.nodes)} znodes, replayed {replayed} transactions, zxid is {self.zxid:#x}")

    def _replay(self, txn: dict) -> None:
        self._saved, self._txn_ops, self._pending = {}, [], []
        self.zxid = txn["zxid"]
        for op in txn["ops"]:
            if op["op"] == "create":
                self._create_node(op["path"], _decode_data(op), op["owner"], False, now=op["time"])
            elif op["op"] == "delete":
                self._delete_node(op["path"], -1)
            else:
                self._set_node(op["path"], _decode_data(op), -1, now=op["time"])
        self._saved, self._txn_ops, self._pending = None, [], []

    def _drop_stale_ephemerals(self) -> None:
        stale = sorted((p for p, n in self.nodes.items() if n.ephemeral_owner), reverse=True)
        if stale:
            with self._lock:
                self._run_txn(lambda: [self._delete_node(p, -1) for p in stale])
            self.info(f"Deleted {len(stale)} ephemeral znodes of sessions from the previous run")

    # ------------------------------------------------------------ helpers for tests and tools

    def dump(self) -> dict[str, bytes]:
        with self._lock:
            return {p: n.data for p, n in self.nodes.items()}

    def await_events_delivered(self, timeout: float = 5.0) -> bool:
        """Wait until every event queued so far has been handed to its watcher."""
        done = threading.Event()
        self._events.put((lambda _e: done.set(), WatchedEvent(EventType.NONE)))
        return done.wait(timeout)
