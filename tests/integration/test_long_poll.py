"""No Kafka counterpart (Kafka checks DelayedFetch in DelayedFetchTest / FetchRequestTest with
its own clients): the long poll of S35 seen from outside.

A consumer Fetch with ``max_wait_ms`` 5000 and ``min_bytes`` 1 on an empty partition must not
come back empty at once, nor wait the full 5 s once data arrives: the fetch waits in the Fetch
purgatory, and the append that brings the first byte completes it
(``ReplicaManager.append_records`` -> ``Partition.try_complete_delayed_requests`` ->
``DelayedFetch.try_complete``). The in-process tests wrap ``DelayedFetch.on_complete`` to see
which path completed it (``completed_by`` is "append" or "expiry").
"""
import time

import pytest

import clients
from harness import RawConnection, wait_until
from kafkalite.server.delayed_fetch import DelayedFetch
from kafkalite.testing.embedded_kafka import EmbeddedKafka

FETCH = 1


@pytest.fixture
def completed_fetches(monkeypatch):
    """Every DelayedFetch whose on_complete ran, in order."""
    seen = []
    original = DelayedFetch.on_complete

    def spy(self):
        seen.append(self)
        return original(self)

    monkeypatch.setattr(DelayedFetch, "on_complete", spy)
    return seen


@pytest.fixture
def embedded():
    broker = EmbeddedKafka().start()
    yield broker
    broker.stop()


@pytest.mark.parametrize("fetch_version", [4, 11])
def test_fetch_returns_soon_after_produce_on_broker_process(broker, unique_topic, fetch_version):
    clients.create_topic(broker.bootstrap, unique_topic, 1)
    with RawConnection(broker.port) as consumer, RawConnection(broker.port) as producer:
        started = time.monotonic()
        consumer.send_frame(_fetch_frame(unique_topic, fetch_version, max_wait_ms=5000, correlation_id=7))
        # The scenario itself, not synchronisation: the fetch must find the partition empty and
        # wait. (The in-process test below waits on the purgatory instead.)
        time.sleep(0.5)
        produced_at = time.monotonic()
        [r] = clients.raw_produce(producer, unique_topic, {0: clients.build_batch([b"wake-up"])}).values()
        assert r.error_code == 0
        response = _read_fetch(consumer, fetch_version, 7)
        answered_at = time.monotonic()
    [p] = response.responses[0].partitions
    assert p.error_code == 0
    assert clients.fetched_values(p) == [b"wake-up"]
    assert answered_at - started >= 0.45, "the fetch did not wait for data"
    assert answered_at - produced_at < 2.0, f"the fetch came back {answered_at - produced_at:.2f}s after the append"


def test_delayed_fetch_completes_on_append(embedded, completed_fetches):
    clients.create_topic(embedded.bootstrap_servers, "long-poll", 1)
    purgatory = embedded.server.replica_manager.delayed_fetch_purgatory
    with RawConnection(embedded.port) as consumer, RawConnection(embedded.port) as producer:
        consumer.send_frame(_fetch_frame("long-poll", 11, max_wait_ms=5000, correlation_id=3))
        wait_until(lambda: purgatory.num_delayed() >= 1, 5, "the fetch to wait in the Fetch purgatory")
        produced_at = time.monotonic()
        [r] = clients.raw_produce(producer, "long-poll", {0: clients.build_batch([b"a", b"b"])}).values()
        assert r.error_code == 0
        response = _read_fetch(consumer, 11, 3)
        answered_at = time.monotonic()
    assert clients.fetched_values(response.responses[0].partitions[0]) == [b"a", b"b"]
    assert answered_at - produced_at < 2.0
    assert [op.completed_by for op in completed_fetches] == ["append"]
    assert wait_until(lambda: purgatory.num_delayed() == 0, 5, "the timer task to be cancelled")


def test_delayed_fetch_expires_after_max_wait_when_nothing_arrives(embedded, completed_fetches):
    clients.create_topic(embedded.bootstrap_servers, "idle", 1)
    with RawConnection(embedded.port) as consumer:
        started = time.monotonic()
        consumer.send_frame(_fetch_frame("idle", 11, max_wait_ms=1500, correlation_id=5))
        response = _read_fetch(consumer, 11, 5)
        elapsed = time.monotonic() - started
    [p] = response.responses[0].partitions
    assert p.error_code == 0 and clients.fetched_values(p) == []
    assert 1.4 <= elapsed < 4.0, f"answered after {elapsed:.2f}s for a 1.5 s max wait"
    assert [op.completed_by for op in completed_fetches] == ["expiry"]


def test_fetch_with_data_already_there_does_not_wait(embedded, completed_fetches):
    clients.create_topic(embedded.bootstrap_servers, "ready", 1)
    with RawConnection(embedded.port) as conn:
        clients.raw_produce(conn, "ready", {0: clients.build_batch([b"x"])}, correlation_id=1)
        started = time.monotonic()
        conn.send_frame(_fetch_frame("ready", 11, max_wait_ms=5000, correlation_id=2))
        response = _read_fetch(conn, 11, 2)
        elapsed = time.monotonic() - started
    assert clients.fetched_values(response.responses[0].partitions[0]) == [b"x"]
    assert elapsed < 2.0
    assert completed_fetches == [], "a fetch that could be answered at once went to the purgatory"


def _fetch_frame(topic, version, max_wait_ms, correlation_id):
    from kafkalite.protocol.request_header import RequestHeader
    from kafkalite.protocol.requests import serialize_request
    header = RequestHeader(api_key=FETCH, api_version=version, correlation_id=correlation_id,
                           client_id="kafkalite-long-poll-test")
    return serialize_request(header, clients.raw_fetch_body(topic, [0], max_wait_ms, min_bytes=1))


def _read_fetch(conn, version, correlation_id):
    from kafkalite.protocol.requests import parse_response
    conn.sock.settimeout(10)
    corr, response = parse_response(FETCH, version, conn.recv_frame())
    assert corr == correlation_id
    assert len(response.responses) == 1
    return response
