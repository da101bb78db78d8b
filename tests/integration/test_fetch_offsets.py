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
