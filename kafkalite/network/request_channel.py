"""Mirrors Kafka 2.4: core/src/main/scala/kafka/network/RequestChannel.scala

Classes: RequestChannel, Request, RequestContext, Response, ResponseAction (SendAction, NoOpAction,
CloseConnectionAction), ShutdownRequest.

The hand-off between network threads and request-handler threads (S4): one bounded request queue
shared by all handlers (``queued.max.requests``; a full queue blocks the Processor that reads, so
nothing is dropped), and one response queue per Processor, so a response goes back to the thread
that owns its connection.

Era notes: Response carries a ResponseAction (SendAction / NoOpAction / CloseConnectionAction), the
Kafka <= 1.1 vocabulary the source documents use; Kafka 2.x spells the same three cases as the
subclasses SendResponse / NoOpResponse / CloseConnectionResponse.
The request trace (kafkalite's, for learners): when ``kafka.request.logger`` is at DEBUG (broker
config ``kafkalite.request.trace=true`` sets it), each Request collects ``hops`` -- (hop, thread
name, time in ns, detail) at every thread it passes: accepted, read, queued, dequeued, handler,
purgatory, response-queued, response-dequeued, sent -- and logs them in one "Request trace" line
when its response is sent. With the logger above DEBUG, ``hops`` is None and each hop costs one test.
Omitted: principal and SASL session.
"""
from __future__ import annotations

import enum
import logging
import queue
import threading

import attrs

from kafkalite.metrics.request_metrics import request_metrics
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body, serialize_response
from kafkalite.utils.time import SYSTEM

request_logger = logging.getLogger("kafka.request.logger")
_handling = threading.local()   # the Request a handler thread is working on (for the trace's purgatory hop)


def current_request():
    """The Request the calling handler thread is handling, or None (set by KafkaRequestHandler)."""
    return getattr(_handling, "request", None)


def set_current_request(request) -> None:
    _handling.request = request


def traced_purgatory_callback(purgatory_name: str, callback):
    """The trace's purgatory hops. KafkaApis wraps the callback it gives ReplicaManager, then calls
    ``callback.after_call()`` once ReplicaManager returns: no answer by then means the request waits
    in the purgatory. Returns ``callback`` itself unless the current request is being traced."""
    request = current_request()
    if request is None or request.hops is None:
        return callback
    watcher = threading.current_thread().name
    state = {"done": False, "parked": False}

    def completed(*args, **kwargs):
        state["done"] = True
        thread = threading.current_thread().name
        if thread != watcher or state["parked"]:
            if not state["parked"]:
                request.record_hop("purgatory", f"{purgatory_name}: waiting in DelayedOperationPurgatory",
                                   thread_name=watcher)
            how = "expiry (its timeout)" if thread.startswith("executor-") else "a later append/fetch"
            request.record_hop("purgatory-complete", f"{purgatory_name}: completed by {how}")
        return callback(*args, **kwargs)

    def after_call():
        if not state["done"]:
            state["parked"] = True
            request.record_hop("purgatory", f"{purgatory_name}: waiting in DelayedOperationPurgatory")

    completed.after_call = after_call
    return completed


@attrs.define
class RequestContext:
    """Kafka: org.apache.kafka.common.requests.RequestContext -- who sent a request, and where."""

    header: RequestHeader
    connection_id: str
    client_address: str
    listener_name: str
    security_protocol: str = "PLAINTEXT"
    client_software_name: str = "unknown"
    client_software_version: str = "unknown"

    # Kafka: RequestContext.isUnsupportedApiVersionsRequest -- KIP-511: answer it, don't close.
    def is_unsupported_api_versions_request(self) -> bool:
        h = self.header
        return h.api_key == ApiKeys.API_VERSIONS.id and h.api_version > ApiKeys.API_VERSIONS.max_version

    # Kafka: RequestContext.parseRequest
    def parse_request(self, buffer: memoryview, offset: int):
        if self.is_unsupported_api_versions_request():
            return None   # KafkaApis answers with the v0 error body
        return parse_request_body(self.header, buffer, offset)


class ShutdownRequest:
    """Kafka: RequestChannel.ShutdownRequest -- tells one handler thread to exit."""


SHUTDOWN_REQUEST = ShutdownRequest()


class Request:
    """Kafka: RequestChannel.Request -- a parsed request and the timestamps of its trip (S13)."""

    def __init__(self, processor: int, context: RequestContext, start_time_nanos: int, buffer: memoryview,
                 body_offset: int, from_control_plane: bool = False, release=None):
        self.processor = processor
        self.context = context
        self.start_time_nanos = start_time_nanos
        self.from_control_plane = from_control_plane
        self.request_dequeue_time_nanos = -1
        self.api_local_complete_time_nanos = -1
        self.api_remote_complete_time_nanos = -1
        self.response_complete_time_nanos = -1
        self.response_dequeue_time_nanos = -1
        self.handler_thread = None
        self.hops = [] if request_logger.isEnabledFor(logging.DEBUG) else None
        # The body is parsed here, on the network thread, as Kafka 2.4 does: a request that cannot
        # be parsed raises in the Processor, which closes only that connection (S17).
        self._release = release
        self._buffer = buffer
        self.body = context.parse_request(buffer, body_offset)
        # Kafka: most requests are whole objects once parsed, so their buffer goes back to the MemoryPool
        # now; a produce request's records are views of it, so it waits until the request is handled.
        if context.header.api_key != ApiKeys.PRODUCE.id:
            self.release_buffer()

    def record_hop(self, hop: str, detail: str = "", thread_name: str | None = None, at_nanos: int | None = None) -> None:
        """The request trace: note that this request reached ``hop`` on the calling thread."""
        if self.hops is not None:
            self.hops.append((hop, thread_name or threading.current_thread().name,
                              SYSTEM.nanoseconds() if at_nanos is None else at_nanos, detail))

    def trace_line(self) -> str:
        t0 = self.hops[0][2] if self.hops else 0
        return " -> ".join(f"{hop}[{thread} +{(t - t0) / 1e6:.3f}ms{' ' + detail if detail else ''}]"
                           for hop, thread, t, detail in self.hops)

    @property
    def header(self) -> RequestHeader:
        return self.context.header

    @property
    def api_key(self) -> ApiKeys:
        return ApiKeys.for_id(self.context.header.api_key)

    # Kafka: Request.releaseBuffer -- the payload is garbage once the body holds what it needs.
    def release_buffer(self) -> None:
        self._buffer = None
        if self._release is not None:
            self._release, release = None, self._release
            release()

    def request_desc(self) -> str:
        h = self.header
        return (f"{self.api_key.name} v{h.api_version} correlationId={h.correlation_id} "
                f"clientId={h.client_id} connection={self.context.connection_id}")

    # Kafka: Request.updateRequestMetrics -- here it feeds the request log (kafka.request.logger).
    def update_request_metrics(self, network_thread_time_nanos: int = 0) -> None:
        end = SYSTEM.nanoseconds()
        if self.api_local_complete_time_nanos < 0:
            self.api_local_complete_time_nanos = self.response_complete_time_nanos
        if self.api_remote_complete_time_nanos < 0:
            self.api_remote_complete_time_nanos = self.response_complete_time_nanos

        def ms(a, b):
            return max(0.0, (b - a) / 1e6) if a >= 0 and b >= 0 else 0.0

        self.timings = {
            "RequestQueueTimeMs": ms(self.start_time_nanos, self.request_dequeue_time_nanos),
            "LocalTimeMs": ms(self.request_dequeue_time_nanos, self.api_local_complete_time_nanos),
            "RemoteTimeMs": ms(self.api_local_complete_time_nanos, self.api_remote_complete_time_nanos),
            "ResponseQueueTimeMs": ms(self.response_complete_time_nanos, self.response_dequeue_time_nanos),
            "ResponseSendTimeMs": ms(self.response_dequeue_time_nanos, end),
            "TotalTimeMs": ms(self.start_time_nanos, end),
        }
        request_metrics(self.api_key.api_name).update(self.timings)
        if self.hops is not None:
            self.record_hop("sent")
            request_logger.debug("Request trace: %s: %s", self.request_desc(), self.trace_line())
        if request_logger.isEnabledFor(logging.DEBUG):
            t = self.timings
            request_logger.debug(
                "Completed request:%s from %s handler=%s totalTime:%.3f requestQueueTime:%.3f localTime:%.3f "
                "remoteTime:%.3f responseQueueTime:%.3f sendTime:%.3f", self.request_desc(),
                self.context.client_address, self.handler_thread, t["TotalTimeMs"], t["RequestQueueTimeMs"],
                t["LocalTimeMs"], t["RemoteTimeMs"], t["ResponseQueueTimeMs"], t["ResponseSendTimeMs"])


class ResponseAction(enum.Enum):
    """Kafka (<= 1.1): RequestChannel.ResponseAction."""

    SendAction = "SendAction"                        # write response_send, then unmute
    NoOpAction = "NoOpAction"                        # nothing to write (acks=0): just unmute
    CloseConnectionAction = "CloseConnectionAction"  # close the connection (acks=0 with an error)


SendAction = ResponseAction.SendAction
NoOpAction = ResponseAction.NoOpAction
CloseConnectionAction = ResponseAction.CloseConnectionAction


class Response:
    """Kafka (<= 1.1): RequestChannel.Response(request, responseSend, responseAction)."""

    __slots__ = ("request", "response_send", "response_action", "response_as_string", "on_complete")

    def __init__(self, request: Request, response_send, response_action: ResponseAction,
                 response_as_string: str | None = None, on_complete=None):
        self.request = request
        self.response_send = response_send
        self.response_action = response_action
        self.response_as_string = response_as_string
        self.on_complete = on_complete

    @property
    def processor(self) -> int:
        return self.request.processor

    @staticmethod
    def for_body(request: Request, body, on_complete=None) -> "Response":
        """A SendAction response: header + body serialized for the request's api version."""
        from kafkalite.network.network_send import NetworkSend
        parts = serialize_response(request.header, body)
        return Response(request, NetworkSend(request.context.connection_id, parts), SendAction,
                        on_complete=on_complete)


class RequestChannel:
    """Kafka: RequestChannel(queueSize, metricNamePrefix)."""

    def __init__(self, queue_size: int, metric_name_prefix: str = ""):
        self.queue_size = queue_size
        self.metric_name_prefix = metric_name_prefix
        # Kafka: ArrayBlockingQueue[BaseRequest](queueSize)
        self.request_queue: queue.Queue = queue.Queue(maxsize=queue_size)
        self.processors: dict[int, object] = {}
        self._lock = threading.Lock()

    # Kafka: RequestChannel.addProcessor
    def add_processor(self, processor) -> None:
        with self._lock:
            if processor.id in self.processors:
                raise RuntimeError(f"Unexpected processor with processorId {processor.id}")
            self.processors[processor.id] = processor

    # Kafka: RequestChannel.removeProcessor
    def remove_processor(self, processor_id: int) -> None:
        with self._lock:
            self.processors.pop(processor_id, None)

    # Kafka: RequestChannel.sendRequest -- blocks while the queue is full (back-pressure).
    def send_request(self, request: Request) -> None:
        if getattr(request, "hops", None) is not None:
            request.record_hop("queued", f"{self.metric_name_prefix or 'data-plane '}RequestChannel, "
                                         f"{self.request_queue.qsize()}/{self.queue_size} before it")
        self.request_queue.put(request)

    # Kafka: RequestChannel.sendResponse -- route to the Processor that owns the connection.
    def send_response(self, response: Response) -> None:
        processor = self.processors.get(response.processor)
        if processor is not None:   # a response for a processor removed meanwhile is dropped
            processor.enqueue_response(response)

    # Kafka: RequestChannel.receiveRequest(timeout)
    def receive_request(self, timeout_ms: int | None = None):
        try:
            return self.request_queue.get(timeout=None if timeout_ms is None else timeout_ms / 1000.0)
        except queue.Empty:
            return None

    # Kafka: RequestChannel.sendShutdownRequest
    def send_shutdown_request(self) -> None:
        self.request_queue.put(SHUTDOWN_REQUEST)

    def request_queue_size(self) -> int:
        return self.request_queue.qsize()

    # Kafka: RequestChannel.clear
    def clear(self) -> None:
        while True:
            try:
                self.request_queue.get_nowait()
            except queue.Empty:
                break
        for p in list(self.processors.values()):
            p.clear_response_queue()

    def shutdown(self) -> None:
        self.clear()
