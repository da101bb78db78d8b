"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/consumer/internals/AbstractCoordinator.java
(and internals/Heartbeat.java).

Classes: MemberState, Generation, Heartbeat, HeartbeatThread, AbstractCoordinator.

The group membership protocol, independent of what members share (the ConsumerCoordinator adds
partitions and offsets):
1. ``ensure_coordinator_ready``: FindCoordinator to the least loaded broker. The coordinator gets its own
   connection, keyed by node id ``2147483647 - id`` as in Kafka, so group traffic never queues behind
   fetches.
2. ``join_group_if_needed``: ``on_join_prepare``, then JoinGroup (a first join with an empty member id
   is answered MEMBER_ID_REQUIRED with the id to use -- KIP-394 -- and is sent again); the member the
   coordinator names leader runs ``perform_assignment`` over every member's metadata, then everyone
   sends SyncGroup (only the leader's carries assignments) and gets its own assignment back;
   ``on_join_complete`` applies it and the member is STABLE.
3. The ``HeartbeatThread`` ("kafka-coordinator-heartbeat-thread | <group>") sends Heartbeat every
   ``heartbeat.interval.ms`` while STABLE. REBALANCE_IN_PROGRESS asks for a rejoin at the next
   ``poll``; ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID reset the generation first; NOT_COORDINATOR
   forgets the coordinator. If the application stops calling ``poll`` for ``max.poll.interval.ms``
   the thread leaves the group, as Kafka's does.
4. ``maybe_leave_group`` sends LeaveGroup on close.

Threads: the application thread and the heartbeat thread share the ConsumerNetworkClient (its lock).
Response callbacks only set fields; the coordinator's own lock is never taken inside a callback, so the
two locks cannot deadlock (Kafka defers callbacks through ``pendingCompletion`` for the same reason).

Left out: static membership beyond sending ``group.instance.id``, metrics, ``rebalance.timeout`` clamping.
"""
from __future__ import annotations

import enum
import logging
import threading

import attrs

from kafkalite.clients.client_request import RequestBuilder
from kafkalite.clients.node import Node
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.errors import ApiException, Errors
from kafkalite.protocol.messages.find_coordinator import FindCoordinatorRequest
from kafkalite.protocol.messages.heartbeat import HeartbeatRequest
from kafkalite.protocol.messages.join_group import JoinGroupRequest, JoinGroupRequestProtocol
from kafkalite.protocol.messages.leave_group import LeaveGroupRequest, MemberIdentity
from kafkalite.protocol.messages.sync_group import SyncGroupRequest, SyncGroupRequestAssignment

log = logging.getLogger("kafka.clients.consumer.internals.AbstractCoordinator")

UNKNOWN_MEMBER_ID = ""
NO_GENERATION_ID = -1


class LeaveGroupRequestBuilder(RequestBuilder):
    """Kafka: LeaveGroupRequest.Builder -- one member id up to v2, a list of members from v3."""

    def __init__(self, group_id: str, member_id: str, group_instance_id: str | None):
        super().__init__(ApiKeys.LEAVE_GROUP)
        self.group_id, self.member_id, self.group_instance_id = group_id, member_id, group_instance_id

    def build(self, version: int) -> LeaveGroupRequest:
        if version <= 2:
            return LeaveGroupRequest(group_id=self.group_id, member_id=self.member_id)
        return LeaveGroupRequest(group_id=self.group_id, members=[
            MemberIdentity(member_id=self.member_id, group_instance_id=self.group_instance_id)])


class MemberState(enum.Enum):
    """Kafka: AbstractCoordinator.MemberState."""
    UNJOINED = 0
    REBALANCING = 1
    STABLE = 2


@attrs.frozen
class Generation:
    """Kafka: AbstractCoordinator.Generation."""
    generation_id: int
    member_id: str
    protocol: str | None


Generation.NO_GENERATION = Generation(NO_GENERATION_ID, UNKNOWN_MEMBER_ID, None)


class Heartbeat:
    """Kafka: internals/Heartbeat -- when the next heartbeat is due and whether the session or the
    poll interval has run out."""

    def __init__(self, time, session_timeout_ms: int, heartbeat_interval_ms: int, max_poll_interval_ms: int):
        if heartbeat_interval_ms >= session_timeout_ms:
            raise ValueError("Heartbeat must be set lower than the session timeout")
        self.time = time
        self.session_timeout_ms = session_timeout_ms
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.max_poll_interval_ms = max_poll_interval_ms
        now = time.milliseconds()
        self.last_heartbeat_send = now
        self.last_heartbeat_receive = now
        self.last_poll = now
        self.heartbeat_in_flight = False

    # Kafka: Heartbeat.poll -- the application called poll()
    def poll(self, now: int) -> None:
        self.last_poll = now

    # Kafka: Heartbeat.sentHeartbeat / receiveHeartbeat / failHeartbeat
    def sent_heartbeat(self, now: int) -> None:
        self.last_heartbeat_send = now
        self.heartbeat_in_flight = True

    def receive_heartbeat(self) -> None:
        self.last_heartbeat_receive = self.time.milliseconds()
        self.heartbeat_in_flight = False

    def fail_heartbeat(self) -> None:
        self.heartbeat_in_flight = False

    # Kafka: Heartbeat.shouldHeartbeat / timeToNextHeartbeat
    def time_to_next_heartbeat(self, now: int) -> int:
        return max(0, self.last_heartbeat_send + self.heartbeat_interval_ms - now)

    def should_heartbeat(self, now: int) -> bool:
        return not self.heartbeat_in_flight and self.time_to_next_heartbeat(now) == 0

    # Kafka: Heartbeat.sessionTimeoutExpired / pollTimeoutExpired
    def session_timeout_expired(self, now: int) -> bool:
        return now - self.last_heartbeat_receive > self.session_timeout_ms

    def poll_timeout_expired(self, now: int) -> bool:
        return now - self.last_poll > self.max_poll_interval_ms

    # Kafka: Heartbeat.resetTimeouts
    def reset_timeouts(self) -> None:
        now = self.time.milliseconds()
        self.last_heartbeat_send = self.last_heartbeat_receive = self.last_poll = now
        self.heartbeat_in_flight = False


class HeartbeatThread(threading.Thread):
    """Kafka: AbstractCoordinator.HeartbeatThread."""

    def __init__(self, coordinator: "AbstractCoordinator"):
        super().__init__(name=f"kafka-coordinator-heartbeat-thread | {coordinator.group_id}", daemon=True)
        self.coordinator = coordinator
        self.enabled = False
        self.closed = False
        self.condition = threading.Condition()

    # Kafka: HeartbeatThread.enable / disable / close
    def enable(self) -> None:
        with self.condition:
            self.coordinator.heartbeat.reset_timeouts()
            self.enabled = True
            self.condition.notify_all()

    def disable(self) -> None:
        with self.condition:
            self.enabled = False

    def close(self) -> None:
        with self.condition:
            self.closed = True
            self.condition.notify_all()

    # Kafka: HeartbeatThread.run
    def run(self) -> None:
        c = self.coordinator
        while True:
            with self.condition:
                if self.closed:
                    return
                if not self.enabled:
                    self.condition.wait()
                    continue
            if c.state is not MemberState.STABLE:
                self.disable()
                continue
            c.client.poll(0)
            now = c.time.milliseconds()
            if c.coordinator_unknown():
                if c.find_coordinator_future is None:
                    c.lookup_coordinator()
            elif c.heartbeat.session_timeout_expired(now):
                c.mark_coordinator_unknown("session timed out without a successful heartbeat")
            elif c.heartbeat.poll_timeout_expired(now):
                log.warning("consumer poll timeout has expired. This means the time between subsequent calls "
                            "to poll() was longer than the configured max.poll.interval.ms; leaving the group.")
                c.maybe_leave_group()
            elif c.heartbeat.should_heartbeat(now):
                c.heartbeat.sent_heartbeat(now)
                c.send_heartbeat_request()
            with self.condition:
                if not self.closed:
                    self.condition.wait(min(c.retry_backoff_ms, max(1, c.heartbeat.time_to_next_heartbeat(
                        c.time.milliseconds()))) / 1000.0)


class AbstractCoordinator:
    """Kafka: AbstractCoordinator."""

    def __init__(self, client, metadata, group_id: str, time, session_timeout_ms: int = 10000,
                 rebalance_timeout_ms: int = 300000, heartbeat_interval_ms: int = 3000,
                 retry_backoff_ms: int = 100, group_instance_id: str | None = None):
        self.client = client
        self.metadata = metadata
        self.group_id = group_id
        self.time = time
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.retry_backoff_ms = retry_backoff_ms
        self.group_instance_id = group_instance_id
        self.heartbeat = Heartbeat(time, session_timeout_ms, heartbeat_interval_ms, rebalance_timeout_ms)
        self.heartbeat_thread: HeartbeatThread | None = None
        self.lock = threading.RLock()
        self.coordinator: Node | None = None
        self.generation = Generation.NO_GENERATION
        self.state = MemberState.UNJOINED
        self.rejoin_needed = True
        self.need_on_join_prepare = True
        self.find_coordinator_future = None
        self.join_future = None

    # ---------------------------------------------------------------- hooks for subclasses
    def protocol_type(self) -> str:
        raise NotImplementedError

    def metadata_protocols(self) -> list[tuple[str, bytes]]:   # Kafka: AbstractCoordinator.metadata()
        raise NotImplementedError

    def on_join_prepare(self, generation: int, member_id: str) -> None:
        raise NotImplementedError

    def perform_assignment(self, leader_id: str, protocol: str, all_member_metadata) -> dict[str, bytes]:
        raise NotImplementedError

    def on_join_complete(self, generation: int, member_id: str, protocol: str, assignment: bytes) -> None:
        raise NotImplementedError

    # ---------------------------------------------------------------- coordinator discovery

    # Kafka: AbstractCoordinator.coordinatorUnknown
    def coordinator_unknown(self) -> bool:
        return self.check_and_get_coordinator() is None

    # Kafka: AbstractCoordinator.checkAndGetCoordinator
    def check_and_get_coordinator(self) -> Node | None:
        node = self.coordinator
        if node is not None and self.client.is_unavailable(node):
            self.mark_coordinator_unknown("coordinator unavailable")
            return None
        return node

    # Kafka: AbstractCoordinator.lookupCoordinator
    def lookup_coordinator(self):
        future = self.find_coordinator_future
        if future is not None:
            return future
        node = self.client.least_loaded_node(self.metadata.fetch().nodes)
        if node is None:
            from kafkalite.clients.consumer.internals.request_future import RequestFuture
            return RequestFuture.failure(Errors.COORDINATOR_NOT_AVAILABLE.exception("No broker available"))
        log.debug("Sending FindCoordinator request to broker %s", node)
        future = self.client.send(node, ApiKeys.FIND_COORDINATOR,
                                  FindCoordinatorRequest(key=self.group_id, key_type=0))
        self.find_coordinator_future = future

        def on_success(response):
            self.find_coordinator_future = None
            error = Errors.for_code(response.error_code)
            if error is Errors.NONE:
                # Kafka: a separate connection for the coordinator, keyed by Integer.MAX_VALUE - id
                self.coordinator = Node(2147483647 - response.node_id, response.host, response.port)
                log.info("Discovered group coordinator %s", self.coordinator)
                self.heartbeat.reset_timeouts()

        def on_failure(e):
            self.find_coordinator_future = None

        future.add_listener(on_success, on_failure)
        return future

    # Kafka: AbstractCoordinator.ensureCoordinatorReady
    def ensure_coordinator_ready(self, timeout_ms: int) -> bool:
        deadline = self.time.milliseconds() + timeout_ms
        while self.coordinator_unknown():
            future = self.lookup_coordinator()
            self.client.poll_future(future, max(0, deadline - self.time.milliseconds()))
            if future.failed() and not future.is_retriable():
                raise future.exception()
            if self.coordinator_unknown():
                if self.time.milliseconds() >= deadline:
                    return False
                self.client.poll(self.retry_backoff_ms)   # Kafka: time.sleep(retryBackoffMs)
        return True

    # Kafka: AbstractCoordinator.markCoordinatorUnknown
    def mark_coordinator_unknown(self, cause: str = "") -> None:
        if self.coordinator is not None:
            log.info("Group coordinator %s is unavailable or invalid (%s), will attempt rediscovery",
                     self.coordinator, cause)
            old = self.coordinator
            self.coordinator = None
            self.client.disconnect(old)

    # ---------------------------------------------------------------- joining

    # Kafka: AbstractCoordinator.rejoinNeededOrPending
    def rejoin_needed_or_pending(self) -> bool:
        return self.rejoin_needed or self.join_future is not None

    # Kafka: AbstractCoordinator.requestRejoin
    def request_rejoin(self) -> None:
        self.rejoin_needed = True

    # Kafka: AbstractCoordinator.ensureActiveGroup
    def ensure_active_group(self, timeout_ms: int) -> bool:
        deadline = self.time.milliseconds() + timeout_ms
        if not self.ensure_coordinator_ready(timeout_ms):
            return False
        self.start_heartbeat_thread_if_needed()
        return self.join_group_if_needed(max(0, deadline - self.time.milliseconds()))

    # Kafka: AbstractCoordinator.startHeartbeatThreadIfNeeded
    def start_heartbeat_thread_if_needed(self) -> None:
        with self.lock:
            if self.heartbeat_thread is None:
                self.heartbeat_thread = HeartbeatThread(self)
                self.heartbeat_thread.start()

    # Kafka: AbstractCoordinator.joinGroupIfNeeded
    def join_group_if_needed(self, timeout_ms: int) -> bool:
        deadline = self.time.milliseconds() + timeout_ms
        while self.rejoin_needed_or_pending():
            if not self.ensure_coordinator_ready(max(0, deadline - self.time.milliseconds())):
                return False
            if self.need_on_join_prepare:
                self.on_join_prepare(self.generation.generation_id, self.generation.member_id)
                self.need_on_join_prepare = False
            future = self.initiate_join_group()
            self.client.poll_future(future, max(0, deadline - self.time.milliseconds()))
            if not future.is_done():
                return False   # keep join_future; the next call waits for it again
            self.join_future = None
            if future.succeeded():
                generation = self.generation
                self.on_join_complete(generation.generation_id, generation.member_id, generation.protocol,
                                      future.value())
                self.need_on_join_prepare = True
                with self.lock:
                    if self.state is MemberState.REBALANCING:   # not reset by a heartbeat meanwhile
                        self.state = MemberState.STABLE
                        self.heartbeat_thread.enable()
            else:
                e = future.exception()
                if isinstance(e, ApiException) and e.error in (
                        Errors.UNKNOWN_MEMBER_ID, Errors.REBALANCE_IN_PROGRESS, Errors.ILLEGAL_GENERATION,
                        Errors.MEMBER_ID_REQUIRED) or future.is_retriable():
                    if future.is_retriable():
                        self.client.poll(self.retry_backoff_ms)
                    continue
                raise e
            if self.time.milliseconds() >= deadline and self.rejoin_needed_or_pending():
                return False
        return True

    # Kafka: AbstractCoordinator.initiateJoinGroup
    def initiate_join_group(self):
        if self.join_future is None:
            self.heartbeat_thread.disable()
            self.state = MemberState.REBALANCING
            self.join_future = self.send_join_group_request()
        return self.join_future

    # Kafka: AbstractCoordinator.sendJoinGroupRequest -- chains the SyncGroup; the future yields the assignment
    def send_join_group_request(self):
        from kafkalite.clients.consumer.internals.request_future import RequestFuture
        result = RequestFuture()
        if self.coordinator_unknown():
            result.raise_(Errors.COORDINATOR_NOT_AVAILABLE.exception())
            return result
        log.info("(Re-)joining group %s", self.group_id)
        request = JoinGroupRequest(
            group_id=self.group_id, session_timeout_ms=self.session_timeout_ms,
            rebalance_timeout_ms=self.rebalance_timeout_ms, member_id=self.generation.member_id,
            group_instance_id=self.group_instance_id, protocol_type=self.protocol_type(),
            protocols=[JoinGroupRequestProtocol(name=n, metadata=m) for n, m in self.metadata_protocols()])
        self.client.send(self.coordinator, ApiKeys.JOIN_GROUP, request).add_listener(
            lambda response: self.handle_join_group_response(response, result),
            lambda e: self._fail_request(e, result))
        return result

    def _fail_request(self, e: BaseException, result) -> None:
        if isinstance(e, ApiException) and e.error in (Errors.NETWORK_EXCEPTION, Errors.REQUEST_TIMED_OUT):
            self.mark_coordinator_unknown(str(e))
        result.raise_(e)

    # Kafka: AbstractCoordinator.JoinGroupResponseHandler.handle
    def handle_join_group_response(self, response, result) -> None:
        error = Errors.for_code(response.error_code)
        if error is Errors.NONE:
            log.info("Successfully joined group %s with generation %d", self.group_id, response.generation_id)
            self.generation = Generation(response.generation_id, response.member_id, response.protocol_name)
            if response.leader == response.member_id:
                self.on_join_leader(response, result)
            else:
                self.send_sync_group_request({}, result)
            return
        if error is Errors.MEMBER_ID_REQUIRED:
            # KIP-394: join again with the member id the coordinator chose
            self.generation = Generation(NO_GENERATION_ID, response.member_id, None)
        elif error is Errors.UNKNOWN_MEMBER_ID:
            self.reset_generation()
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.mark_coordinator_unknown(error.name)
        self.rejoin_needed = True
        result.raise_(error.exception(f"JoinGroup failed: {error.name}"))

    # Kafka: AbstractCoordinator.onJoinLeader
    def on_join_leader(self, response, result) -> None:
        try:
            assignments = self.perform_assignment(response.leader, response.protocol_name, response.members)
        except Exception as e:   # noqa: BLE001 -- a failing assignor fails the join
            result.raise_(e)
            return
        self.send_sync_group_request(assignments, result)

    # Kafka: AbstractCoordinator.sendSyncGroupRequest
    def send_sync_group_request(self, assignments: dict[str, bytes], result) -> None:
        request = SyncGroupRequest(
            group_id=self.group_id, generation_id=self.generation.generation_id,
            member_id=self.generation.member_id, group_instance_id=self.group_instance_id,
            protocol_type=self.protocol_type(), protocol_name=self.generation.protocol,
            assignments=[SyncGroupRequestAssignment(member_id=m, assignment=a) for m, a in assignments.items()])
        self.client.send(self.coordinator, ApiKeys.SYNC_GROUP, request).add_listener(
            lambda response: self.handle_sync_group_response(response, result),
            lambda e: self._fail_request(e, result))

    # Kafka: AbstractCoordinator.SyncGroupResponseHandler.handle
    def handle_sync_group_response(self, response, result) -> None:
        error = Errors.for_code(response.error_code)
        if error is Errors.NONE:
            self.rejoin_needed = False
            result.complete(bytes(response.assignment))
            return
        self.rejoin_needed = True
        if error in (Errors.UNKNOWN_MEMBER_ID, Errors.ILLEGAL_GENERATION):
            self.reset_generation()
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.mark_coordinator_unknown(error.name)
        result.raise_(error.exception(f"SyncGroup failed: {error.name}"))

    # Kafka: AbstractCoordinator.resetGeneration
    def reset_generation(self) -> None:
        self.generation = Generation.NO_GENERATION
        self.rejoin_needed = True
        self.state = MemberState.UNJOINED

    # Kafka: AbstractCoordinator.generationIfStable
    def generation_if_stable(self) -> Generation | None:
        return self.generation if self.state is MemberState.STABLE else None

    # ---------------------------------------------------------------- heartbeats

    # Kafka: AbstractCoordinator.sendHeartbeatRequest
    def send_heartbeat_request(self):
        generation = self.generation
        request = HeartbeatRequest(group_id=self.group_id, generation_id=generation.generation_id,
                                   member_id=generation.member_id, group_instance_id=self.group_instance_id)
        future = self.client.send(self.coordinator, ApiKeys.HEARTBEAT, request)
        future.add_listener(self.handle_heartbeat_response, self._heartbeat_failed)
        return future

    def _heartbeat_failed(self, e: BaseException) -> None:
        self.heartbeat.fail_heartbeat()
        self.mark_coordinator_unknown(f"heartbeat failed: {e}")

    # Kafka: AbstractCoordinator.HeartbeatResponseHandler.handle
    def handle_heartbeat_response(self, response) -> None:
        error = Errors.for_code(response.error_code)
        if error is Errors.NONE:
            self.heartbeat.receive_heartbeat()
            return
        self.heartbeat.fail_heartbeat()
        if error is Errors.REBALANCE_IN_PROGRESS:
            log.info("Attempt to heartbeat failed since group is rebalancing")
            self.request_rejoin()
        elif error in (Errors.ILLEGAL_GENERATION, Errors.UNKNOWN_MEMBER_ID, Errors.FENCED_INSTANCE_ID):
            log.info("Attempt to heartbeat failed: %s; resetting generation", error.name)
            self.reset_generation()
        elif error in (Errors.COORDINATOR_NOT_AVAILABLE, Errors.NOT_COORDINATOR):
            self.mark_coordinator_unknown(error.name)

    # ---------------------------------------------------------------- leaving

    # Kafka: AbstractCoordinator.maybeLeaveGroup
    def maybe_leave_group(self, timeout_ms: int = 0):
        future = None
        generation = self.generation
        if not self.coordinator_unknown() and self.state is not MemberState.UNJOINED \
                and generation.member_id != UNKNOWN_MEMBER_ID:
            log.info("Member %s sending LeaveGroup request to coordinator %s", generation.member_id,
                     self.coordinator)
            request = LeaveGroupRequestBuilder(self.group_id, generation.member_id, self.group_instance_id)
            future = self.client.send(self.coordinator, ApiKeys.LEAVE_GROUP, request)
            if timeout_ms > 0:
                self.client.poll_future(future, timeout_ms)
        self.reset_generation()
        return future

    # Kafka: AbstractCoordinator.close
    def close(self, timeout_ms: int = 5000) -> None:
        if self.heartbeat_thread is not None:
            self.heartbeat_thread.close()
            self.client.wakeup()
            self.heartbeat_thread.join(timeout=timeout_ms / 1000.0)
        self.maybe_leave_group(timeout_ms)
