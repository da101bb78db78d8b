"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/ServerStartupTest.scala (the order parts).

- S28: the Processors start reading requests only once KafkaApis and the request handler pools exist
  (``SocketServer.startup(startupProcessors = false)`` early, ``startProcessors`` last), so no request
  can reach a queue nobody serves;
- S23: the control-plane processor starts before the data-plane ones (KIP-291), so the controller's
  requests are served as soon as clients' are.
"""
from kafkalite.network.socket_server import Acceptor, SocketServer
from kafkalite.testing.embedded_kafka import EmbeddedKafka


def test_processors_start_after_the_request_handlers_exist(tmp_path, monkeypatch):
    seen = {}
    real = SocketServer.start_processing_requests

    def start_processing_requests(self):
        server = broker.server
        seen.setdefault("apis", server.data_plane_request_handler_pool is not None and
            server.data_plane_request_handler_pool.apis is not None)
        real(self)
    monkeypatch.setattr(SocketServer, "start_processing_requests", start_processing_requests)
    broker = EmbeddedKafka(log_dir=str(tmp_path / "logs"))
    broker.start()
    try:
        assert seen == {"apis": True}
    finally:
        broker.stop()


def test_control_plane_processors_start_before_the_data_plane(tmp_path, monkeypatch):
    order = []
    real = Acceptor.start_processors

    def start_processors(self, prefix):
        order.append(self.end_point.listener_name)
        real(self, prefix)
    monkeypatch.setattr(Acceptor, "start_processors", start_processors)
    broker = EmbeddedKafka(log_dir=str(tmp_path / "logs"),
                           listeners="PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0",
                           listener_security_protocol_map="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                           control_plane_listener_name="CONTROLLER")
    broker.start()
    try:
        assert order == ["CONTROLLER", "PLAINTEXT"]
    finally:
        broker.stop()
