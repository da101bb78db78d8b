"""No Kafka counterpart: DESIGN §4's one direction of imports, checked on the source. The Spark data
source and pipeline talk to brokers over the wire only (they may use kafkalite's clients, never the
broker); the clients never import the server (S48: they share the network layer, not the broker);
``protocol`` and ``record`` know no sockets and no server."""
import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "kafkalite"


def imports_of(package: str) -> dict[str, set[str]]:
    """{module file: every kafkalite module it imports, at any depth of the file}."""
    out = {}
    for path in (PACKAGE / package).rglob("*.py"):
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("kafkalite"):
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names if a.name.startswith("kafkalite")}
        out[str(path.relative_to(PACKAGE.parent))] = found
    return out


@pytest.mark.parametrize("package, forbidden", [
    ("spark", ("kafkalite.server", "kafkalite.testing", "kafkalite.log", "kafkalite.controller",
               "kafkalite.coordinator", "kafkalite.zk")),
    ("clients", ("kafkalite.server", "kafkalite.log", "kafkalite.controller", "kafkalite.coordinator")),
    ("protocol", ("kafkalite.network", "kafkalite.server", "kafkalite.clients")),
    ("record", ("kafkalite.network", "kafkalite.server", "kafkalite.clients")),
    # principals and TLS contexts sit below the network layer that uses them
    ("security/auth", ("kafkalite.network", "kafkalite.server", "kafkalite.clients")),
    ("security/ssl", ("kafkalite.network", "kafkalite.server", "kafkalite.clients")),
    # the SASL authenticators read and write their own frames on the transport, as Kafka's
    # common.security.authenticator uses common.network; they still know no server and no client
    ("security/authenticator", ("kafkalite.server", "kafkalite.clients")),
])
def test_imports_flow_one_way(package, forbidden):
    wrong = {f: sorted(m for m in mods if m.startswith(forbidden)) for f, mods in imports_of(package).items()}
    wrong = {f: m for f, m in wrong.items() if m}
    assert not wrong, f"{package} imports what it must not: {wrong}"
