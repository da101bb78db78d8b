"""Mirrors Kafka 2.4: core/src/main/scala/kafka/controller/ControllerEventManager.scala (and ControllerState.scala)

Classes: ControllerState, ControllerEvent, ShutdownEventThread, QueuedEvent, ControllerEventManager,
ControllerEventThread.

Every change of controller state runs as an event on one thread, ``controller-event-thread``, in queue order
(research/controller.md §2.3). ZooKeeper watchers and response callbacks only ``put`` events; ``clear_and_put``
first preempts everything queued (used for session expiry and shutdown). ``QueuedEvent.await_processing`` lets a
caller wait until its event has run.

Era notes: in 2.4 the thread calls ``KafkaController.process(event)``, which matches on the event's type.
kafkalite's events are small classes whose ``process(controller)`` calls the controller method (the dispatch of
Kafka ≤ 2.3), so ``KafkaController.process`` is just ``event.process(self)``.
Left out: the per-state rate-and-time metrics and the event queue time histogram.
"""
from __future__ import annotations

import enum
import queue
import threading

from kafkalite.utils.shutdownable_thread import ShutdownableThread
from kafkalite.utils.time import SYSTEM, Time


class ControllerState(enum.Enum):
    """Kafka: ControllerState -- what the controller is busy with (a metrics tag in Kafka)."""

    Idle = 0
    ControllerChange = 1
    BrokerChange = 2
    TopicChange = 3
    TopicDeletion = 4
    AlterPartitionReassignment = 5
    AutoLeaderBalance = 6
    ManualLeaderBalance = 7
    ControlledShutdown = 8
    IsrChange = 9
    LeaderAndIsrResponseReceived = 10
    LogDirChange = 11
    ControllerShutdown = 12
    UncleanLeaderElectionEnable = 13
    TopicUncleanLeaderElectionEnable = 14
    ListPartitionReassignment = 15
    UpdateMetadataResponseReceived = 16


class ControllerEvent:
    """Kafka: ControllerEvent -- ``state`` for metrics; ``process`` does the work on the event thread."""

    state = ControllerState.Idle

    def process(self, controller) -> None:
        raise NotImplementedError

    # Kafka: ControllerEventProcessor.preempt -- called instead of process when clear_and_put drops the event
    def preempt(self, controller) -> None:
        pass

    def __repr__(self) -> str:
        return type(self).__name__


class ShutdownEventThread(ControllerEvent):
    """Kafka: ShutdownEventThread -- the poison pill that ends the event thread."""

    state = ControllerState.ControllerShutdown

    def process(self, controller) -> None:
        pass


class QueuedEvent:
    """Kafka: QueuedEvent -- an event plus 'has it started/finished' latches; each event runs at most once."""

    def __init__(self, event: ControllerEvent, enqueue_time_ms: int):
        self.event = event
        self.enqueue_time_ms = enqueue_time_ms
        self.processing_started = threading.Event()
        self._spent = False
        self._lock = threading.Lock()
        self._done = threading.Event()

    def _claim(self) -> bool:
        with self._lock:
            if self._spent:
                return False
            self._spent = True
            return True

    # Kafka: QueuedEvent.process
    def process(self, processor) -> None:
        if not self._claim():
            return
        self.processing_started.set()
        try:
            processor.process(self.event)
        finally:
            self._done.set()

    # Kafka: QueuedEvent.preempt
    def preempt(self, processor) -> None:
        if not self._claim():
            return
        try:
            processor.preempt(self.event)
        finally:
            self._done.set()

    # Kafka: QueuedEvent.awaitProcessing (waits until the event has been processed, not only started)
    def await_processing(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)


class ControllerEventManager:
    """Kafka: ControllerEventManager."""

    def __init__(self, controller_id: int, processor, time: Time = SYSTEM):
        self.controller_id = controller_id
        self.processor = processor
        self.time = time
        self.queue: queue.Queue[QueuedEvent] = queue.Queue()
        self._put_lock = threading.Lock()   # Kafka: putLock -- makes clear_and_put atomic against put
        self.state = ControllerState.Idle
        self.thread = ControllerEventThread(self, ControllerEventManager.CONTROLLER_EVENT_THREAD_NAME)

    CONTROLLER_EVENT_THREAD_NAME = "controller-event-thread"

    # Kafka: ControllerEventManager.start
    def start(self) -> None:
        self.thread.start()

    # Kafka: ControllerEventManager.close
    def close(self) -> None:
        self.thread.initiate_shutdown()
        self.clear_and_put(ShutdownEventThread())
        self.thread.await_shutdown()

    # Kafka: ControllerEventManager.put
    def put(self, event: ControllerEvent) -> QueuedEvent:
        with self._put_lock:
            queued = QueuedEvent(event, self.time.milliseconds())
            self.queue.put(queued)
            return queued

    # Kafka: ControllerEventManager.clearAndPut
    def clear_and_put(self, event: ControllerEvent) -> QueuedEvent:
        with self._put_lock:
            while True:
                try:
                    self.queue.get_nowait().preempt(self.processor)
                except queue.Empty:
                    break
            queued = QueuedEvent(event, self.time.milliseconds())
            self.queue.put(queued)
            return queued

    # Kafka: ControllerEventManager.isEmpty
    def is_empty(self) -> bool:
        return self.queue.empty()


class ControllerEventThread(ShutdownableThread):
    """Kafka: ControllerEventManager.ControllerEventThread."""

    def __init__(self, manager: ControllerEventManager, name: str):
        super().__init__(name, is_interruptible=False)
        self.manager = manager
        self.log_ident = f"[ControllerEventThread controllerId={manager.controller_id}] "

    # Kafka: ControllerEventThread.doWork
    def do_work(self) -> None:
        dequeued = self.manager.queue.get()
        if isinstance(dequeued.event, ShutdownEventThread):
            dequeued.process(self.manager.processor)
            return
        self.manager.state = dequeued.event.state
        try:
            dequeued.process(self.manager.processor)
        except Exception as e:   # noqa: BLE001 -- one bad event never kills the controller
            self.error(f"Uncaught error processing event {dequeued.event}", exc_info=e)
        finally:
            self.manager.state = ControllerState.Idle
