"""No Kafka counterpart: one module per API, holding the ``XxxRequest`` and ``XxxResponse`` classes.

Kafka generates ``XxxRequestData``/``XxxResponseData`` from clients/src/main/resources/common/message/*.json;
here each module declares the same fields by hand with the DSL of ``kafkalite.protocol.schema``.
Modules are named after ``ApiKeys`` members in snake case, so ``ApiKeys.X.request_class`` finds them.
"""
