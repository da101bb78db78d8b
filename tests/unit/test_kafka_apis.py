"""Mirrors Kafka 2.4: core/src/test/scala/unit/kafka/server/KafkaApisTest.scala (the dispatch): every API the
broker advertises reaches its own handler through KafkaApis.handle's explicit match, and an API it does not
serve closes the connection (UNSUPPORTED_VERSION, logged)."""
import re
from pathlib import Path

import pytest

from kafkalite.protocol.api_keys import ApiKeys
from kafkalite.server import kafka_apis
from kafkalite.server.kafka_apis import SERVED_APIS, KafkaApis


class FakeRequest:
    def __init__(self, api_key):
        self.api_key = api_key
        self.api_local_complete_time_nanos = -1

    def request_desc(self):
        return self.api_key.name


class FakeTime:
    def nanoseconds(self):
        return 1


def handler_for(api_key) -> str:
    """The handler KafkaApis.handle's match names for ``api_key``."""
    source = Path(kafka_apis.__file__).read_text()
    m = re.search(rf"case ApiKeys\.{api_key.name}: self\.(\w+)\(request\)", source)
    assert m, f"no case for {api_key.name} in KafkaApis.handle"
    return m.group(1)


@pytest.mark.parametrize("api_key", SERVED_APIS, ids=lambda k: k.name)
def test_each_served_api_reaches_its_handler(api_key, monkeypatch):
    called, errors = [], []
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = FakeTime()
    monkeypatch.setattr(apis, "handle_error", lambda request, e: errors.append(e), raising=False)
    name = handler_for(api_key)
    assert hasattr(KafkaApis, name), f"{name} is not a KafkaApis method"
    monkeypatch.setattr(apis, name, lambda request: called.append((name, request.api_key)), raising=False)
    apis.handle(FakeRequest(api_key))
    assert called == [(name, api_key)] and not errors


def test_advertised_apis_are_the_served_ones_with_a_schema():
    assert set(KafkaApis.advertised_apis()) == {k for k in SERVED_APIS if k.request_class is not None}
    assert ApiKeys.PRODUCE in KafkaApis.advertised_apis()


def test_an_api_not_served_is_an_error():
    unserved = next(k for k in ApiKeys if k not in SERVED_APIS)
    errors = []
    apis = KafkaApis.__new__(KafkaApis)
    apis.time = FakeTime()
    apis.handle_error = lambda request, e: errors.append(type(e).__name__)
    apis.handle(FakeRequest(unserved))
    assert errors == ["UnsupportedVersionException"]
