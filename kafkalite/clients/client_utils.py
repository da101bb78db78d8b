"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/clients/ClientUtils.java

Functions: parse_and_validate_addresses -- ``bootstrap.servers`` as every kafkalite client reads it;
create_channel_builder -- the client's channel builder from ``security.protocol`` and the ssl.* configs.

The producer, the consumer, the admin client and the Spark offset reader all start from this list; each
client hands it to ``Metadata.bootstrap``, which turns it into nodes -1, -2, ... (Kafka's bootstrap ids).
Left out: DNS resolution and ``client.dns.lookup`` (a name stays a name; the Selector resolves it when it
connects).
"""
from __future__ import annotations

from kafkalite.security.ssl.ssl_configs import SSL_CONFIG_DEF

# the client configs every kafkalite client accepts for security (Kafka: CommonClientConfigs + SslConfigs)
SECURITY_CONFIG_DEFAULTS = {"security.protocol": "PLAINTEXT", **{name: None for name in SSL_CONFIG_DEF},
                            # Kafka: SaslConfigs -- the client's mechanism and its JAAS login (issue 16)
                            "sasl.mechanism": "GSSAPI", "sasl.jaas.config": None}


# Kafka: ClientUtils.createChannelBuilder -- PLAINTEXT or SSL (ssl.* keys), as security.protocol says.
def create_channel_builder(config: dict, time=None):
    from kafkalite.network.channel_builders import ChannelBuilders
    protocol = str(config.get("security.protocol") or "PLAINTEXT").upper()
    return ChannelBuilders.client_channel_builder(protocol, {k: v for k, v in config.items() if v is not None},
                                                  None, config.get("sasl.mechanism"), time)


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
