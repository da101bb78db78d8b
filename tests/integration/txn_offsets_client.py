"""No Kafka counterpart: the client half of ``test_txn_offsets_after_broker_kill9.py``, run as its own process
so that the test can kill it when librdkafka hangs.

    python tests/integration/txn_offsets_client.py BOOTSTRAP TOPIC GROUP TRANSACTIONAL_ID STRATEGY API_TIMEOUT_S

A confluent-kafka transactional producer (``metadata.recovery.strategy=STRATEGY``) runs one transaction that
sends GROUP's offset for TOPIC-0 (``send_offsets_to_transaction``, so librdkafka caches GROUP's coordinator) and
writes one record, prints ``ready``, waits for a line on stdin (the test kills and restarts the broker
meanwhile), then runs a second one the same way, offsets first. It prints ``offsets <n>`` and ``committed <n>``
after each step; any error ends it with exit code 3 after printing ``error ...``. ``TXN_OFFSETS_DEBUG`` sets
librdkafka's ``debug`` (its log goes to stderr).
"""
from __future__ import annotations

import os
import sys


def main(argv: list[str]) -> int:
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    bootstrap, topic, group, transactional_id, strategy, api_timeout = argv
    api_timeout = float(api_timeout)
    debug = {"debug": os.environ["TXN_OFFSETS_DEBUG"]} if os.environ.get("TXN_OFFSETS_DEBUG") else {}
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                         "transaction.timeout.ms": 10000, "reconnect.backoff.max.ms": 200,
                         "metadata.recovery.strategy": strategy, **debug})
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})

    def transaction(n: int) -> None:
        producer.begin_transaction()
        producer.send_offsets_to_transaction([TopicPartition(topic, 0, n)], consumer.consumer_group_metadata(),
                                             api_timeout)
        print(f"offsets {n}", flush=True)
        producer.produce(topic, value=b"record-%d" % n, partition=0)
        producer.flush(api_timeout)
        producer.commit_transaction(api_timeout)
        print(f"committed {n}", flush=True)

    try:
        producer.init_transactions(30)
        transaction(1)
        print("ready", flush=True)
        sys.stdin.readline()
        transaction(2)
    except KafkaException as e:
        print(f"error {e!r}", flush=True)
        return 3
    finally:
        consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
