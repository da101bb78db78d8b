"""No Kafka counterpart: one module per API, holding the ``XxxRequest`` and ``XxxResponse`` classes.

Kafka generates ``XxxRequestData``/``XxxResponseData`` from clients/src/main/resources/common/message/*.json;
here each module declares the same fields by hand with the DSL of ``kafkalite.protocol.schema``.
Modules are named after ``ApiKeys`` members in snake case, so ``ApiKeys.X.request_class`` finds them.

Loaded on first use. The JVM loads a generated ``XxxRequestData`` class the first time code touches it, so a
Kafka broker that never sees a DescribeAcls request never loads DescribeAclsRequestData. Python would import
(and, without cached bytecode, compile) every message module ``KafkaApis`` names as soon as it is imported,
about a quarter of the broker's start-up. So ``from kafkalite.protocol.messages import fetch`` binds a
``_LazyMessageModule``: it imports ``kafkalite.protocol.messages.fetch`` when one of its attributes is first
read, and from then on holds that module's names itself (message modules never rebind their names after
import). ``from kafkalite.protocol.messages.fetch import FetchRequest`` and ``importlib.import_module``
import the module at once, as usual.
"""
from __future__ import annotations

import errno
import importlib
import importlib.util
import os
import threading
import types

_proxies: dict[str, "_LazyMessageModule"] = {}
_proxies_lock = threading.Lock()
# A JVM loads a message class from its jar, which is open already; a Python import opens a file. A broker out
# of file descriptors (every one held by its logs and connections) must still parse a request of a kind it has
# not seen yet, so a few descriptors are kept in reserve for that import and let go just for it. Other threads may
# take them meanwhile (the acceptor, a log read): a reserve makes the import likely, not certain
# (tests/integration/test_descriptor_limit.py, tests/unit/test_protocol_messages_lazy.py)
_RESERVED_DESCRIPTORS = 8
_spare_lock = threading.Lock()
_spare_fds: list[int] = []


def _reserve_descriptors() -> None:
    try:
        while len(_spare_fds) < _RESERVED_DESCRIPTORS:
            _spare_fds.append(os.open(os.devnull, os.O_RDONLY))
    except OSError:
        pass   # fewer to spare this time


_reserve_descriptors()


def _import_with_spare_descriptor(name: str) -> types.ModuleType:
    try:
        return importlib.import_module(name)
    except OSError as e:
        if e.errno != errno.EMFILE:
            raise
    with _spare_lock:
        while _spare_fds:
            os.close(_spare_fds.pop())
        try:
            return importlib.import_module(name)
        finally:
            _reserve_descriptors()


class _LazyMessageModule(types.ModuleType):
    """Stands in for one message module until its first attribute read imports it."""

    def _load(self) -> dict:
        # Two handler threads may both get here: the import system's per-module lock makes the second wait
        # for the first, and both copy the same names.
        module = _import_with_spare_descriptor(self.__name__)
        self.__dict__.update(module.__dict__)
        return module.__dict__

    def __getattr__(self, name: str):
        # Only reached for a name not here yet: before the first load, or a name the module lacks.
        try:
            return self._load()[name]
        except KeyError:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}") from None

    def __dir__(self):
        return sorted(self._load())


def __getattr__(name: str):
    """PEP 562: a submodule not imported yet is handed out as a ``_LazyMessageModule`` (``from ... import x``)."""
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with _proxies_lock:
        proxy = _proxies.get(name)
        if proxy is None:
            full_name = f"{__name__}.{name}"
            if importlib.util.find_spec(full_name) is None:
                raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
            proxy = _proxies[name] = _LazyMessageModule(full_name)
    return proxy
