"""No Kafka counterpart: the data source's blocking client (Spark: KafkaOffsetReaderAdmin / KafkaDataConsumer);
no Spark needed, but it belongs to the Spark suite."""
import time

import pytest

from kafkalite.common.topic_partition import TopicPartition
from kafkalite.record.memory_records import MemoryRecords
from kafkalite.spark.kafka_offset_reader import KafkaOffsetReader, parse_bootstrap_servers
from kafkalite.testing.embedded_kafka import EmbeddedKafka

pytestmark = pytest.mark.spark


def test_partitions_offsets_and_one_fetch_per_chunk_and_reconnect_after_idle_close():
    from kafkalite.clients.producer.kafka_producer import KafkaProducer
    with EmbeddedKafka(num_partitions=3, connections_max_idle_ms=300) as broker:
        with KafkaProducer({"bootstrap.servers": broker.bootstrap_servers}) as producer:
            for i in range(30):
                producer.send("r", value=b"%d" % i, partition=i % 3)
            producer.flush()
        reader = KafkaOffsetReader(broker.bootstrap_servers)
        tps = [TopicPartition("r", p) for p in range(3)]
        assert reader.topic_partitions(["r"]) == tps
        assert reader.fetch_earliest_offsets(tps) == {tp: 0 for tp in tps}
        assert reader.fetch_latest_offsets(tps) == {tp: 10 for tp in tps}
        data = reader.fetch(tps[1], 4, 1 << 20)
        offsets = [r.offset for r in MemoryRecords.readable_records(data.records).records()]
        assert data.high_watermark == 10 and offsets[-1] == 9 and offsets[0] <= 4   # whole batches come back

        # The broker closes the idle connection; the reader's next request reconnects by itself.
        leader = reader.nodes[0]
        deadline = time.monotonic() + 15
        while not reader.client.connection_failed(leader) and time.monotonic() < deadline:
            reader.client.poll(100, reader.client.time.milliseconds())
        assert reader.client.connection_failed(leader)
        assert reader.fetch_latest_offsets(tps) == {tp: 10 for tp in tps}
        reader.close()


def test_bootstrap_servers_parse_like_kafkas():
    assert parse_bootstrap_servers(" a:1, [::1]:2 ,") == [("a", 1), ("::1", 2)]
    with pytest.raises(ValueError, match="Invalid url"):
        parse_bootstrap_servers("nohost")
