"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/ClusterConnectionStates.java
(and ConnectionState.java)

Classes: ConnectionState, NodeConnectionState, ClusterConnectionStates.

One state per node: ``DISCONNECTED → CONNECTING → CHECKING_API_VERSIONS → READY`` (the middle step only when
the client discovers broker versions, S41). After a disconnect the node is "blacked out" for its reconnect
backoff, which doubles with every failed attempt up to ``reconnect.backoff.max.ms``, with ±20 % jitter so that
many clients do not reconnect in lock step.

Left out: AUTHENTICATION_FAILED and the authentication exception (no SASL), the host-resolver address list of
later versions (KIP-235/302).
"""
from __future__ import annotations

import enum
import math
import random

import attrs


class ConnectionState(enum.Enum):
    """Kafka: ConnectionState."""

    DISCONNECTED = 0
    CONNECTING = 1
    CHECKING_API_VERSIONS = 2
    READY = 3
    AUTHENTICATION_FAILED = 4

    # Kafka: ConnectionState.isDisconnected
    def is_disconnected(self) -> bool:
        return self in (ConnectionState.DISCONNECTED, ConnectionState.AUTHENTICATION_FAILED)

    # Kafka: ConnectionState.isConnected
    def is_connected(self) -> bool:
        return self in (ConnectionState.CHECKING_API_VERSIONS, ConnectionState.READY)


@attrs.define
class NodeConnectionState:
    """Kafka: ClusterConnectionStates.NodeConnectionState."""

    state: ConnectionState
    last_connect_attempt_ms: int
    reconnect_backoff_ms: int
    host: str
    failed_attempts: int = 0


class ClusterConnectionStates:
    """Kafka: ClusterConnectionStates."""

    RECONNECT_BACKOFF_EXP_BASE = 2
    RECONNECT_BACKOFF_JITTER = 0.2

    def __init__(self, reconnect_backoff_ms: int, reconnect_backoff_max_ms: int):
        self.reconnect_backoff_initial_ms = reconnect_backoff_ms
        self.reconnect_backoff_max_ms = reconnect_backoff_max_ms
        ratio = reconnect_backoff_max_ms / max(reconnect_backoff_ms, 1)
        self.reconnect_backoff_max_exp = math.log(ratio, self.RECONNECT_BACKOFF_EXP_BASE) if ratio > 1 else 0
        self.node_state: dict[str, NodeConnectionState] = {}

    # Kafka: ClusterConnectionStates.canConnect -- never tried, or disconnected and the backoff has passed
    def can_connect(self, node_id: str, now: int) -> bool:
        state = self.node_state.get(node_id)
        if state is None:
            return True
        return state.state.is_disconnected() and now - state.last_connect_attempt_ms >= state.reconnect_backoff_ms

    # Kafka: ClusterConnectionStates.isBlackedOut
    def is_blacked_out(self, node_id: str, now: int) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state.is_disconnected() and \
            now - state.last_connect_attempt_ms < state.reconnect_backoff_ms

    # Kafka: ClusterConnectionStates.connectionDelay -- ms until a connect may be tried (0 = now)
    def connection_delay(self, node_id: str, now: int) -> int:
        state = self.node_state.get(node_id)
        if state is None:
            return 0
        if state.state.is_disconnected():
            return max(state.reconnect_backoff_ms - (now - state.last_connect_attempt_ms), 0)
        return 2 ** 63 - 1   # connected or connecting: wait for network activity instead

    # Kafka: ClusterConnectionStates.isConnecting
    def is_connecting(self, node_id: str) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state is ConnectionState.CONNECTING

    # Kafka: ClusterConnectionStates.isPreparingConnection
    def is_preparing_connection(self, node_id: str) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state in (ConnectionState.CONNECTING,
                                                      ConnectionState.CHECKING_API_VERSIONS)

    # Kafka: ClusterConnectionStates.connecting
    def connecting(self, node_id: str, now: int, host: str) -> None:
        state = self.node_state.get(node_id)
        if state is not None and state.host == host:
            state.state = ConnectionState.CONNECTING
            state.last_connect_attempt_ms = now
            return
        self.node_state[node_id] = NodeConnectionState(ConnectionState.CONNECTING, now,
                                                       self.reconnect_backoff_initial_ms, host)

    # Kafka: ClusterConnectionStates.disconnected
    def disconnected(self, node_id: str, now: int) -> None:
        state = self._node_state(node_id)
        state.state = ConnectionState.DISCONNECTED
        state.last_connect_attempt_ms = now
        self._update_reconnect_backoff(state)

    # Kafka: ClusterConnectionStates.checkingApiVersions
    def checking_api_versions(self, node_id: str) -> None:
        self._node_state(node_id).state = ConnectionState.CHECKING_API_VERSIONS

    # Kafka: ClusterConnectionStates.ready
    def ready(self, node_id: str) -> None:
        state = self._node_state(node_id)
        state.state = ConnectionState.READY
        self._reset_reconnect_backoff(state)

    # Kafka: ClusterConnectionStates.isReady
    def is_ready(self, node_id: str, now: int) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state is ConnectionState.READY

    # Kafka: ClusterConnectionStates.hasReadyNodes
    def has_ready_nodes(self, now: int) -> bool:
        return any(s.state is ConnectionState.READY for s in self.node_state.values())

    # Kafka: ClusterConnectionStates.isConnected
    def is_connected(self, node_id: str) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state.is_connected()

    # Kafka: ClusterConnectionStates.isDisconnected
    def is_disconnected(self, node_id: str) -> bool:
        state = self.node_state.get(node_id)
        return state is not None and state.state.is_disconnected()

    # Kafka: ClusterConnectionStates.remove
    def remove(self, node_id: str) -> None:
        self.node_state.pop(node_id, None)

    # Kafka: ClusterConnectionStates.connectionState
    def connection_state(self, node_id: str) -> ConnectionState:
        return self._node_state(node_id).state

    def _node_state(self, node_id: str) -> NodeConnectionState:
        state = self.node_state.get(node_id)
        if state is None:
            raise RuntimeError(f"No entry found for connection {node_id}")   # IllegalStateException
        return state

    # Kafka: ClusterConnectionStates.resetReconnectBackoff
    def _reset_reconnect_backoff(self, state: NodeConnectionState) -> None:
        state.failed_attempts = 0
        state.reconnect_backoff_ms = self.reconnect_backoff_initial_ms

    # Kafka: ClusterConnectionStates.updateReconnectBackoff -- base * 2^(failures-1), capped, with jitter
    def _update_reconnect_backoff(self, state: NodeConnectionState) -> None:
        if self.reconnect_backoff_max_ms > self.reconnect_backoff_initial_ms:
            state.failed_attempts += 1
            exp = min(state.failed_attempts - 1, self.reconnect_backoff_max_exp)
            backoff = self.reconnect_backoff_initial_ms * self.RECONNECT_BACKOFF_EXP_BASE ** exp
            jitter = random.uniform(1 - self.RECONNECT_BACKOFF_JITTER, 1 + self.RECONNECT_BACKOFF_JITTER)
            state.reconnect_backoff_ms = int(backoff * jitter)
