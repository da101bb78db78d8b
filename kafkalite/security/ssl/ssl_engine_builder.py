"""Mirrors Kafka 2.4: clients/src/main/java/org/apache/kafka/common/security/ssl/SslEngineBuilder.java

Classes: SslEngineBuilder, SslConfigError.

Builds Python ``ssl.SSLContext`` objects (one per mode, made once) from the ssl.* configs and creates the
per-connection engine: an ``ssl.SSLObject`` over two ``ssl.MemoryBIO`` (Java's SSLEngine).
- Key store (our certificate and private key): a PEM file holding the key and the certificate chain
  (``ssl.key.password`` decrypts an encrypted key), a PKCS12 file (``ssl.keystore.password``; read with the
  ``cryptography`` package), or inline PEM in ``ssl.keystore.key`` + ``ssl.keystore.certificate.chain``.
- Trust store (the CAs we accept the peer's certificate from): a PEM file of certificates, a PKCS12 file,
  or inline PEM in ``ssl.truststore.certificates``; none configured means the system's default CAs
  (Java's cacerts).
- Server mode: ``ssl.client.auth`` none / requested / required becomes CERT_NONE / CERT_OPTIONAL /
  CERT_REQUIRED (Java's wantClientAuth / needClientAuth). Client mode always verifies the server's chain;
  ``ssl.endpoint.identification.algorithm=https`` also checks the host name against the certificate's
  SANs, an empty value does not (Kafka's rule).
Python note: ``load_cert_chain`` reads files only, so a PKCS12 key store is converted to PEM in an
anonymous in-memory file (memfd) that never reaches the disk, or, where there is no memfd, a private
temporary file removed at once.
Left out: JKS files (they need a JVM -- convert with keytool -importkeystore -deststoretype PKCS12),
dynamic reconfiguration of key stores (shouldBeRebuilt), ssl.provider and the JCA algorithm keys.
"""
from __future__ import annotations

import os
import ssl
import tempfile

from kafkalite.security.ssl import ssl_configs as C

_PROTOCOL_VERSIONS = {
    "TLSv1": ssl.TLSVersion.TLSv1, "TLSv1.1": ssl.TLSVersion.TLSv1_1,
    "TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3,
}
_CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
_JKS_MAGIC = b"\xfe\xed\xfe\xed"


class SslConfigError(ValueError):
    """A bad ssl.* value: names the key, the value and what is wrong (KafkaConfig makes it a ConfigException)."""

    def __init__(self, name: str, value, message: str):
        super().__init__(f"Invalid value {value} for configuration {name}: {message}")
        self.name = name
        self.value = value
        self.message = message


def _store_format(name: str, location: str, declared: str, data: bytes) -> str:
    if data.startswith(_JKS_MAGIC):
        raise SslConfigError(name, location, "JKS key stores need a JVM; convert it with keytool -importkeystore "
                                             "-deststoretype PKCS12, or use PEM files")
    is_pem = b"-----BEGIN" in data[:4096]
    if declared == "PEM" and not is_pem:
        raise SslConfigError(name, location, "not a PEM file, but the store type is PEM")
    if declared == "PKCS12" and is_pem:
        raise SslConfigError(name, location, "a PEM file, but the store type is PKCS12")
    return "PEM" if is_pem else "PKCS12"


def _read_store(name: str, location: str) -> bytes:
    try:
        with open(location, "rb") as f:
            return f.read()
    except OSError as e:
        raise SslConfigError(name, location, f"cannot read it: {e.strerror or e}") from None


def _load_pkcs12(name: str, location: str, data: bytes, password: str | None):
    try:
        from cryptography.hazmat.primitives.serialization import pkcs12
    except ImportError:
        raise SslConfigError(name, location, "PKCS12 stores need the 'cryptography' package "
                                             "(pip install cryptography), or use PEM files") from None
    try:
        return pkcs12.load_key_and_certificates(data, password.encode() if password else None)
    except (ValueError, TypeError) as e:
        raise SslConfigError(name, location, f"cannot open the PKCS12 store (wrong password?): {e}") from None


def _load_cert_chain_from_memory(context: ssl.SSLContext, pem: bytes, password: str | None) -> None:
    """load_cert_chain for PEM bytes, without the key ever touching the disk where the OS allows it."""
    if hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd"):
        fd = os.memfd_create("kafkalite-keystore", getattr(os, "MFD_CLOEXEC", 0))
        try:
            os.write(fd, pem)
            context.load_cert_chain(f"/proc/self/fd/{fd}", password=password)
        finally:
            os.close(fd)
        return
    with tempfile.TemporaryDirectory(prefix="kafkalite-keystore-") as d:
        path = os.path.join(d, "keystore.pem")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, pem)
        finally:
            os.close(fd)
        context.load_cert_chain(path, password=password)


class SslEngineBuilder:
    """Kafka: SslEngineBuilder -- the SSL contexts of one set of ssl.* configs."""

    def __init__(self, configs: dict):
        self._configs = C.ssl_config_values(configs)
        cfg = self._configs
        self.ssl_client_auth = (cfg[C.SSL_CLIENT_AUTH_CONFIG] or "none").lower()
        if self.ssl_client_auth not in _CLIENT_AUTH:
            raise SslConfigError(C.SSL_CLIENT_AUTH_CONFIG, cfg[C.SSL_CLIENT_AUTH_CONFIG],
                                 "String must be one of: required, requested, none")
        self.enabled_protocols = cfg[C.SSL_ENABLED_PROTOCOLS_CONFIG] or []
        for p in self.enabled_protocols:
            if p not in _PROTOCOL_VERSIONS:
                raise SslConfigError(C.SSL_ENABLED_PROTOCOLS_CONFIG, p,
                                     f"String must be one of: {', '.join(_PROTOCOL_VERSIONS)}")
        self.cipher_suites = cfg[C.SSL_CIPHER_SUITES_CONFIG] or []
        self._contexts: dict[bool, ssl.SSLContext] = {}
        # load the stores now, so that a bad store fails configure() and not the first connection
        self._keystore = self._load_keystore()
        self._truststore = self._load_truststore()

    # Kafka: SslEngineBuilder.configs
    def configs(self) -> dict:
        return dict(self._configs)

    # Kafka: SslEngineBuilder.keystore -- what the key store holds, as (PEM bytes, password) or None.
    def keystore(self):
        return self._keystore

    # Kafka: SslEngineBuilder.truststore -- ("cafile", path) / ("cadata", pem text) or None.
    def truststore(self):
        return self._truststore

    # Kafka: SslEngineBuilder.createKeystore
    def _load_keystore(self):
        cfg = self._configs
        key, chain = cfg[C.SSL_KEYSTORE_KEY_CONFIG], cfg[C.SSL_KEYSTORE_CERTIFICATE_CHAIN_CONFIG]
        location = cfg[C.SSL_KEYSTORE_LOCATION_CONFIG]
        declared = (cfg[C.SSL_KEYSTORE_TYPE_CONFIG] or C.DEFAULT_SSL_KEYSTORE_TYPE).upper()
        if key or chain:
            if not (key and chain):
                raise SslConfigError(C.SSL_KEYSTORE_KEY_CONFIG, "[hidden]", "ssl.keystore.key and "
                                     "ssl.keystore.certificate.chain must be set together")
            if location:
                raise SslConfigError(C.SSL_KEYSTORE_LOCATION_CONFIG, location, "cannot be set together with "
                                     "ssl.keystore.key")
            return (chain.strip().encode() + b"\n" + key.strip().encode() + b"\n", cfg[C.SSL_KEY_PASSWORD_CONFIG])
        if not location:
            return None
        data = _read_store(C.SSL_KEYSTORE_LOCATION_CONFIG, location)
        if _store_format(C.SSL_KEYSTORE_LOCATION_CONFIG, location, declared, data) == "PEM":
            return (data, cfg[C.SSL_KEY_PASSWORD_CONFIG])
        from cryptography.hazmat.primitives import serialization
        private_key, cert, extra = _load_pkcs12(C.SSL_KEYSTORE_LOCATION_CONFIG, location, data,
                                                cfg[C.SSL_KEYSTORE_PASSWORD_CONFIG])
        if private_key is None or cert is None:
            raise SslConfigError(C.SSL_KEYSTORE_LOCATION_CONFIG, location, "the PKCS12 store holds no private "
                                 "key with its certificate")
        pem = private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                        serialization.NoEncryption())
        for c in [cert, *(extra or [])]:
            pem += c.public_bytes(serialization.Encoding.PEM)
        return (pem, None)

    # Kafka: SslEngineBuilder.createTruststore
    def _load_truststore(self):
        cfg = self._configs
        inline = cfg[C.SSL_TRUSTSTORE_CERTIFICATES_CONFIG]
        location = cfg[C.SSL_TRUSTSTORE_LOCATION_CONFIG]
        declared = (cfg[C.SSL_TRUSTSTORE_TYPE_CONFIG] or C.DEFAULT_SSL_TRUSTSTORE_TYPE).upper()
        if inline:
            if location:
                raise SslConfigError(C.SSL_TRUSTSTORE_LOCATION_CONFIG, location, "cannot be set together with "
                                     "ssl.truststore.certificates")
            return ("cadata", inline)
        if not location:
            return None
        data = _read_store(C.SSL_TRUSTSTORE_LOCATION_CONFIG, location)
        if _store_format(C.SSL_TRUSTSTORE_LOCATION_CONFIG, location, declared, data) == "PEM":
            return ("cafile", location)
        from cryptography.hazmat.primitives import serialization
        _key, cert, extra = _load_pkcs12(C.SSL_TRUSTSTORE_LOCATION_CONFIG, location, data,
                                         cfg[C.SSL_TRUSTSTORE_PASSWORD_CONFIG])
        certs = [c for c in [cert, *(extra or [])] if c is not None]
        if not certs:
            raise SslConfigError(C.SSL_TRUSTSTORE_LOCATION_CONFIG, location, "the PKCS12 store holds no certificate")
        return ("cadata", "".join(c.public_bytes(serialization.Encoding.PEM).decode() for c in certs))

    # Kafka: SslEngineBuilder.createSSLContext -- one per mode, built on first use.
    def ssl_context(self, server_side: bool) -> ssl.SSLContext:
        context = self._contexts.get(server_side)
        if context is None:
            context = self._contexts[server_side] = self._create_ssl_context(server_side)
        return context

    def _create_ssl_context(self, server_side: bool) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER if server_side else ssl.PROTOCOL_TLS_CLIENT)
        context.options |= ssl.OP_NO_RENEGOTIATION
        if self.enabled_protocols:
            versions = sorted(_PROTOCOL_VERSIONS[p] for p in self.enabled_protocols)
            try:
                context.minimum_version, context.maximum_version = versions[0], versions[-1]
            except ValueError as e:
                raise SslConfigError(C.SSL_ENABLED_PROTOCOLS_CONFIG, ",".join(self.enabled_protocols), str(e)) \
                    from None
        if self.cipher_suites:
            try:
                context.set_ciphers(":".join(self.cipher_suites))
            except ssl.SSLError:
                raise SslConfigError(C.SSL_CIPHER_SUITES_CONFIG, ",".join(self.cipher_suites),
                                     "no cipher suite OpenSSL knows (use OpenSSL names)") from None
        if self._keystore is not None:
            pem, password = self._keystore
            try:
                _load_cert_chain_from_memory(context, pem, password)
            except ssl.SSLError as e:
                raise SslConfigError(C.SSL_KEYSTORE_LOCATION_CONFIG,
                                     self._configs[C.SSL_KEYSTORE_LOCATION_CONFIG] or "[inline]",
                                     f"cannot load the key and certificate chain (wrong ssl.key.password, "
                                     f"or no private key in it?): {e}") from None
        elif server_side:
            raise SslConfigError(C.SSL_KEYSTORE_LOCATION_CONFIG, None,
                                 "an SSL listener needs a key store (ssl.keystore.location)")
        if server_side:
            context.verify_mode = _CLIENT_AUTH[self.ssl_client_auth]
        else:
            endpoint = self._configs[C.SSL_ENDPOINT_IDENTIFICATION_ALGORITHM_CONFIG]
            context.check_hostname = bool(endpoint) and endpoint.lower() == "https"
            context.verify_mode = ssl.CERT_REQUIRED
        if not server_side or context.verify_mode != ssl.CERT_NONE:
            self._load_trust(context, server_side)
        return context

    def _load_trust(self, context: ssl.SSLContext, server_side: bool) -> None:
        try:
            if self._truststore is None:
                context.load_default_certs(ssl.Purpose.CLIENT_AUTH if server_side else ssl.Purpose.SERVER_AUTH)
            elif self._truststore[0] == "cafile":
                context.load_verify_locations(cafile=self._truststore[1])
            else:
                context.load_verify_locations(cadata=self._truststore[1])
        except (ssl.SSLError, ValueError) as e:
            raise SslConfigError(C.SSL_TRUSTSTORE_LOCATION_CONFIG,
                                 self._configs[C.SSL_TRUSTSTORE_LOCATION_CONFIG] or "[inline]",
                                 f"no usable certificate in it: {e}") from None

    # Kafka: SslEngineBuilder.createSslEngine -- an SSLObject over fresh network buffers.
    def create_ssl_engine(self, server_side: bool, peer_host: str | None, peer_port: int = -1):
        incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        context = self.ssl_context(server_side)
        engine = context.wrap_bio(incoming, outgoing, server_side=server_side,
                                  server_hostname=None if server_side else peer_host)
        return engine, incoming, outgoing
