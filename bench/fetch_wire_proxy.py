"""No Kafka counterpart: a TCP proxy between Kafka clients and a broker that decodes every Fetch request and response on the wire
(with kafkalite's own message classes) and records, per fetch, how many partitions each side named.

Start it before the broker, give the broker ``advertised.listeners=PLAINTEXT://127.0.0.1:<proxy.port>``
so that clients reach every broker connection through it, then ``proxy.upstream_port = <broker port>``.
Used by tests/integration/test_fetch_sessions.py and bench/fetch_sessions.py (which counts frames and bytes
only: ``decode=False``).
"""
from __future__ import annotations

import socket
import struct
import threading

import attrs

from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.protocol.request_header import RequestHeader
from kafkalite.protocol.requests import parse_request_body, parse_response


@attrs.define
class FetchExchange:
    client_id: str
    session_id: int                # the request's
    session_epoch: int
    request_partitions: int
    forgotten_partitions: int
    request_bytes: int
    response_partitions: int = -1  # -1 until the response arrived
    response_session_id: int = -1
    response_error: int = -1
    response_bytes: int = 0
    partitions_with_records: int = 0


def _recv_exactly(sock, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _records_size(records) -> int:
    return 0 if records is None else len(records) if isinstance(records, (bytes, bytearray, memoryview)) \
        else records.size_in_bytes()


class FetchWireProxy:
    def __init__(self, decode: bool = True):
        self.decode = decode
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.upstream_port: int | None = None
        self.upstream_ready = threading.Event()
        self.lock = threading.Lock()
        self.exchanges: list[FetchExchange] = []
        self.fetch_bytes = [0, 0]   # request bytes, response bytes of every Fetch (frames with size prefixes)
        self.fetch_count = [0, 0]   # Fetch requests, Fetch responses
        self._socks: list = []
        self._closed = False
        threading.Thread(target=self._accept_loop, name="fetch-wire-proxy-acceptor", daemon=True).start()

    def set_upstream(self, port: int) -> None:
        self.upstream_port = port
        self.upstream_ready.set()

    def fetches(self, client_id: str | None = None) -> list[FetchExchange]:
        with self.lock:
            return [e for e in self.exchanges if client_id is None or e.client_id == client_id]

    def reset_counters(self) -> None:
        with self.lock:
            self.exchanges.clear()
            self.fetch_bytes = [0, 0]
            self.fetch_count = [0, 0]

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        for s in list(self._socks):
            try:
                s.close()
            except OSError:
                pass

    def _accept_loop(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.upstream_ready.wait(30):
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()
                continue
            for s in (client, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._socks += [client, upstream]
            in_flight: dict[int, tuple] = {}
            threading.Thread(target=self._requests, args=(client, upstream, in_flight), daemon=True,
                             name="fetch-wire-proxy-requests").start()
            threading.Thread(target=self._responses, args=(upstream, client, in_flight), daemon=True,
                             name="fetch-wire-proxy-responses").start()

    def _requests(self, src, dst, in_flight: dict) -> None:
        try:
            while True:
                size = _recv_exactly(src, 4)
                if size is None:
                    break
                payload = _recv_exactly(src, struct.unpack(">i", size)[0])
                if payload is None:
                    break
                api_key, version, correlation_id = struct.unpack_from(">hhi", payload)
                if api_key == ApiKeys.FETCH.id:
                    exchange = None
                    if self.decode:
                        header, offset = RequestHeader.parse(payload)
                        body = parse_request_body(header, payload, offset)
                        exchange = FetchExchange(
                            header.client_id or "", body.session_id, body.session_epoch,
                            sum(len(t.partitions) for t in body.topics),
                            sum(len(t.partitions) for t in body.forgotten_topics_data), 4 + len(payload))
                    with self.lock:
                        self.fetch_bytes[0] += 4 + len(payload)
                        self.fetch_count[0] += 1
                        if exchange is not None:
                            self.exchanges.append(exchange)
                    in_flight[correlation_id] = (version, exchange)
                dst.sendall(size + payload)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def _responses(self, src, dst, in_flight: dict) -> None:
        try:
            while True:
                size = _recv_exactly(src, 4)
                if size is None:
                    break
                payload = _recv_exactly(src, struct.unpack(">i", size)[0])
                if payload is None:
                    break
                correlation_id = struct.unpack_from(">i", payload)[0]
                found = in_flight.pop(correlation_id, None)
                if found is not None:
                    version, exchange = found
                    with self.lock:
                        self.fetch_bytes[1] += 4 + len(payload)
                        self.fetch_count[1] += 1
                    if exchange is not None:
                        _, body = parse_response(ApiKeys.FETCH, version, payload)
                        parts = [p for t in body.responses for p in t.partitions]
                        with self.lock:
                            exchange.response_partitions = len(parts)
                            exchange.response_session_id = body.session_id
                            exchange.response_error = body.error_code
                            exchange.response_bytes = 4 + len(payload)
                            exchange.partitions_with_records = sum(1 for p in parts if _records_size(p.records))
                dst.sendall(size + payload)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
