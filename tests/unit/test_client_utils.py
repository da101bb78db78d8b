"""ClientUtilsTest: bootstrap.servers parsing shared by the producer, the consumer, the admin client and
the Spark offset reader."""
import pytest

from kafkalite.clients.client_utils import parse_and_validate_addresses


def test_parse_and_validate_addresses():
    assert parse_and_validate_addresses(" a:1, [::1]:2 ,") == [("a", 1), ("::1", 2)]
    assert parse_and_validate_addresses(["h:9092", "k:9093"]) == [("h", 9092), ("k", 9093)]


@pytest.mark.parametrize("bad", ["nohost", "h:", ":9092", "h:x"])
def test_invalid_url(bad):
    with pytest.raises(ValueError, match="Invalid url in bootstrap.servers"):
        parse_and_validate_addresses(bad)


def test_no_urls():
    with pytest.raises(ValueError, match="No resolvable bootstrap urls"):
        parse_and_validate_addresses(" , ")
