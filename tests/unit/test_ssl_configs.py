"""Kafka 2.4: the ssl.* rows of KafkaConfigTest / SslConfigsTest -- typed ssl.* keys, listener-prefixed
overrides (valuesWithPrefixOverride), one-line errors for SSL listeners whose stores cannot be loaded,
interBrokerSecurityProtocol, and the client side's reading of raw string configs."""
import logging

import pytest

from kafkalite.security.ssl.ssl_configs import ssl_config_values
from kafkalite.common.config.config_exception import ConfigException
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.tools import gen_certs


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("certs"))
    gen_certs.generate(d, clients=())
    return d


def config(tmp_path, **props):
    return KafkaConfig.from_props({"log.dirs": str(tmp_path), "listeners": "PLAINTEXT://127.0.0.1:0", **props})


def test_ssl_defaults_are_kafkas(tmp_path):
    c = config(tmp_path)
    assert c.get("ssl.client.auth") == "none"
    assert c.get("ssl.endpoint.identification.algorithm") == "https"
    assert c.get("ssl.keystore.type") == "JKS" and c.get("ssl.truststore.type") == "JKS"
    assert c.get("ssl.enabled.protocols") == ["TLSv1.2", "TLSv1.3"]


def test_listener_prefix_overrides_win_for_their_listener_only(tmp_path, certs, caplog):
    with caplog.at_level(logging.WARNING, logger="kafka.server.KafkaConfig"):
        c = config(tmp_path, **{
            "listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL",
            "ssl.keystore.type": "PEM", "ssl.keystore.location": f"{certs}/broker.pem",
            "listener.name.mtls.ssl.client.auth": "required"})
    assert "isn't a known config" not in caplog.text
    assert c.values_with_prefix_override("listener.name.mtls.")["ssl.client.auth"] == "required"
    assert c.values_with_prefix_override("listener.name.ssl.")["ssl.client.auth"] == "none"


def test_bad_values_and_unloadable_stores_are_one_line_config_errors(tmp_path, certs):
    with pytest.raises(ConfigException, match="ssl.client.auth"):
        config(tmp_path, **{"ssl.client.auth": "sometimes"})
    ssl_listener = {"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0"}
    with pytest.raises(ConfigException, match="ssl.keystore.location.*needs a key store"):
        config(tmp_path, **ssl_listener)
    with pytest.raises(ConfigException) as e:
        config(tmp_path, **ssl_listener, **{"ssl.keystore.type": "PKCS12",
                                            "ssl.keystore.location": f"{certs}/broker.p12",
                                            "ssl.keystore.password": "wrong"})
    assert e.value.name == "ssl.keystore.location" and "wrong password" in str(e.value)
    with pytest.raises(ConfigException) as e:
        config(tmp_path, **ssl_listener, **{"listener.name.ssl.ssl.keystore.location": f"{certs}/missing.pem"})
    assert e.value.name == "listener.name.ssl.ssl.keystore.location"
    # a PLAINTEXT-only broker never loads stores
    config(tmp_path, **{"ssl.keystore.location": f"{certs}/missing.pem"})


def test_inter_broker_security_protocol(tmp_path, certs):
    c = config(tmp_path, **{"listeners": "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0",
                            "security.inter.broker.protocol": "SSL",
                            "ssl.keystore.location": f"{certs}/broker.pem"})
    assert c.inter_broker_listener_name == "SSL" and c.inter_broker_security_protocol == "SSL"
    c = config(tmp_path, **{"listeners": "PLAINTEXT://127.0.0.1:0,INTERNAL://127.0.0.1:0",
                            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,INTERNAL:SSL",
                            "inter.broker.listener.name": "INTERNAL",
                            "ssl.keystore.location": f"{certs}/broker.pem"})
    assert c.inter_broker_security_protocol == "SSL"


def test_client_configs_as_raw_strings():
    v = ssl_config_values({"ssl.enabled.protocols": "TLSv1.3", "ssl.endpoint.identification.algorithm": "",
                           "ssl.truststore.location": "/x", "ssl.keystore.password": None})
    assert v["ssl.enabled.protocols"] == ["TLSv1.3"]
    assert v["ssl.endpoint.identification.algorithm"] is None
    assert v["ssl.truststore.location"] == "/x" and v["ssl.keystore.type"] == "JKS"
