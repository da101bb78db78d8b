"""No Kafka counterpart (Kafka's system tests run the same loop as ``TransactionalMessageCopier``): the
consume-transform-produce application that ``txn_torture.py`` kills with SIGKILL.

    python tests/torture/txn_ctp_app.py BOOTSTRAP INPUT OUTPUT GROUP TRANSACTIONAL_ID

What a user's exactly-once copier does with confluent-kafka: ``init_transactions()`` first (it fences an
earlier instance and waits until that instance's last transaction, offsets included, is complete), then a
read_committed consumer assigned every partition of INPUT starts from GROUP's committed offsets; each batch it
reads becomes one transaction: the records go to the same partition of OUTPUT with ``out:`` before the value,
the batch's next offsets go into the transaction with ``send_offsets_to_transaction`` (after the records, or,
every other transaction, before them, so that a kill finds offsets pending while records are written), and the
transaction commits. It assigns instead of subscribing, so a killed instance leaves no group member behind to
wait out.

Any error ends the process with exit code 3 (the torture restarts it; the next instance's init_transactions
aborts whatever was left open). SIGTERM ends it between transactions with exit code 0. It prints each step of each
transaction to stdout (``begin``, ``produced`` and ``offsets sent`` in either order, ``committing``,
``committed <records>``) for the torture's log.
"""
from __future__ import annotations

import os
import signal
import sys


def main(argv: list[str]) -> int:
    from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
    bootstrap, source, output, group, transactional_id = argv
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))

    debug = {"debug": os.environ["TXN_CTP_DEBUG"]} if os.environ.get("TXN_CTP_DEBUG") else {}  # e.g. "eos,protocol"
    # librdkafka >= 2.10 re-bootstraps when every broker is down (this single broker's kill -9) and decommissions
    # the broker it knew, which may still be cached as the group coordinator: the next send_offsets_to_transaction
    # then waits on that dead handle forever (librdkafka #5511, timeout ignored: #5456). See txn_torture.py.
    # TXN_CTP_REBOOTSTRAP=1 keeps librdkafka's default, to see it happen.
    recovery = {} if os.environ.get("TXN_CTP_REBOOTSTRAP") else {"metadata.recovery.strategy": "none"}
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id,
                         "transaction.timeout.ms": 10000, "linger.ms": 5, "reconnect.backoff.max.ms": 200,
                         **recovery, **debug})
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "isolation.level": "read_committed",
                         "enable.auto.commit": False, "enable.auto.offset.store": False,
                         "auto.offset.reset": "earliest", "reconnect.backoff.max.ms": 200})
    try:
        producer.init_transactions(60)
        partitions = consumer.list_topics(source, timeout=30).topics[source].partitions
        consumer.assign([TopicPartition(source, p) for p in partitions])   # from the group's committed offsets
        transactions = 0
        while not stopping:
            batch = [m for m in consumer.consume(num_messages=200, timeout=0.5) if m.error() is None]
            if not batch:
                continue
            producer.begin_transaction()
            print(f"begin {len(batch)} from {batch[0].partition()}:{batch[0].offset()}", flush=True)
            next_offsets = {}
            for m in batch:
                next_offsets[m.partition()] = m.offset() + 1
            offsets = [TopicPartition(source, p, o) for p, o in next_offsets.items()]
            offsets_first = transactions % 2 == 1    # every other transaction: offsets pending while it produces
            if offsets_first:
                producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
                print(f"offsets sent first {sorted(next_offsets.items())}", flush=True)
            for m in batch:
                while True:
                    try:
                        producer.produce(output, key=m.key(), value=b"out:" + m.value(), partition=m.partition())
                        break
                    except BufferError:
                        producer.poll(0.05)
            producer.flush(30)
            print("produced", flush=True)
            if not offsets_first:
                producer.send_offsets_to_transaction(offsets, consumer.consumer_group_metadata(), 30)
                print(f"offsets sent {sorted(next_offsets.items())}", flush=True)
            print("committing", flush=True)
            producer.commit_transaction(60)
            print(f"committed {len(batch)}", flush=True)
            transactions += 1
    except KafkaException as e:
        print(f"error {e!r}", flush=True)
        return 3
    finally:
        consumer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
