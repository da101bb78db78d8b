"""No Kafka counterpart (Kafka's FetchRequestTest checks the same fields): the offsets a Fetch response
carries per partition -- the high watermark (S38: consumers read only below it), the last stable offset
and the log start offset -- are the partition's, for every Fetch version kafkalite serves."""
import pytest

import clients
from harness import RawConnection


@pytest.mark.parametrize("version", [4, 11, 12])
def test_fetch_response_carries_the_partition_offsets(broker, unique_topic, version):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    clients.produce_confluent(broker.bootstrap, unique_topic, clients.make_records(7), {"acks": "1"})
    conn = RawConnection(broker.port)
    try:
        response = clients.raw_request(conn, 1, version, clients.raw_fetch_body(unique_topic, [0], 0, 1, 2))
    finally:
        conn.sock.close()
    [topic] = response.responses
    [p] = topic.partitions
    assert p.error_code == 0
    assert p.high_watermark == 7
    assert p.last_stable_offset == 7
    assert p.log_start_offset == (0 if version >= 5 else -1)   # the field exists from v5
    # whole batches come back, so the batch holding offset 2 starts before it
    assert clients.fetched_values(p)[-5:] == [r.value for r in clients.make_records(7)][2:]


def test_delete_records_with_a_real_admin_client(broker, unique_topic):
    from confluent_kafka import Consumer, TopicPartition
    from confluent_kafka.admin import AdminClient
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    clients.produce_confluent(broker.bootstrap, unique_topic, clients.make_records(10), {"linger.ms": 0})
    admin = AdminClient({"bootstrap.servers": broker.bootstrap})
    [future] = admin.delete_records([TopicPartition(unique_topic, 0, 4)]).values()
    result = future.result(20)
    assert result.low_watermark == 4
    consumer = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": unique_topic})
    try:
        assert consumer.get_watermark_offsets(TopicPartition(unique_topic, 0), timeout=10) == (4, 10)
    finally:
        consumer.close()
