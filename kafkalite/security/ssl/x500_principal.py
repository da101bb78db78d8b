"""No Kafka counterpart: the JDK's javax.security.auth.x500.X500Principal.getName(), which Kafka's
DefaultKafkaPrincipalBuilder calls on the TLS peer's certificate.

``rfc2253_name(subject)`` formats the ``subject`` of ``SSLObject.getpeercert()`` (a tuple of RDNs, each a
tuple of (long attribute name, value)) the way the JDK does: RDNs in reverse certificate order, joined by
",", multi-valued RDNs joined by "+", no spaces, the RFC 2253 keywords (CN, C, L, ST, O, OU, STREET, DC,
UID), other attributes as dotted OID "=#" hex DER, and RFC 2253 escaping. So a certificate made with
``-subj "/C=US/O=Acme/CN=client"`` gives Kafka's principal name ``CN=client,O=Acme,C=US``.
Left out: the exact DER string type of attributes without a keyword -- emailAddress is an IA5String,
serialNumber and dnQualifier PrintableStrings, any other such attribute is assumed to be a UTF8String.
"""
from __future__ import annotations

KEYWORDS = {
    "commonName": "CN", "countryName": "C", "localityName": "L", "stateOrProvinceName": "ST",
    "organizationName": "O", "organizationalUnitName": "OU", "streetAddress": "STREET",
    "domainComponent": "DC", "userId": "UID",
}
# attributes the JDK writes as OID=#hex: (OID, DER tag of the value's string type)
OIDS = {
    "emailAddress": ("1.2.840.113549.1.9.1", 0x16),
    "serialNumber": ("2.5.4.5", 0x13),
    "dnQualifier": ("2.5.4.46", 0x13),
    "title": ("2.5.4.12", 0x0C),
    "surname": ("2.5.4.4", 0x0C),
    "givenName": ("2.5.4.42", 0x0C),
    "initials": ("2.5.4.43", 0x0C),
    "generationQualifier": ("2.5.4.44", 0x0C),
    "pseudonym": ("2.5.4.65", 0x0C),
    "businessCategory": ("2.5.4.15", 0x0C),
    "postalCode": ("2.5.4.17", 0x0C),
}
_SPECIAL = set(',+"\\<>;')


def _der_length(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def escape_value(value: str) -> str:
    """RFC 2253 section 2.4 escaping, as X500Principal.getName() applies it."""
    out = []
    for i, ch in enumerate(value):
        if ch in _SPECIAL or (i == 0 and ch in "# ") or (i == len(value) - 1 and ch == " "):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _attribute(name: str, value: str) -> str:
    keyword = KEYWORDS.get(name)
    if keyword is not None:
        return f"{keyword}={escape_value(value)}"
    oid, tag = OIDS.get(name, (name, 0x0C))
    raw = value.encode("utf-8")
    return f"{oid}=#{(bytes([tag]) + _der_length(len(raw)) + raw).hex()}"


def rfc2253_name(subject) -> str:
    """The JDK's RFC 2253 string of a ``getpeercert()['subject']``."""
    rdns = []
    for rdn in reversed(subject or ()):
        rdns.append("+".join(_attribute(name, value) for name, value in rdn))
    return ",".join(rdns)
