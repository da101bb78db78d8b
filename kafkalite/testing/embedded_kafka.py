"""No Kafka counterpart (Kafka's own tests use KafkaServerTestHarness / EmbeddedKafkaCluster):
EmbeddedKafka, one in-process kafkalite broker on a free port with its own log directory.

    with EmbeddedKafka() as broker:
        producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
"""
from __future__ import annotations

import shutil
import tempfile


class EmbeddedKafka:
    """An in-process broker: ``start()``, ``stop()``, ``bootstrap_servers``, ``server``."""

    def __init__(self, log_dir: str | None = None, **overrides):
        self._own_dir = log_dir is None
        self.log_dir = log_dir or tempfile.mkdtemp(prefix="kafkalite-")
        self.props = {
            "broker.id": "0",
            "listeners": "PLAINTEXT://127.0.0.1:0",
            "log.dirs": self.log_dir,
            "offsets.topic.replication.factor": "1",
            "offsets.topic.num.partitions": "4",
            "transaction.state.log.replication.factor": "1",
            "transaction.state.log.min.isr": "1",
            "group.initial.rebalance.delay.ms": "0",
            "num.network.threads": "1",
            "num.io.threads": "2",
        }
        self.props.update({k.replace("_", "."): str(v) for k, v in overrides.items()})
        self.server = None

    def start(self) -> "EmbeddedKafka":
        from kafkalite.server.kafka_config import KafkaConfig
        from kafkalite.server.kafka_server import KafkaServer
        self.server = KafkaServer(KafkaConfig.from_props(self.props))
        try:
            self.server.startup()
        except Exception:
            self.server.shutdown()
            raise
        return self

    @property
    def port(self) -> int:
        return self.server.bound_port("PLAINTEXT")

    @property
    def bootstrap_servers(self) -> str:
        return f"127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server = None
        if self._own_dir:
            shutil.rmtree(self.log_dir, ignore_errors=True)

    def __enter__(self) -> "EmbeddedKafka":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
