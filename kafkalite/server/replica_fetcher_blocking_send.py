"""Mirrors Kafka 2.4: core/src/main/scala/kafka/server/ReplicaFetcherBlockingSend.scala

Classes: ReplicaFetcherBlockingSend -- one fetcher thread's connection to its source broker: its own
Selector and NetworkClient (kafkalite's client, the one the controller's send threads use), on the
inter-broker listener, one request at a time. ``send_request`` connects if needed, sends, and waits for
the answer, each within ``replica.socket.timeout.ms``; on any failure it closes the connection (the next
request reconnects) and raises.
"""
from __future__ import annotations

from kafkalite.clients.network_client import NetworkClient
from kafkalite.clients.network_client_utils import NetworkClientUtils
from kafkalite.clients.node import Node
from kafkalite.network.channel_builders import broker_client_channel_builder
from kafkalite.network.selector import Selector


class ReplicaFetcherBlockingSend:
    """Kafka: ReplicaFetcherBlockingSend(sourceBroker, brokerConfig, metrics, time, fetcherId, clientId,
    logContext)."""

    def __init__(self, source_broker, broker_config, time, fetcher_id: int, client_id: str):
        self.source_node = Node(source_broker.id, source_broker.host, source_broker.port)
        self.socket_timeout_ms = broker_config.get("replica.socket.timeout.ms")
        self.time = time
        log_context = f"[ReplicaFetcher replicaId={broker_config.broker_id}, leaderId={source_broker.id}, " \
                      f"fetcherId={fetcher_id}] "
        selector = Selector(max_receive_size=broker_config.get("socket.request.max.bytes"), time=time,
                            log_context=log_context, channel_builder=broker_client_channel_builder(broker_config,
                                                                                                   time=time))
        self.network_client = NetworkClient(
            selector, None, client_id=client_id, max_in_flight_requests_per_connection=1,
            reconnect_backoff_ms=0, reconnect_backoff_max_ms=0,
            request_timeout_ms=self.socket_timeout_ms, time=time, log_context=log_context)

    # Kafka: ReplicaFetcherBlockingSend.sendRequest -- the response, or an exception (connection closed)
    def send_request(self, api_key, request):
        try:
            if not NetworkClientUtils.await_ready(self.network_client, self.source_node, self.socket_timeout_ms,
                                                  self.time):
                raise TimeoutError(f"Failed to connect within {self.socket_timeout_ms} ms")
            client_request = self.network_client.new_client_request(
                self.source_node.id_string, api_key, request, request_timeout_ms=self.socket_timeout_ms)
            return NetworkClientUtils.send_and_receive(self.network_client, client_request, self.time)
        except BaseException:
            if self.network_client.active():
                self.network_client.close(self.source_node.id_string)
            raise

    # Kafka: ReplicaFetcherBlockingSend.initiateClose -- wakes a thread blocked in send_request
    def initiate_close(self) -> None:
        self.network_client.initiate_close()

    # Kafka: ReplicaFetcherBlockingSend.close
    def close(self) -> None:
        self.network_client.close()
