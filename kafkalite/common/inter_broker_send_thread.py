"""Mirrors Kafka 2.4: core/src/main/scala/kafka/common/InterBrokerSendThread.scala

Classes: InterBrokerSendThread (a ShutdownableThread that turns what ``generate_requests()`` returns
into ClientRequests, sends each as soon as its broker is ready, polls the NetworkClient and completes
the requests it could not send -- a failed connection or ``request_timeout_ms`` in the unsent queue --
as disconnected), RequestAndCompletionHandler and UnsentRequests.

Kafka's subclass is the transaction coordinator's TransactionMarkerChannelManager
("TxnMarkerSenderThread-<brokerId>"); in later releases also the broker-to-controller channel.

An unexpected exception in ``do_work`` is logged and turned into FatalExitError, as in Kafka: the broker shuts
down (utils/exit.py) rather than run on with a transaction marker sender that no longer sends.
``request`` in RequestAndCompletionHandler is the request message (or a RequestBuilder) and ``api_key``
names its API, since kafkalite's messages are version-free data classes.
Left out: authentication exceptions (no SASL in kafkalite's client).
"""
from __future__ import annotations

import collections
from typing import Any, Callable, Iterable

import attrs

from kafkalite.clients.client_request import ClientRequest
from kafkalite.clients.client_response import ClientResponse
from kafkalite.clients.node import Node
from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.utils.exit import FatalExitError
from kafkalite.utils.shutdownable_thread import ShutdownableThread

LONG_MAX = 2**63 - 1


@attrs.frozen
class RequestAndCompletionHandler:
    """Kafka: RequestAndCompletionHandler(destination, request, handler)."""

    destination: Node
    api_key: ApiKeys
    request: Any
    handler: Callable[[ClientResponse], None]   # Kafka: RequestCompletionHandler.onComplete


class UnsentRequests:
    """Kafka: UnsentRequests -- per destination, the requests not yet handed to the NetworkClient."""

    def __init__(self):
        self.unsent: dict[Node, collections.deque] = {}

    # Kafka: UnsentRequests.put
    def put(self, node: Node, request: ClientRequest) -> None:
        self.unsent.setdefault(node, collections.deque()).append(request)

    # Kafka: UnsentRequests.removeAllTimedOut -- at most one per node each time, as Kafka
    def remove_all_timed_out(self, now: int) -> list[ClientRequest]:
        expired = []
        for requests in self.unsent.values():
            for request in list(requests):
                if max(0, now - request.created_time_ms) > request.request_timeout_ms:
                    expired.append(request)
                    requests.remove(request)
                    break
        return expired

    # Kafka: UnsentRequests.clean
    def clean(self) -> None:
        for node in [n for n, q in self.unsent.items() if not q]:
            del self.unsent[node]

    # Kafka: UnsentRequests.iterator
    def iterator(self):
        return list(self.unsent.items())

    # Kafka: UnsentRequests.nodes
    def nodes(self) -> list[Node]:
        return list(self.unsent)

    def requests_for(self, node: Node) -> collections.deque:
        return self.unsent.get(node, collections.deque())


class InterBrokerSendThread(ShutdownableThread):
    """Kafka: InterBrokerSendThread(name, networkClient, time, isInterruptible)."""

    def __init__(self, name: str, network_client, time, is_interruptible: bool = True):
        super().__init__(name, is_interruptible)
        self.network_client = network_client
        self.time = time
        self.unsent_requests = UnsentRequests()

    # Kafka: InterBrokerSendThread.generateRequests
    def generate_requests(self) -> Iterable[RequestAndCompletionHandler]:
        raise NotImplementedError

    @property
    def request_timeout_ms(self) -> int:
        raise NotImplementedError

    # Kafka: InterBrokerSendThread.hasUnsentRequests
    def has_unsent_requests(self) -> bool:
        return any(self.unsent_requests.unsent.values())

    def interrupt(self) -> None:
        self.network_client.wakeup()

    # Kafka: InterBrokerSendThread.shutdown
    def shutdown(self) -> None:
        self.initiate_shutdown()
        self.network_client.wakeup()   # in case it is blocked in poll
        self.await_shutdown()

    # Kafka: InterBrokerSendThread.doWork
    def do_work(self) -> None:
        now = self.time.milliseconds()
        for request in self.generate_requests():
            self.unsent_requests.put(request.destination, self.network_client.new_client_request(
                request.destination.id_string, request.api_key, request.request, expect_response=True,
                callback=request.handler, created_time_ms=now, request_timeout_ms=self.request_timeout_ms))
        try:
            timeout = self.send_requests(now)
            self.network_client.poll(timeout, now)
            now = self.time.milliseconds()
            self.check_disconnects(now)
            self.fail_expired_requests(now)
            self.unsent_requests.clean()
        except FatalExitError:
            raise
        except Exception:
            # requests may have been dropped and nothing would make progress: end the broker, as Kafka does
            self.error("unhandled exception caught in InterBrokerSendThread", exc_info=True)
            raise FatalExitError()

    # Kafka: InterBrokerSendThread.sendRequests -> how long poll may wait
    def send_requests(self, now: int) -> int:
        poll_timeout = LONG_MAX
        for node in self.unsent_requests.nodes():
            requests = self.unsent_requests.requests_for(node)
            while requests:
                if self.network_client.ready(node, now):
                    self.network_client.send(requests.popleft(), now)
                else:
                    poll_timeout = min(poll_timeout, self.network_client.connection_delay(node, now))
                    break
        return poll_timeout

    # Kafka: InterBrokerSendThread.checkDisconnects -- unsent requests to a broker we could not reach
    def check_disconnects(self, now: int) -> None:
        for node, requests in self.unsent_requests.iterator():
            if requests and self.network_client.connection_failed(node):
                del self.unsent_requests.unsent[node]
                for request in requests:
                    self.complete_with_disconnect(request, now)

    # Kafka: InterBrokerSendThread.failExpiredRequests
    def fail_expired_requests(self, now: int) -> None:
        for request in self.unsent_requests.remove_all_timed_out(now):
            self.debug(f"Failed to send the following request after {request.request_timeout_ms} ms: {request}")
            self.complete_with_disconnect(request, now)

    # Kafka: InterBrokerSendThread.completeWithDisconnect
    def complete_with_disconnect(self, request: ClientRequest, now: int) -> None:
        make_header: Any = RequestHeader   # a schema-DSL message class: its fields are not visible to mypy
        header = make_header(api_key=request.api_key.id, api_version=request.api_key.max_version,
                             correlation_id=request.correlation_id, client_id=request.client_id)
        ClientResponse(header, request.callback, request.destination, now, now, True).on_complete()

    # Kafka: InterBrokerSendThread.wakeup
    def wakeup(self) -> None:
        self.network_client.wakeup()
