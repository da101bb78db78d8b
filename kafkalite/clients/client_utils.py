"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/ClientUtils.java

Functions: parse_and_validate_addresses -- ``bootstrap.servers`` as every kafkalite client reads it.

The producer, the consumer, the admin client and the Spark offset reader all start from this list; each
client hands it to ``Metadata.bootstrap``, which turns it into nodes -1, -2, ... (Kafka's bootstrap ids).
Left out: DNS resolution and ``client.dns.lookup`` (a name stays a name; the Selector resolves it when it
connects), the SASL/SSL channel builders.
"""
from __future__ import annotations


# Kafka: ClientUtils.parseAndValidateAddresses -- "host:port,host:port" ("[::1]:9092" for IPv6)
def parse_and_validate_addresses(urls) -> list[tuple[str, int]]:
    """A comma-separated string or a list of ``host:port`` strings -> ``[(host, port), ...]``."""
    items = urls.split(",") if isinstance(urls, str) else list(urls)
    addresses = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"Invalid url in bootstrap.servers: {item}")
        addresses.append((host.strip("[]"), int(port)))
    if not addresses:
        raise ValueError("No resolvable bootstrap urls given in bootstrap.servers")
    return addresses
