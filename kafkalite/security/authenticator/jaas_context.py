"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/JaasContext.java and JaasConfig.java

Classes: AppConfigurationEntry, JaasContext; functions parse_jaas_config, server_jaas_config_key.

A ``sasl.jaas.config`` value names one login module, its control flag and its options:

    org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="s" user_bob="b";

``JaasContext.load_server_context(listener, mechanism, configs)`` finds the broker's entry for one
listener and mechanism under ``listener.name.<listener>.<mechanism>.sasl.jaas.config`` (both lower case), as
Kafka's broker does; ``load_client_context(configs)`` reads a client's plain ``sasl.jaas.config``.
The PLAIN server reads its users from the ``user_<name>`` options; both PLAIN and SCRAM clients (kafkalite's
own, and the broker's inter-broker side) log in with ``username`` / ``password``.
Era notes: Kafka falls back to a JAAS file named by the JVM property java.security.auth.login.config
(sections ``KafkaServer`` / ``<listener>.KafkaServer``); kafkalite has no JVM and reads only the properties, and
says so in the error. Left out: login callbacks and refresh (Login, LoginManager), Kerberos.
"""
from __future__ import annotations

import attrs

PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule"
SCRAM_LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule"
_FLAGS = ("required", "requisite", "sufficient", "optional")


@attrs.frozen
class AppConfigurationEntry:
    """javax.security.auth.login.AppConfigurationEntry: a login module, its flag and its options."""

    login_module_name: str
    control_flag: str
    options: dict


def _tokens(text: str):
    """Words, quoted strings, '=' and ';' (JaasConfig's StreamTokenizer, with Java's quoting rules)."""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "=;":
            yield ch, False
            i += 1
        elif ch == '"':
            j, out = i + 1, []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    j += 1
                out.append(text[j])
                j += 1
            if j >= n:
                raise ValueError("Unterminated quoted value in JAAS config")
            yield "".join(out), True
            i = j + 1
        else:
            j = i
            while j < n and not text[j].isspace() and text[j] not in '=;"':
                j += 1
            yield text[i:j], False
            i = j


# Kafka: JaasConfig(loginContextName, jaasConfigParams) -- the parser
def parse_jaas_config(text: str) -> list[AppConfigurationEntry]:
    tokens = list(_tokens(text or ""))
    entries, pos = [], 0
    while pos < len(tokens):
        module, quoted = tokens[pos]
        if quoted or module in "=;":
            raise ValueError("Login module not specified in JAAS config")
        pos += 1
        if pos >= len(tokens):
            raise ValueError("Login module control flag not specified in JAAS config")
        flag = tokens[pos][0]
        if flag.lower() not in _FLAGS:
            raise ValueError(f"Invalid login module control flag '{flag}' in JAAS config")
        pos += 1
        options = {}
        while pos < len(tokens) and tokens[pos] != (";", False):
            key = tokens[pos][0]
            if pos + 2 >= len(tokens) or tokens[pos + 1] != ("=", False) or tokens[pos + 2] == (";", False):
                raise ValueError(f"Value not specified for key '{key}' in JAAS config")
            options[key] = tokens[pos + 2][0]
            pos += 3
        if pos >= len(tokens):
            raise ValueError("JAAS config entry not terminated by semi-colon")
        pos += 1
        entries.append(AppConfigurationEntry(module, flag.lower(), options))
    return entries


# Kafka: ListenerName.saslMechanismConfigPrefix + SaslConfigs.SASL_JAAS_CONFIG
def server_jaas_config_key(listener_name: str, mechanism: str) -> str:
    return f"listener.name.{listener_name.lower()}.{mechanism.lower()}.sasl.jaas.config"


class JaasContext:
    """Kafka: JaasContext(name, type, configuration, dynamicJaasConfig)."""

    def __init__(self, name: str, context_type: str, entries: list[AppConfigurationEntry]):
        self.name = name
        self.type = context_type
        self.configuration_entries = entries

    # Kafka: JaasContext.loadServerContext
    @classmethod
    def load_server_context(cls, listener_name: str, mechanism: str, configs) -> "JaasContext":
        key = server_jaas_config_key(listener_name, mechanism)
        # the listener's values carry it without the prefix (valuesWithPrefixOverride); raw originals with it
        value = configs.get(f"{mechanism.lower()}.sasl.jaas.config") or configs.get(key)
        if not value:
            raise ValueError(f"Could not find a 'KafkaServer' or '{listener_name.lower()}.KafkaServer' entry in the "
                             f"JAAS configuration: set {key} (kafkalite reads no JAAS files)")
        return cls._load("SERVER", f"{listener_name.lower()}.KafkaServer", value)

    # Kafka: JaasContext.loadClientContext
    @classmethod
    def load_client_context(cls, configs) -> "JaasContext":
        value = configs.get("sasl.jaas.config")
        if not value:
            raise ValueError("Could not find a 'KafkaClient' entry in the JAAS configuration: set sasl.jaas.config")
        return cls._load("CLIENT", "KafkaClient", value)

    # Kafka: JaasContext.load
    @classmethod
    def _load(cls, context_type: str, name: str, value: str) -> "JaasContext":
        entries = parse_jaas_config(str(value))
        if not entries:
            raise ValueError("JAAS config property does not contain any login modules")
        if len(entries) != 1:
            raise ValueError(f"JAAS config property contains {len(entries)} login modules, should be 1 module")
        return cls(name, context_type, entries)

    # Kafka: JaasContext.configEntryOption
    def config_entry_option(self, key: str, login_module_name: str | None = None) -> str | None:
        for entry in self.configuration_entries:
            if login_module_name is not None and entry.login_module_name != login_module_name:
                continue
            if key in entry.options:
                return entry.options[key]
        return None
