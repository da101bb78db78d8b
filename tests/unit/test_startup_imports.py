"""No Kafka counterpart (the JVM loads a class when code first touches it): what a broker has imported by the
time it answers its first Metadata request (issue 18: start-up to first Metadata <= 0.25 s; imports were most
of it). Not timed: a fresh interpreter starts a broker the way ``python -m kafkalite`` does (KafkaServer on an
ephemeral port, the in-process ZooKeeper stand-in), sends one Metadata v1 request with a hand-written frame,
and prints ``sys.modules``; the test then checks that what a plain PLAINTEXT broker with no authorizer does
not use is not there.

If this fails after a change: import the module named in the message inside the function that needs it (or,
for message classes, write ``from kafkalite.protocol.messages import x`` and use ``x.XRequest``: that module is
loaded on first use), or add it to ALLOWED_MESSAGE_MODULES when start-up really sends or reads it.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

START_AND_LIST_MODULES = r"""
import json, socket, struct, sys, tempfile
from kafkalite.kafka import get_props_from_args
from kafkalite.server.kafka_config import KafkaConfig
from kafkalite.server.kafka_server import KafkaServer

log_dir = tempfile.mkdtemp(prefix="kl-startup-imports-")
props = get_props_from_args(["server.properties", "--override", "listeners=PLAINTEXT://127.0.0.1:0",
                             "--override", "log.dirs=" + log_dir])
server = KafkaServer(KafkaConfig.from_props(props))
server.startup()
try:
    port = server.socket_server.bound_port("PLAINTEXT")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        header = struct.pack(">hhih", 3, 1, 7, 4) + b"test"
        body = struct.pack(">i", -1)                          # Metadata v1, every topic
        s.sendall(struct.pack(">i", len(header) + len(body)) + header + body)
        size = struct.unpack(">i", s.recv(4, socket.MSG_WAITALL))[0]
        answer = s.recv(size, socket.MSG_WAITALL)
    brokers = struct.unpack_from(">i", answer, 4)[0]
    tokenize = sys.modules.get("tokenize")
    patterns = tokenize._compile.cache_info().currsize if tokenize is not None else 0
    print(json.dumps({"brokers": brokers, "modules": sorted(sys.modules), "tokenize_patterns": patterns}))
finally:
    server.shutdown()
"""

# Whole subsystems a PLAINTEXT broker without an authorizer never touches before its first answer
FORBIDDEN_PREFIXES = (
    "kafkalite.spark", "kafkalite.tools", "kafkalite.testing",
    "kafkalite.clients.admin", "kafkalite.clients.producer", "kafkalite.clients.consumer",
    "kafkalite.metrics.prometheus_reporter", "prometheus_client",   # kafkalite.metrics.port=0
)
FORBIDDEN_MODULES = (
    "ssl", "kafkalite.security.ssl.ssl_engine_builder", "kafkalite.network.ssl_channel_builder",
    "kafkalite.network.ssl_transport_layer",                        # no SSL listener
    "kafkalite.network.sasl_channel_builder", "kafkalite.security.authenticator.sasl_server_authenticator",
    "kafkalite.security.authorizer.acl_authorizer",                 # no authorizer.class.name
    "kafkalite.server.replica_fetcher_thread", "kafkalite.server.abstract_fetcher_thread",
    "kafkalite.server.replica_alter_log_dirs_thread",               # no follower, no log dir move
    "crc32c",                                                       # no record batch yet
    "decimal",                                                      # no double printed with an exponent yet
    "concurrent.futures",                                           # logs load in one thread by default
    "kafkalite.server.config_documentation",                        # no DescribeConfigs yet
    "kafkalite.security.authenticator.scram_formatter",             # no AlterUserScramCredentials yet
    # the consumer-group code (KIP-848): GroupCoordinator.consumer_group_manager is built on first use
    "kafkalite.coordinator.group.consumer.consumer_group_manager", "kafkalite.coordinator.group.consumer.assignors",
    "kafkalite.coordinator.group.consumer.consumer_group", "kafkalite.coordinator.group.consumer.consumer_group_member",
)
# What start-up sends or reads: ApiVersions and UpdateMetadata (controller -> itself), Metadata (the answer).
# Not Fetch: fetch_session builds its shared empty tagged fields with the first Fetch response
ALLOWED_MESSAGE_MODULES = {"api_versions", "update_metadata", "partition_states", "metadata"}


@pytest.fixture(scope="module")
def start_result() -> dict:
    proc = subprocess.run([sys.executable, "-c", START_AND_LIST_MODULES], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["brokers"] == 1, "the broker's first Metadata answer should list itself"
    return result


@pytest.fixture(scope="module")
def started_modules(start_result) -> set[str]:
    return set(start_result["modules"])


def test_the_start_path_was_really_taken(started_modules):
    for module in ("kafkalite.server.kafka_apis", "kafkalite.controller.kafka_controller",
                   "kafkalite.coordinator.group.group_coordinator", "kafkalite.network.socket_server"):
        assert module in started_modules


@pytest.mark.parametrize("prefix", FORBIDDEN_PREFIXES)
def test_unused_subsystems_are_not_imported(started_modules, prefix):
    loaded = sorted(m for m in started_modules if m == prefix or m.startswith(prefix + "."))
    assert not loaded, f"start-up imported {loaded}"


@pytest.mark.parametrize("module", FORBIDDEN_MODULES)
def test_unused_modules_are_not_imported(started_modules, module):
    assert module not in started_modules


def test_only_the_messages_start_up_uses_are_imported(started_modules):
    prefix = "kafkalite.protocol.messages."
    loaded = {m[len(prefix):] for m in started_modules if m.startswith(prefix)}
    assert loaded <= ALLOWED_MESSAGE_MODULES, f"start-up imported message modules {sorted(loaded - ALLOWED_MESSAGE_MODULES)}"


def test_no_text_signature_is_parsed_at_start_up(start_result):
    """attrs reads each converter's signature; for a builtin (``converter=tuple``) inspect parses its text signature
    with tokenize, whose first use compiles a large regular expression (3-8 ms). Start-up's converters are Python
    functions (controller_context._replicas), so tokenize compiles nothing before the first answer."""
    assert start_result["tokenize_patterns"] == 0, "tokenize compiled its pattern: a builtin used as a converter?"
