"""Mirrors Kafka 2.4: core/src/main/scala/kafka/cluster/EndPoint.scala and Broker.scala

Classes: EndPoint, Broker.

An EndPoint is one listener (S18): ``PLAINTEXT://127.0.0.1:9092`` parses to host 127.0.0.1,
port 9092, listener name PLAINTEXT, and the security protocol that
``listener.security.protocol.map`` gives that name.
"""
from __future__ import annotations

import re

import attrs

DEFAULT_SECURITY_PROTOCOL_MAP = {"PLAINTEXT": "PLAINTEXT", "SSL": "SSL", "SASL_PLAINTEXT": "SASL_PLAINTEXT",
                                 "SASL_SSL": "SASL_SSL"}
_URI = re.compile(r"^(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$")


class EndPointParseError(ValueError):
    pass


@attrs.frozen
class EndPoint:
    """Kafka: EndPoint(host, port, listenerName, securityProtocol)."""

    host: str
    port: int
    listener_name: str
    security_protocol: str

    # Kafka: EndPoint.connectionString
    def connection_string(self) -> str:
        host = f"[{self.host}]" if self.host and ":" in self.host else self.host
        return f"{self.listener_name}://{host}:{self.port}"

    # Kafka: EndPoint.createEndPoint
    @staticmethod
    def create_end_point(connection_string: str, security_protocol_map: dict[str, str] | None = None) -> "EndPoint":
        protocol_map = security_protocol_map or DEFAULT_SECURITY_PROTOCOL_MAP
        m = _URI.match(connection_string.strip())
        if not m:
            raise EndPointParseError(f"Unable to parse {connection_string} to a broker endpoint")
        name, host, port = m.group(1).upper(), m.group(2), int(m.group(3))
        if name not in protocol_map:
            raise EndPointParseError(f"No security protocol defined for listener {name}")
        return EndPoint(host, port, name, protocol_map[name])

    def with_port(self, port: int) -> "EndPoint":
        return attrs.evolve(self, port=port)


@attrs.frozen
class Broker:
    """Kafka: Broker(id, endPoints, rack)."""

    id: int
    end_points: tuple[EndPoint, ...]
    rack: str | None = None

    def end_point(self, listener_name: str) -> EndPoint | None:
        for ep in self.end_points:
            if ep.listener_name == listener_name:
                return ep
        return None
