"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/config/SslConfigs.java (and the ssl.*
keys of clients/src/main/java/org/apache/kafka/common/config/internals/BrokerSecurityConfigs.java)

Holds: the ssl.* configuration keys with their types and defaults (``SSL_CONFIG_DEF``, rows in the
(type, default, allowed values) form KafkaConfig's table uses), and ``ssl_config_values`` which reads
them out of a client's or a broker listener's configs.

Era notes: ``ssl.enabled.protocols`` defaults to TLSv1.2,TLSv1.3 and ``ssl.protocol`` to TLSv1.3 (Kafka
2.5+ / KIP-553; 2.4 said TLSv1.2,TLSv1.1,TLSv1 and TLS -- OpenSSL 3 refuses TLS 1.0/1.1 at its default
security level anyway). PEM stores and ``ssl.keystore.key`` / ``ssl.keystore.certificate.chain`` /
``ssl.truststore.certificates`` are Kafka 2.7's (KIP-651). ``ssl.keystore.type`` / ``ssl.truststore.type``
default to JKS as in Kafka, and a "JKS" store that is really PKCS12 (keytool's format since JDK 9) or
PEM is read as what it is; a real JKS file is refused (no JVM to read it).
Ignored (accepted, no effect in Python's ssl): ssl.provider, ssl.keymanager.algorithm,
ssl.trustmanager.algorithm, ssl.secure.random.implementation. ``ssl.cipher.suites`` takes OpenSSL names
(TLS 1.2 suites; TLS 1.3 suites cannot be narrowed through Python's ssl).
"""
from __future__ import annotations

from kafkalite.common.config.config_def import parse_type

SSL_PROTOCOL_CONFIG = "ssl.protocol"
SSL_PROVIDER_CONFIG = "ssl.provider"
SSL_CIPHER_SUITES_CONFIG = "ssl.cipher.suites"
SSL_ENABLED_PROTOCOLS_CONFIG = "ssl.enabled.protocols"
SSL_KEYSTORE_TYPE_CONFIG = "ssl.keystore.type"
SSL_KEYSTORE_LOCATION_CONFIG = "ssl.keystore.location"
SSL_KEYSTORE_PASSWORD_CONFIG = "ssl.keystore.password"
SSL_KEYSTORE_KEY_CONFIG = "ssl.keystore.key"
SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG = "ssl.keystore.certificate.chain"
SSL_KEY_PASSWORD_CONFIG = "ssl.key.password"
SSL_TRUSTSTORE_TYPE_CONFIG = "ssl.truststore.type"
SSL_TRUSTSTORE_LOCATION_CONFIG = "ssl.truststore.location"
SSL_TRUSTSTORE_PASSWORD_CONFIG = "ssl.truststore.password"
SSL_TRUSTSTORE_CERTIFICATES_CONFIG = "ssl.truststore.certificates"
SSL_KEYMANAGER_ALGORITHM_CONFIG = "ssl.keymanager.algorithm"
SSL_TRUSTMANAGER_ALGORITHM_CONFIG = "ssl.trustmanager.algorithm"
SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG = "ssl.endpoint.identification.algorithm"
SSL_SECURE_RANDOM_IMPLEMENTATION_CONFIG = "ssl.secure.random.implementation"
# BrokerSecurityConfigs
SSL_CLIENT_AUTH_CONFIG = "ssl.client.auth"
SSL_PRINCIPAL_MAPPING_RULES_CONFIG = "ssl.principal.mapping.rules"

DEFAULT_SSL_PROTOCOL = "TLSv1.3"
DEFAULT_SSL_ENABLED_PROTOCOLS = "TLSv1.2,TLSv1.3"
DEFAULT_SSL_KEYSTORE_TYPE = "JKS"
DEFAULT_SSL_TRUSTSTORE_TYPE = "JKS"
DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = "https"
DEFAULT_SSL_CLIENT_AUTH = "none"
DEFAULT_SSL_PRINCIPAL_MAPPING_RULES = "DEFAULT"

STORE_TYPES = ("JKS", "PKCS12", "PEM")
PROTOCOLS = ("TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3")

# name: (type, default, allowed values or None) -- KafkaConfig adds these rows to its CONFIG_DEF
SSL_CONFIG_DEF: dict[str, tuple] = {
    SSL_PROTOCOL_CONFIG: ("STRING", DEFAULT_SSL_PROTOCOL, None),
    SSL_PROVIDER_CONFIG: ("STRING", None, None),
    SSL_CIPHER_SUITES_CONFIG: ("LIST", None, None),
    SSL_ENABLED_PROTOCOLS_CONFIG: ("LIST", DEFAULT_SSL_ENABLED_PROTOCOLS, PROTOCOLS),
    SSL_KEYSTORE_TYPE_CONFIG: ("STRING", DEFAULT_SSL_KEYSTORE_TYPE, STORE_TYPES),
    SSL_KEYSTORE_LOCATION_CONFIG: ("STRING", None, None),
    SSL_KEYSTORE_PASSWORD_CONFIG: ("PASSWORD", None, None),
    SSL_KEYSTORE_KEY_CONFIG: ("PASSWORD", None, None),
    SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG: ("PASSWORD", None, None),
    SSL_KEY_PASSWORD_CONFIG: ("PASSWORD", None, None),
    SSL_TRUSTSTORE_TYPE_CONFIG: ("STRING", DEFAULT_SSL_TRUSTSTORE_TYPE, STORE_TYPES),
    SSL_TRUSTSTORE_LOCATION_CONFIG: ("STRING", None, None),
    SSL_TRUSTSTORE_PASSWORD_CONFIG: ("PASSWORD", None, None),
    SSL_TRUSTSTORE_CERTIFICATES_CONFIG: ("PASSWORD", None, None),
    SSL_KEYMANAGER_ALGORITHM_CONFIG: ("STRING", "SunX509", None),
    SSL_TRUSTMANAGER_ALGORITHM_CONFIG: ("STRING", "PKIX", None),
    SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG: ("STRING", DEFAULT_SSL_ENDPOINT_IDENTIFICATION_ALGORITHM, None),
    SSL_SECURE_RANDOM_IMPLEMENTATION_CONFIG: ("STRING", None, None),
    SSL_CLIENT_AUTH_CONFIG: ("STRING", DEFAULT_SSL_CLIENT_AUTH, ("required", "requested", "none")),
    SSL_PRINCIPAL_MAPPING_RULES_CONFIG: ("STRING", DEFAULT_SSL_PRINCIPAL_MAPPING_RULES, None),
}


def ssl_config_values(configs: dict) -> dict:
    """The ssl.* values of ``configs`` (typed, as from KafkaConfig, or raw strings, as a client's
    properties), with Kafka's defaults for the keys not given; list values become lists and empty
    strings become None, as ConfigDef parses them."""
    out = {}
    for name, (type_, default, _allowed) in SSL_CONFIG_DEF.items():
        value = configs.get(name)
        if value is None:
            value = default
        if isinstance(value, str):
            value = parse_type(name, value, type_)
            if type_ == "LIST":
                # a client's text list loses its empty items here (Java's SSL engine would refuse them); the
                # broker's lists come typed from KafkaConfig, where ssl.enabled.protocols has a ValidList
                value = [p for p in value if p]
            elif value == "" and type_ != "STRING":
                value = None
        if hasattr(value, "value") and callable(value.value):   # a Password object
            value = value.value()
        out[name] = value
    if out[SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG] == "":
        out[SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG] = None
    return out
