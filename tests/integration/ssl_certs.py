"""No Kafka counterpart: test certificates for the SSL tests, made with the ``openssl`` command line (through
``kafkalite.tools.gen_certs``, the tool docs/security.md documents) into a temporary directory.

``make_certs(directory)`` returns a ``Certs``: a CA; a broker certificate for localhost / 127.0.0.1 (PEM
with its key, and PKCS12) that is also the brokers' client certificate between themselves; a client
certificate (``CN=client,OU=clients,O=kafkalite-test``); and a *rogue* CA with a client certificate of its
own, which nobody trusts.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from kafkalite.tools import gen_certs

PASSWORD = gen_certs.DEFAULT_PASSWORD
CLIENT_PRINCIPAL = "User:CN=client,OU=clients,O=kafkalite-test"


@dataclass
class Certs:
    dir: str
    ca: str
    broker_pem: str
    broker_p12: str
    client_crt: str
    client_key: str
    client_pem: str
    client_p12: str
    rogue_ca: str
    rogue_client_crt: str
    rogue_client_key: str

    def broker_props(self, client_auth: str = "none", pkcs12: bool = True) -> dict:
        """The ssl.* keys of a broker listener with this key store and the CA as trust store."""
        if pkcs12:
            keystore = {"ssl.keystore.type": "PKCS12", "ssl.keystore.location": self.broker_p12,
                        "ssl.keystore.password": PASSWORD}
        else:
            keystore = {"ssl.keystore.type": "PEM", "ssl.keystore.location": self.broker_pem}
        return {**keystore, "ssl.truststore.type": "PEM", "ssl.truststore.location": self.ca,
                "ssl.client.auth": client_auth}


def make_certs(directory: str) -> Certs:
    gen_certs.generate(directory, clients=("client",))
    rogue = os.path.join(directory, "rogue")
    os.makedirs(rogue, exist_ok=True)
    gen_certs.make_ca(rogue, subject="/O=rogue/CN=rogue-ca")
    gen_certs.make_cert(rogue, "rogue-client", "/O=rogue/CN=client")
    j = lambda *p: os.path.join(directory, *p)  # noqa: E731
    return Certs(directory, j("ca.crt"), j("broker.pem"), j("broker.p12"), j("client.crt"), j("client.key"),
                 j("client.pem"), j("client.p12"), j("rogue", "ca.crt"), j("rogue", "rogue-client.crt"),
                 j("rogue", "rogue-client.key"))
