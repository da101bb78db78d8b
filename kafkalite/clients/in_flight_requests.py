"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/InFlightRequests.java

Classes: InFlightRequests -- the requests sent (or being sent) to each node that have not been answered yet.

Per node a deque with the **newest request first** (Kafka's ``addFirst``): responses arrive in request order,
so ``complete_next`` takes the oldest from the right end, while ``last_sent`` / ``complete_last_sent`` look at
the left end (a request that expects no response is finished as soon as it is written).
``can_send_more`` enforces ``max.in.flight.requests.per.connection``, and also refuses while the newest
request is still only partly written (one send per channel at a time).
"""
from __future__ import annotations

import collections


class InFlightRequests:
    """Kafka: InFlightRequests."""

    def __init__(self, max_in_flight_requests_per_connection: int):
        self.max_in_flight_requests_per_connection = max_in_flight_requests_per_connection
        self.requests: dict[str, collections.deque] = {}
        self._in_flight_request_count = 0

    # Kafka: InFlightRequests.add
    def add(self, request) -> None:
        self.requests.setdefault(request.destination, collections.deque()).appendleft(request)
        self._in_flight_request_count += 1

    def _request_queue(self, node: str) -> collections.deque:
        reqs = self.requests.get(node)
        if not reqs:
            raise RuntimeError(f"There are no in-flight requests for node {node}")   # IllegalStateException
        return reqs

    # Kafka: InFlightRequests.completeNext -- the oldest request, whose response just arrived
    def complete_next(self, node: str):
        request = self._request_queue(node).pop()
        self._in_flight_request_count -= 1
        return request

    # Kafka: InFlightRequests.lastSent
    def last_sent(self, node: str):
        return self._request_queue(node)[0]

    # Kafka: InFlightRequests.completeLastSent
    def complete_last_sent(self, node: str):
        request = self._request_queue(node).popleft()
        self._in_flight_request_count -= 1
        return request

    # Kafka: InFlightRequests.canSendMore
    def can_send_more(self, node: str) -> bool:
        queue = self.requests.get(node)
        return not queue or (queue[0].send.completed()
                             and len(queue) < self.max_in_flight_requests_per_connection)

    # Kafka: InFlightRequests.count(node) / count()
    def count(self, node: str | None = None) -> int:
        if node is None:
            return self._in_flight_request_count
        queue = self.requests.get(node)
        return len(queue) if queue else 0

    # Kafka: InFlightRequests.isEmpty(node) / isEmpty()
    def is_empty(self, node: str | None = None) -> bool:
        if node is None:
            return self._in_flight_request_count == 0
        return not self.requests.get(node)

    # Kafka: InFlightRequests.clearAll -- every request to a node, newest first
    def clear_all(self, node: str) -> list:
        queue = self.requests.pop(node, None)
        if not queue:
            return []
        self._in_flight_request_count -= len(queue)
        return list(queue)

    # Kafka: InFlightRequests.nodesWithTimedOutRequests
    def nodes_with_timed_out_requests(self, now: int) -> list[str]:
        nodes = []
        for node, queue in self.requests.items():
            if any(now - r.send_time_ms > r.request_timeout_ms for r in queue):
                nodes.append(node)
        return nodes
