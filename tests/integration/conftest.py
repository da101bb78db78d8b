"""No Kafka counterpart: pytest fixtures for the real-client integration tests.

- ``broker`` (session): one broker subprocess shared by tests that only create uniquely
  named topics; started with the README's command plus ``--override`` for port and log.dirs.
- ``broker_factory`` (function): ``broker_factory(overrides)`` starts a broker of the test's
  own (e.g. with a small ``socket.request.max.bytes``); all are stopped after the test.
- ``fresh_broker`` (function): ``broker_factory()`` with no overrides.
- ``inproc_broker`` (function): ``KafkaServer`` inside the test process.
- ``unique_topic``: a topic name no other test uses.

Each broker's log is printed at teardown, so pytest shows it beside a failing test.
"""

import uuid

import pytest

from harness import BrokerProcess, InProcessBroker


def _report(b: BrokerProcess, title: str) -> None:
    print(f"\n--- {title}: {' '.join(b.command())}\n--- last lines of {b.log_path}:\n{b.log_tail(60)}")


@pytest.fixture(scope="session")
def broker(tmp_path_factory):
    b = BrokerProcess(tmp_path_factory.mktemp("session-broker"))
    b.start()
    yield b
    b.stop()


@pytest.fixture
def broker_factory(tmp_path):
    started = []

    def start(overrides=None, **kwargs):
        b = BrokerProcess(tmp_path / f"broker{len(started)}", overrides, **kwargs)
        started.append(b)
        return b.start()

    yield start
    for b in started:
        b.stop()
        _report(b, "broker")


@pytest.fixture
def fresh_broker(broker_factory):
    return broker_factory()


@pytest.fixture
def inproc_broker(tmp_path):
    b = InProcessBroker(tmp_path / "kafka-logs").start()
    yield b
    b.stop()


@pytest.fixture
def unique_topic(request):
    stem = "".join(c if c.isalnum() else "-" for c in request.node.name)[:60].strip("-")
    return f"{stem}-{uuid.uuid4().hex[:8]}"
