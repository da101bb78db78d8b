"""No Kafka counterpart: one client session on the embedded ZooKeeper (``LocalZooKeeper``), split out of
local_zoo_keeper.py to keep that module small.

Class: ``LocalSession`` -- the calls a ``ZooKeeperClient`` makes on its backend (org.apache.zookeeper.ZooKeeper's
role), each forwarded to the store with this session's id; ``KazooBackend`` offers the same interface for a real
ZooKeeper, but for ``group_commit`` (the embedded store's batched fsync; ZooKeeperClient asks for it only where the
backend has it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kafkalite.zookeeper.local_zoo_keeper import LocalZooKeeper


class LocalSession:
    """One session on a LocalZooKeeper: the calls a ZooKeeperClient makes (org.apache.zookeeper.ZooKeeper's role)."""

    def __init__(self, store: "LocalZooKeeper", session_id: int, watcher, session_timeout_ms: int):
        self.store = store
        self.session_id = session_id
        self.watcher = watcher
        self.session_timeout_ms = session_timeout_ms

    def create(self, path, data, ephemeral=False, sequential=False):
        return self.store.create(self.session_id, path, data, ephemeral, sequential)

    def delete(self, path, version=-1):
        return self.store.delete(self.session_id, path, version)

    def exists(self, path, watch=False):
        return self.store.exists(self.session_id, path, watch)

    def get_data(self, path, watch=False):
        return self.store.get_data(self.session_id, path, watch)

    def set_data(self, path, data, version=-1):
        return self.store.set_data(self.session_id, path, data, version)

    def get_children(self, path, watch=False):
        return self.store.get_children(self.session_id, path, watch)

    def multi(self, ops):
        return self.store.multi(self.session_id, ops)

    def group_commit(self):
        return self.store.group_commit()

    def close(self) -> None:
        self.store.close_session(self.session_id)
