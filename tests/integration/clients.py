"""No Kafka counterpart: one small adapter per real admin client, so the same test can drive
kafka-python, confluent-kafka (librdkafka), aiokafka and kafkajs (through node).

Every adapter has:
  create(name, partitions, replication_factor=1, validate_only=False) -> Kafka error name or None
  delete(name) -> Kafka error name or None
  list() -> set of topic names
  describe(name) -> {partition: (leader, replicas, isr)}
  close()
Error names are Kafka's (``Errors`` in Kafka's Errors.java), from the error code each client
reports, so a test can say ``== "TOPIC_ALREADY_EXISTS"`` whatever the client.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

JS_DIR = Path(__file__).resolve().parents[1] / "js"

# The codes these tests meet, named as Kafka names them.
ERROR_NAMES = {
    0: None,
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    7: "REQUEST_TIMED_OUT",
    17: "INVALID_TOPIC_EXCEPTION",
    36: "TOPIC_ALREADY_EXISTS",
    37: "INVALID_PARTITIONS",
    38: "INVALID_REPLICATION_FACTOR",
    41: "NOT_CONTROLLER",
    42: "INVALID_REQUEST",
}


def error_name(code: int) -> str | None:
    return ERROR_NAMES.get(code, f"error code {code}")


class KafkaPythonAdmin:
    name = "kafka-python"

    def __init__(self, bootstrap: str):
        from kafka import KafkaAdminClient
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000,
                                      client_id="kafkalite-test-kafka-python")

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        result = self.admin.create_topics(
            {name: {"num_partitions": partitions, "replication_factor": replication_factor}},
            timeout_ms=10000, validate_only=validate_only, raise_errors=False)
        [topic] = result["topics"]
        assert topic["name"] == name
        return error_name(topic["error_code"])

    def delete(self, name):
        result = self.admin.delete_topics([name], timeout_ms=10000, raise_errors=False)
        [topic] = result["topics"]
        return error_name(topic["error_code"])

    def list(self):
        return set(self.admin.list_topics())

    def describe(self, name):
        [topic] = self.admin.describe_topics([name])
        assert topic["error_code"] == 0, topic
        return {p["partition_index"]: (p["leader_id"], list(p["replica_nodes"]), list(p["isr_nodes"]))
                for p in topic["partitions"]}

    def topic_id(self, name):
        [topic] = self.admin.describe_topics([name])
        return str(topic["topic_id"])

    def describe_cluster(self):
        return self.admin.describe_cluster()

    def close(self):
        self.admin.close()


class ConfluentAdmin:
    name = "confluent-kafka"

    def __init__(self, bootstrap: str):
        from confluent_kafka.admin import AdminClient
        self.admin = AdminClient({"bootstrap.servers": bootstrap, "client.id": "kafkalite-test-confluent",
                                  "socket.timeout.ms": 10000})

    @staticmethod
    def _error(future):
        from confluent_kafka import KafkaException
        try:
            future.result(timeout=15)
            return None
        except KafkaException as e:
            return error_name(e.args[0].code())

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        from confluent_kafka.admin import NewTopic
        futures = self.admin.create_topics([NewTopic(name, num_partitions=partitions,
                                                     replication_factor=replication_factor)],
                                           operation_timeout=10, request_timeout=15,
                                           validate_only=validate_only)
        return self._error(futures[name])

    def delete(self, name):
        futures = self.admin.delete_topics([name], operation_timeout=10, request_timeout=15)
        return self._error(futures[name])

    def metadata(self, topic=None):
        return self.admin.list_topics(topic=topic, timeout=10)

    def list(self):
        return set(self.metadata().topics)

    def describe(self, name):
        t = self.metadata(name).topics[name]
        assert t.error is None, t.error
        return {p.id: (p.leader, list(p.replicas), list(p.isrs)) for p in t.partitions.values()}

    def close(self):
        pass


class AioKafkaAdmin:
    name = "aiokafka"

    def __init__(self, bootstrap: str):
        from aiokafka.admin import AIOKafkaAdminClient
        self.loop = asyncio.new_event_loop()
        self.admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=10000,
                                         client_id="kafkalite-test-aiokafka")
        self.run(self.admin.start())

    def run(self, coro):
        return self.loop.run_until_complete(asyncio.wait_for(coro, 30))

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        from aiokafka.admin import NewTopic
        response = self.run(self.admin.create_topics(
            [NewTopic(name, partitions, replication_factor)], timeout_ms=10000, validate_only=validate_only))
        [(topic, code, *_message)] = response.topic_errors
        assert topic == name
        return error_name(code)

    def delete(self, name):
        response = self.run(self.admin.delete_topics([name], timeout_ms=10000))
        [(topic, code, *_)] = response.topic_error_codes
        assert topic == name
        return error_name(code)

    def list(self):
        return set(self.run(self.admin.list_topics()))

    def describe(self, name):
        [topic] = self.run(self.admin.describe_topics([name]))
        assert topic["error_code"] == 0, topic
        return {p["partition"]: (p["leader"], list(p["replicas"]), list(p["isr"])) for p in topic["partitions"]}

    def close(self):
        self.run(self.admin.close())
        self.loop.close()


class KafkaJsAdmin:
    """kafkajs 2.2.x through ``node tests/js/admin.js`` (one process per call)."""
    name = "kafkajs"

    def __init__(self, bootstrap: str):
        self.bootstrap = bootstrap

    def call(self, *args):
        proc = subprocess.run(["node", str(JS_DIR / "admin.js"), self.bootstrap, *map(str, args)],
                              capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert proc.returncode == 0, f"admin.js {args} exited {proc.returncode}: {proc.stderr[-2000:]}"
        out = json.loads(proc.stdout.strip().splitlines()[-1])
        out["stderr"] = proc.stderr
        return out

    @staticmethod
    def _error(out):
        if out["ok"]:
            return None
        types = out["error"]["types"]
        assert types, f"kafkajs failed without a Kafka error: {out['error']} {out['stderr'][-2000:]}"
        return types[0]

    def create(self, name, partitions, replication_factor=1, validate_only=False):
        out = self.call("create", name, partitions, replication_factor,
                        *(["--validate-only"] if validate_only else []))
        if out["ok"] and out["result"]["created"] is False:
            return "TOPIC_ALREADY_EXISTS"  # kafkajs turns that error into `false`
        return self._error(out)

    def delete(self, name):
        return self._error(self.call("delete", name))

    def list(self):
        out = self.call("list")
        assert out["ok"], out
        return set(out["result"]["topics"])

    def describe(self, name):
        out = self.call("describe", name)
        assert out["ok"], out
        [topic] = out["result"]["topics"]
        return {p["partition"]: (p["leader"], p["replicas"], p["isr"]) for p in topic["partitions"]}

    def close(self):
        pass


ADMIN_CLIENTS = [KafkaPythonAdmin, ConfluentAdmin, AioKafkaAdmin, KafkaJsAdmin]
