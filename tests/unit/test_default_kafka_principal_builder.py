"""Kafka 2.4: DefaultKafkaPrincipalBuilderTest, SslPrincipalMapperTest, KafkaPrincipalTest."""
import pytest

from kafkalite.network.kafka_channel import KafkaChannel
from kafkalite.network.authenticator import Authenticator
from kafkalite.security.auth.authentication_context import (
    PlaintextAuthenticationContext, SaslAuthenticationContext, SslAuthenticationContext)
from kafkalite.security.auth.kafka_principal import KafkaPrincipal
from kafkalite.security.auth.principal_builder import DefaultKafkaPrincipalBuilder
from kafkalite.security.ssl.ssl_principal_mapper import NoMatchingRule, SslPrincipalMapper
from kafkalite.security.ssl.x500_principal import rfc2253_name


class _Session:
    def __init__(self, cert):
        self.cert = cert

    def getpeercert(self):
        return self.cert


class _SaslServer:
    def get_mechanism_name(self):
        return "PLAIN"

    def get_authorization_id(self):
        return "alice"


SUBJECT = ((("countryName", "US"),), (("organizationName", "Acme, Inc"),), (("commonName", "client"),))


def test_kafka_principal_equality_and_string():
    assert str(KafkaPrincipal.ANONYMOUS) == "User:ANONYMOUS"
    assert KafkaPrincipal("User", "a") == KafkaPrincipal.parse("User:a")
    assert hash(KafkaPrincipal("User", "a")) == hash(KafkaPrincipal("User", "a"))
    assert KafkaPrincipal("User", "a") != KafkaPrincipal("Group", "a")


def test_plaintext_is_anonymous():
    assert DefaultKafkaPrincipalBuilder().build(PlaintextAuthenticationContext("1.2.3.4", "PLAINTEXT")) \
        == KafkaPrincipal.ANONYMOUS


def test_ssl_principal_is_rfc2253_subject():
    ctx = SslAuthenticationContext(_Session({"subject": SUBJECT}), "1.2.3.4", "SSL")
    assert DefaultKafkaPrincipalBuilder().build(ctx) == KafkaPrincipal("User", r"CN=client,O=Acme\, Inc,C=US")


def test_ssl_without_client_certificate_is_anonymous():
    ctx = SslAuthenticationContext(_Session({}), "1.2.3.4", "SSL")
    assert DefaultKafkaPrincipalBuilder().build(ctx) == KafkaPrincipal.ANONYMOUS


def test_ssl_principal_mapping_rules_apply():
    builder = DefaultKafkaPrincipalBuilder(SslPrincipalMapper("RULE:^CN=(.*?),O=.*$/$1/U,DEFAULT"))
    ctx = SslAuthenticationContext(_Session({"subject": SUBJECT}), "1.2.3.4", "SSL")
    assert builder.build(ctx) == KafkaPrincipal("User", "CLIENT")


def test_sasl_principal_is_authorization_id():
    ctx = SaslAuthenticationContext(_SaslServer(), "SASL_SSL", "1.2.3.4", "SASL_SSL")
    assert DefaultKafkaPrincipalBuilder().build(ctx) == KafkaPrincipal("User", "alice")


def test_rfc2253_keywords_escapes_and_oids():
    subject = ((("domainComponent", "com"),), (("organizationalUnitName", "#ops "),),
               (("commonName", "a+b"), ("emailAddress", "a@b")))
    assert rfc2253_name(subject) == r"CN=a\+b+1.2.840.113549.1.9.1=#1603614062,OU=\#ops\ ,DC=com"


@pytest.mark.parametrize("dn,name", [
    ("CN=kafka-server1,OU=ServiceUsers,O=kafka,L=ca,ST=ca,C=us", "kafka-server1"),
    ("CN=adminUser,OU=Admin,O=Apache,L=SF,ST=CA,C=US", "adminuser@admin"),
    ("cn=duke,ou=JavaSoft,dc=Sun,dc=com", "DUKE@JAVASOFT"),
    ("OU=JavaSoft,O=Sun Microsystems,C=US", "OU=JavaSoft,O=Sun Microsystems,C=US"),
])
def test_ssl_principal_mapper_rules(dn, name):
    mapper = SslPrincipalMapper(
        "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
        "RULE:^cn=(.*?),ou=(.*?),dc=(.*?),dc=(.*?)$/$1@$2/U, DEFAULT")
    assert mapper.get_name(dn) == name


def test_ssl_principal_mapper_no_matching_rule_and_invalid_rule():
    with pytest.raises(NoMatchingRule):
        SslPrincipalMapper("RULE:^CN=(.*)$/$1/").get_name("OU=x")
    with pytest.raises(ValueError):
        SslPrincipalMapper("RULE:one/two")


def test_kafka_channel_principal_comes_from_its_authenticator():
    class _Transport:
        def ready(self):
            return True

    class _Auth(Authenticator):
        def principal(self):
            return KafkaPrincipal("User", "bob")

    assert KafkaChannel("c", _Transport()).principal() == KafkaPrincipal.ANONYMOUS
    assert KafkaChannel("c", _Transport(), authenticator_creator=_Auth).principal() == KafkaPrincipal("User", "bob")
