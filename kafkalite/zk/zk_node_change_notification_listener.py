"""Mirrors Kafka 2.4: core/src/main/scala/kafka/common/ZkNodeChangeNotificationListener.scala

Classes: NotificationHandler, ZkNodeChangeNotificationListener (with its ChangeEventProcessThread).

A writer announces a change by creating a sequential znode ``<seqNodeRoot>/<prefix><n>``; every listener keeps a
child watch on ``seqNodeRoot``. When it fires (and once at start, and after a new ZooKeeper session), the listener's
thread ``<seqNodeRoot>-event-process-thread`` reads the children, hands the data of each one newer than the last
it executed to the handler, and deletes the notifications older than ``change_expiration_ms`` (15 minutes), which
every listener has read by then. Used by AclAuthorizer for ``/kafka-acl-changes`` and
``/kafka-acl-extended-changes``.

Era notes: kafkalite's DynamicConfigManager keeps its own copy of this loop for ``/config/changes`` (written
before this module); the behaviour is the same.
"""
from __future__ import annotations

import queue
import threading

from kafkalite.utils.logging import Logging
from kafkalite.utils.time import SYSTEM
from kafkalite.zookeeper.zoo_keeper_client import (Code, DeleteRequest, GetDataRequest, StateChangeHandler,
                                                   ZNodeChildChangeHandler)


class NotificationHandler:
    """Kafka: NotificationHandler."""

    def process_notification(self, data: bytes) -> None:
        raise NotImplementedError


class _ChangeNotificationHandler(ZNodeChildChangeHandler):
    """Kafka: ZkNodeChangeNotificationListener.ChangeNotificationHandler."""

    def __init__(self, listener: "ZkNodeChangeNotificationListener"):
        self.path = listener.seq_node_root
        self.listener = listener

    def handle_child_change(self) -> None:
        self.listener.add_change_notification()


class _ZkStateChangeHandler(StateChangeHandler):
    """Kafka: ZkNodeChangeNotificationListener.ZkStateChangeHandler."""

    def __init__(self, listener: "ZkNodeChangeNotificationListener"):
        self.name = f"change-notification-{listener.seq_node_root}"
        self.listener = listener

    def after_initializing_session(self) -> None:
        self.listener.add_change_notification()


class ZkNodeChangeNotificationListener(Logging):
    """Kafka: ZkNodeChangeNotificationListener(zkClient, seqNodeRoot, seqNodePrefix, notificationHandler,
    changeExpirationMs, time)."""

    def __init__(self, zk_client, seq_node_root: str, seq_node_prefix: str, notification_handler: NotificationHandler,
                 change_expiration_ms: int = 15 * 60 * 1000, time=SYSTEM):
        self.zk_client = zk_client
        self.seq_node_root = seq_node_root
        self.seq_node_prefix = seq_node_prefix
        self.notification_handler = notification_handler
        self.change_expiration_ms = change_expiration_ms
        self.time = time
        self.last_executed_change = -1
        self.queue: queue.Queue = queue.Queue()
        self.is_closed = threading.Event()
        self.child_handler = _ChangeNotificationHandler(self)
        self.state_handler = _ZkStateChangeHandler(self)
        self.thread = threading.Thread(target=self._do_work, name=f"{seq_node_root}-event-process-thread", daemon=True)

    # Kafka: ZkNodeChangeNotificationListener.init
    def init(self) -> None:
        self.zk_client.register_state_change_handler(self.state_handler)
        self.zk_client.register_znode_child_change_handler(self.child_handler)
        self.add_change_notification()
        self.thread.start()

    # Kafka: ZkNodeChangeNotificationListener.close
    def close(self) -> None:
        self.is_closed.set()
        self.zk_client.unregister_state_change_handler(self.state_handler.name)
        self.zk_client.unregister_znode_child_change_handler(self.seq_node_root)
        self.queue.put(None)
        if self.thread.is_alive() and threading.current_thread() is not self.thread:
            self.thread.join(10)

    # Kafka: ZkNodeChangeNotificationListener.addChangeNotification
    def add_change_notification(self) -> None:
        if not self.is_closed.is_set() and self.queue.qsize() == 0:
            self.queue.put("change")

    # Kafka: ChangeEventProcessThread.doWork
    def _do_work(self) -> None:
        while not self.is_closed.is_set():
            item = self.queue.get()
            if item is None:
                return
            try:
                self.process_notifications()
            except Exception as e:  # noqa: BLE001 -- a bad notification must not end the listener
                self.error(f"Error processing notification change for path = {self.seq_node_root}: {e}",
                           exc_info=True)

    # Kafka: ZkNodeChangeNotificationListener.processNotifications -- each child newer than the last one done
    def process_notifications(self) -> None:
        children = sorted(self.zk_client._get_children(self.seq_node_root))   # the watch is set again here
        for child in children:
            change_id = self.change_number(child)
            if change_id <= self.last_executed_change:
                continue
            response = self.zk_client._retry(GetDataRequest(f"{self.seq_node_root}/{child}"))
            if response.result_code == Code.OK and response.data is not None:
                self.notification_handler.process_notification(response.data)
            else:
                self.warn(f"read null data from {self.seq_node_root}/{child}")
            self.last_executed_change = change_id
        self.purge_obsolete_notifications(self.time.milliseconds(), children)

    # Kafka: ZkNodeChangeNotificationListener.purgeObsoleteNotifications
    def purge_obsolete_notifications(self, now: int, notifications: list[str]) -> None:
        for child in notifications:
            path = f"{self.seq_node_root}/{child}"
            response = self.zk_client._retry(GetDataRequest(path))
            if response.result_code == Code.OK and response.stat.ctime + self.change_expiration_ms < now:
                self.debug(f"Purging change notification {path}")
                self.zk_client._retry(DeleteRequest(path, -1))

    # Kafka: ZkNodeChangeNotificationListener.changeNumber
    def change_number(self, name: str) -> int:
        return int(name[len(self.seq_node_prefix):])
