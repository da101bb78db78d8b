"""Mirrors the thread-name checks of Kafka's SocketServerTest / KafkaServerTest (S49):
``threading.enumerate()`` shows Kafka's names for the acceptor, the network threads and the
request handlers of a broker running in this process, and they are gone after shutdown.

Kafka 2.4 names: ``data-plane-kafka-socket-acceptor-<listener>-<protocol>-<port>``,
``data-plane-kafka-network-thread-<broker>-<listener>-<protocol>-<n>``,
``data-plane-kafka-request-handler-<n>``. The acceptor's port is the endpoint's; with
``listeners=...:0`` that may be 0 or the bound port, so both are accepted.
"""

import threading

from harness import InProcessBroker, wait_until


def kafka_thread_names():
    return {t.name for t in threading.enumerate() if t.name.startswith("data-plane-kafka-")}


def expected_names(port, network_threads, io_threads):
    return (
        {f"data-plane-kafka-network-thread-0-PLAINTEXT-PLAINTEXT-{n}" for n in range(network_threads)}
        | {f"data-plane-kafka-request-handler-{n}" for n in range(io_threads)}
    )


def test_default_thread_names(inproc_broker):
    names = kafka_thread_names()
    acceptors = {n for n in names if "socket-acceptor" in n}
    assert acceptors & {f"data-plane-kafka-socket-acceptor-PLAINTEXT-PLAINTEXT-{p}" for p in (inproc_broker.port, 0)}, names
    # Kafka's defaults: num.network.threads=3, num.io.threads=8.
    assert expected_names(inproc_broker.port, 3, 8) <= names, sorted(names)


def test_thread_counts_follow_config_and_threads_end_at_shutdown(tmp_path):
    before = kafka_thread_names()
    b = InProcessBroker(tmp_path / "kafka-logs", {"num.network.threads": "2", "num.io.threads": "3"}).start()
    try:
        started = kafka_thread_names() - before
        acceptor = {n for n in started if "socket-acceptor" in n}
        assert len(acceptor) == 1, sorted(started)
        assert started - acceptor == expected_names(b.port, 2, 3), sorted(started)
    finally:
        b.stop()
    wait_until(lambda: not (kafka_thread_names() - before), 10, "the broker's threads to end after shutdown")


def test_replica_fetcher_threads_per_leader_and_fetcher_id(kafka_cluster_factory):
    # Kafka: ReplicaFetcherThread-<fetcherId>-<sourceBrokerId>, num.replica.fetchers per leader (S9)
    from confluent_kafka.admin import AdminClient, NewTopic
    cluster = kafka_cluster_factory(3, replication_factor=3, num_replica_fetchers=2)
    admin = AdminClient({"bootstrap.servers": cluster.bootstrap_servers})
    admin.create_topics([NewTopic("fetchers", 6, 3)])["fetchers"].result(10)

    def fetcher_names(i):
        manager = cluster.brokers[i].server.replica_manager.replica_fetcher_manager
        return {t.name for t in manager.fetcher_thread_map.values() if t.is_alive()}

    for i in range(3):
        others = [b for b in range(3) if b != i]
        expected = {f"ReplicaFetcherThread-{f}-{leader}" for f in (0, 1) for leader in others}
        wait_until(lambda: fetcher_names(i) == expected, 15, f"broker {i}'s fetchers {sorted(expected)}")
    threads = [t for t in threading.enumerate() if t.name.startswith("ReplicaFetcherThread-")]
    cluster.stop()
    assert not any(t.is_alive() for t in threads)
