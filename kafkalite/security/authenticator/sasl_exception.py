"""No Kafka counterpart: Java's javax.security.sasl.SaslException, which Kafka's SASL servers and clients throw.

Classes: SaslException, and AUTHENTICATION_EXCEPTIONS (the error classes Kafka derives from
AuthenticationException).

A SaslException is a failed exchange whose reason must not reach the client (it might say whether a user
exists): SaslServerAuthenticator answers it with a generic SASL_AUTHENTICATION_FAILED message. A
SaslAuthenticationException (protocol error 58) carries a message meant for the client.
"""
from __future__ import annotations

from kafkalite.network.kafka_channel import AuthenticationException
from kafkalite.protocol.errors import (IllegalSaslStateException, SaslAuthenticationException,
                                       UnsupportedSaslMechanismException)


class SaslException(Exception):
    """javax.security.sasl.SaslException."""


# Kafka: the subclasses of org.apache.kafka.common.errors.AuthenticationException that SASL raises
AUTHENTICATION_EXCEPTIONS = (SaslAuthenticationException, IllegalSaslStateException,
                             UnsupportedSaslMechanismException)


class SaslAuthenticationFailure(AuthenticationException):
    """A failed SASL exchange as the channel sees it (Kafka: the AuthenticationException that
    KafkaChannel.prepare catches): ``error`` is the protocol error the client was (or will be) told."""

    def __init__(self, message: str, error=None):
        super().__init__(message)
        self.error = error

