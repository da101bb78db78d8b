"""No Kafka counterpart: makes throw-away TLS certificates for trying SSL listeners (Kafka's docs do this
by hand with keytool and openssl; docs/security.md shows the commands this tool runs).

    python -m kafkalite.tools.gen_certs --dir config/ssl/certs [--host localhost --ip 127.0.0.1]
           [--client client] [--password kafkalite-test]

writes, with the ``openssl`` command-line tool:
- ``ca.crt`` / ``ca.key``: a test certificate authority (the trust store of brokers and clients);
- ``broker.crt`` / ``broker.key`` / ``broker.pem`` (key + chain, for ssl.keystore.type=PEM) /
  ``broker.p12`` (PKCS12, password ``--password``): the broker's certificate, valid for the given host
  names and IP addresses (subjectAltName), usable as server and as client (inter-broker mutual TLS);
- the same four files for each ``--client`` name (``CN=<name>,OU=clients,O=kafkalite-test``), for mutual
  TLS; its Kafka principal is ``User:CN=<name>,OU=clients,O=kafkalite-test``.
Keys are EC P-256 and unencrypted (the .p12 files use the password). They are for tests and local trials
only: the CA key sits next to them.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

DEFAULT_PASSWORD = "kafkalite-test"
ORGANIZATION = "kafkalite-test"


def _openssl(*args: str, cwd: str) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _new_key(name: str, cwd: str) -> None:
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", f"{name}.key", cwd=cwd)
    os.chmod(os.path.join(cwd, f"{name}.key"), 0o600)


def make_ca(directory: str, name: str = "ca", subject: str = f"/O={ORGANIZATION}/CN=kafkalite-test-ca",
            days: int = 30) -> None:
    """A self-signed CA: ``<name>.crt`` and ``<name>.key`` in ``directory``."""
    _new_key(name, directory)
    _openssl("req", "-x509", "-new", "-key", f"{name}.key", "-out", f"{name}.crt", "-days", str(days),
             "-subj", subject, "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=directory)


def make_cert(directory: str, name: str, subject: str, hosts=(), ips=(), ca: str = "ca",
              password: str = DEFAULT_PASSWORD, days: int = 30) -> None:
    """A key and a certificate signed by ``ca``: ``<name>.key``, ``.crt``, ``.pem`` (key + cert + CA) and
    ``.p12`` (PKCS12 with ``password``)."""
    _new_key(name, directory)
    _openssl("req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", subject, cwd=directory)
    sans = [f"DNS:{h}" for h in hosts] + [f"IP:{ip}" for ip in ips]
    ext = ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature,keyEncipherment",
           "extendedKeyUsage=serverAuth,clientAuth"]
    if sans:
        ext.append("subjectAltName=" + ",".join(sans))
    ext_file = os.path.join(directory, f"{name}.ext")
    with open(ext_file, "w") as f:
        f.write("\n".join(ext) + "\n")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.crt", "-CAkey", f"{ca}.key", "-CAcreateserial",
             "-out", f"{name}.crt", "-days", str(days), "-extfile", f"{name}.ext", cwd=directory)
    with open(os.path.join(directory, f"{name}.pem"), "wb") as out:
        for part in (f"{name}.key", f"{name}.crt", f"{ca}.crt"):
            with open(os.path.join(directory, part), "rb") as f:
                out.write(f.read())
    os.chmod(os.path.join(directory, f"{name}.pem"), 0o600)
    _openssl("pkcs12", "-export", "-in", f"{name}.crt", "-inkey", f"{name}.key", "-certfile", f"{ca}.crt",
             "-name", name, "-out", f"{name}.p12", "-passout", f"pass:{password}", cwd=directory)
    for leftover in (f"{name}.csr", f"{name}.ext"):
        os.remove(os.path.join(directory, leftover))


def client_subject(name: str) -> str:
    return f"/O={ORGANIZATION}/OU=clients/CN={name}"


def generate(directory: str, hosts=("localhost",), ips=("127.0.0.1",), clients=("client",),
             password: str = DEFAULT_PASSWORD) -> None:
    os.makedirs(directory, exist_ok=True)
    make_ca(directory)
    make_cert(directory, "broker", f"/O={ORGANIZATION}/OU=brokers/CN={hosts[0] if hosts else 'broker'}",
              hosts, ips, password=password)
    for client in clients:
        make_cert(directory, client, client_subject(client), password=password)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kafkalite-gen-certs", description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="directory to write the certificates to")
    parser.add_argument("--host", action="append", help="broker host name (SAN); default localhost")
    parser.add_argument("--ip", action="append", help="broker IP address (SAN); default 127.0.0.1")
    parser.add_argument("--client", action="append", help="client certificate name (CN); default client")
    parser.add_argument("--password", default=DEFAULT_PASSWORD, help="password of the .p12 files")
    args = parser.parse_args(argv)
    if shutil.which("openssl") is None:
        print("kafkalite-gen-certs: the openssl command is needed", file=sys.stderr)
        return 1
    try:
        generate(args.dir, tuple(args.host or ["localhost"]), tuple(args.ip or ["127.0.0.1"]),
                 tuple(args.client or ["client"]), args.password)
    except subprocess.CalledProcessError as e:
        print(f"kafkalite-gen-certs: openssl failed: {e.stderr.decode(errors='replace').strip()}", file=sys.stderr)
        return 1
    print(f"Wrote ca.crt, broker.{{key,crt,pem,p12}} and client certificates to {args.dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
