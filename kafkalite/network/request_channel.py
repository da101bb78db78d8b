"""Mirrors Kafka 2.4: core/src/main/scala/kafka/network/RequestChannel.scala

Classes: RequestChannel, Request, RequestContext, Response, ResponseAction (SendAction, NoOpAction,
CloseConnectionAction), ShutdownRequest.

The hand-off between network threads and request-handler threads (S4): one bounded request queue
shared by all handlers (``queued.max.requests``; a full queue blocks the Processor that reads, so
nothing is dropped), and one response queue per Processor, so a response goes back to the thread
that owns its connection.

Era notes: Response carries a ResponseAction (SendAction / NoOpAction / CloseConnectionAction), the
Kafka <= 1.1 vocabulary the source documents use; Kafka 2.x spells the same three cases as the
subclasses SendResponse / NoOpResponse / CloseConnectionResponse. Its StartThrottlingResponse /
EndThrottlingResponse (KIP-219, client quotas) are the actions StartThrottlingAction / EndThrottlingAction.
The request trace (kafkalite's, for learners) is one object on each Request, ``request.trace``
(``kafkalite/network/request_trace.py``): a RequestTrace when ``kafka.request.logger`` is at DEBUG,
else NO_TRACE, whose hops cost a method call.
``RequestContext.principal`` is who the connection authenticated as (KafkaChannel.principal()).
Omitted: the SASL session.
"""
from __future__ import annotations

import enum
import logging
import queue
import threading

import attrs

from kafkalite.metrics.request_metrics import request_metrics
from kafkalite.network.control_first_queue import ControlFirstQueue
from kafkalite.network.request_trace import NO_TRACE, RequestTrace
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body, serialize_response
from kafkalite.utils.time import SYSTEM

request_logger = logging.getLogger("kafka.request.logger")


@attrs.define
class RequestContext:
    """Kafka: org.apache.kafka.common.requests.RequestContext -- who sent a request, and where."""

    header: RequestHeader
    connection_id: str
    client_address: str
    listener_name: str
    security_protocol: str = "PLAINTEXT"
    principal: KafkaPrincipal = KafkaPrincipal.ANONYMOUS   # Kafka: RequestContext.principal (KafkaChannel.principal())
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

    trace = NO_TRACE


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
        # Kafka's RequestHeader holds its ApiKeys; looked up once here, not at each of its many uses
        self.api_key: ApiKeys = ApiKeys.for_id(context.header.api_key)
        self.trace = RequestTrace() if request_logger.isEnabledFor(logging.DEBUG) else NO_TRACE
        # The body is parsed here, on the network thread, as Kafka 2.4 does: a request that cannot
        # be parsed raises in the Processor, which closes only that connection (S17).
        self._release = release
        self._buffer = buffer
        self.size_in_bytes = len(buffer)   # what produce byte-rate quotas count (Kafka's request.sizeInBytes)
        self.body = context.parse_request(buffer, body_offset)
        # Kafka: most requests are whole objects once parsed, so their buffer goes back to the MemoryPool
        # now; a produce request's records are views of it, so it waits until the request is handled.
        if self.api_key is not ApiKeys.PRODUCE:
            self.release_buffer()

    @property
    def header(self) -> RequestHeader:
        return self.context.header

    # Kafka: Request.requestThreadTimeNanos -- the handler thread's time on this request (request quotas)
    def request_thread_time_nanos(self) -> int:
        if self.api_local_complete_time_nanos == -1:
            self.api_local_complete_time_nanos = SYSTEM.nanoseconds()
        return max(self.api_local_complete_time_nanos - self.request_dequeue_time_nanos, 0)

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

        start, dequeued = self.start_time_nanos, self.request_dequeue_time_nanos
        local, remote = self.api_local_complete_time_nanos, self.api_remote_complete_time_nanos
        queued, sending = self.response_complete_time_nanos, self.response_dequeue_time_nanos
        # milliseconds between two stamps, 0 if either was never taken (inline: this runs for every request)
        self.timings = {
            "RequestQueueTimeMs": max(0.0, (dequeued - start) / 1e6) if start >= 0 and dequeued >= 0 else 0.0,
            "LocalTimeMs": max(0.0, (local - dequeued) / 1e6) if dequeued >= 0 and local >= 0 else 0.0,
            "RemoteTimeMs": max(0.0, (remote - local) / 1e6) if local >= 0 and remote >= 0 else 0.0,
            "ResponseQueueTimeMs": max(0.0, (sending - queued) / 1e6) if queued >= 0 and sending >= 0 else 0.0,
            "ResponseSendTimeMs": max(0.0, (end - sending) / 1e6) if sending >= 0 else 0.0,
            "TotalTimeMs": max(0.0, (end - start) / 1e6) if start >= 0 else 0.0,
        }
        request_metrics(self.api_key.api_name).update(self.timings)
        if self.trace.enabled:
            self.trace.hop("sent")
            request_logger.debug("Request trace: %s: %s", self.request_desc(), self.trace.line())
        if request_logger.isEnabledFor(logging.DEBUG):
            t = self.timings
            request_logger.debug(
                "Completed request:%s from %s handler=%s totalTime:%.3f requestQueueTime:%.3f localTime:%.3f "
                "remoteTime:%.3f responseQueueTime:%.3f sendTime:%.3f securityProtocol:%s principal:%s listener:%s",
                self.request_desc(), self.context.client_address, self.handler_thread, t["TotalTimeMs"],
                t["RequestQueueTimeMs"], t["LocalTimeMs"], t["RemoteTimeMs"], t["ResponseQueueTimeMs"],
                t["ResponseSendTimeMs"], self.context.security_protocol, self.context.principal,
                self.context.listener_name)


class ResponseAction(enum.Enum):
    """Kafka (<= 1.1): RequestChannel.ResponseAction."""

    SendAction = "SendAction"                        # write response_send, then unmute
    NoOpAction = "NoOpAction"                        # nothing to write (acks=0): just unmute
    CloseConnectionAction = "CloseConnectionAction"  # close the connection (acks=0 with an error)
    # Kafka 2.4's StartThrottlingResponse / EndThrottlingResponse (KIP-219) -- nothing to write: keep the
    # channel muted for a quota's throttle time, then let it read again
    StartThrottlingAction = "StartThrottlingAction"
    EndThrottlingAction = "EndThrottlingAction"


SendAction = ResponseAction.SendAction
NoOpAction = ResponseAction.NoOpAction
CloseConnectionAction = ResponseAction.CloseConnectionAction
StartThrottlingAction = ResponseAction.StartThrottlingAction
EndThrottlingAction = ResponseAction.EndThrottlingAction


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

    def __init__(self, queue_size: int, metric_name_prefix: str = "", control_first: bool = False):
        self.queue_size = queue_size
        self.metric_name_prefix = metric_name_prefix
        # Kafka: ArrayBlockingQueue[BaseRequest](queueSize); kafkalite.request.priority=control-first swaps in
        # S27's priority queue (control requests first), see control_first_queue.py
        self.request_queue: queue.Queue = ControlFirstQueue(queue_size) if control_first \
            else queue.Queue(maxsize=queue_size)
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
        if request.trace.enabled:
            request.trace.hop("queued", f"{self.metric_name_prefix or 'data-plane '}RequestChannel, "
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
