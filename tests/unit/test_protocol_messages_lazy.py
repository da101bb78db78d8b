"""No Kafka counterpart: ``from kafkalite.protocol.messages import x`` hands out a stand-in that imports the
message module on first use (kafkalite/protocol/messages/__init__.py). Each case runs in a fresh interpreter,
where the module is not imported yet."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def test_first_use_imports_the_module_and_gives_its_classes():
    out = run("""
        import sys
        from kafkalite.protocol.messages import describe_acls
        print("before", "kafkalite.protocol.messages.describe_acls" in sys.modules)
        cls = describe_acls.DescribeAclsRequest
        real = sys.modules["kafkalite.protocol.messages.describe_acls"]
        print("after", cls is real.DescribeAclsRequest, describe_acls.__name__, "DescribeAclsResponse" in dir(describe_acls))
        from kafkalite.protocol.messages import describe_acls as again
        print("again", again.DescribeAclsRequest is cls)
    """)
    assert out.splitlines() == ["before False", "after True kafkalite.protocol.messages.describe_acls True",
                                "again True"]


def test_unknown_names_fail_as_usual():
    out = run("""
        try:
            from kafkalite.protocol.messages import no_such_api
        except ImportError:
            print("ImportError")
        from kafkalite.protocol.messages import describe_acls
        try:
            describe_acls.NoSuchClass
        except AttributeError:
            print("AttributeError")
    """)
    assert out.splitlines() == ["ImportError", "AttributeError"]


def test_threads_racing_to_the_first_use_all_get_the_same_classes():
    out = run("""
        import threading
        from kafkalite.protocol.messages import create_topics, delete_topics
        barrier = threading.Barrier(16)
        seen, errors = [], []

        def first_use(i):
            barrier.wait()
            try:
                module = create_topics if i % 2 else delete_topics
                seen.append((i % 2, module.__name__, getattr(module, "CreateTopicsRequest" if i % 2
                                                             else "DeleteTopicsRequest")))
            except Exception as e:
                errors.append(repr(e))

        threads = [threading.Thread(target=first_use, args=(i,)) for i in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        print(len(seen), errors, len({(k, id(c)) for k, _, c in seen}))
    """)
    assert out == "16 [] 2"


def test_a_message_module_loads_when_the_process_is_out_of_descriptors():
    # a broker whose logs and connections hold every descriptor must still parse a request of a kind it has not
    # seen yet: the import uses the descriptor kept in reserve (test_descriptor_limit.py found this in CI)
    assert run("""
        import os, resource
        from kafkalite.protocol.messages import delete_topics
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
        held = []
        try:
            while True:
                held.append(os.open(os.devnull, os.O_RDONLY))
        except OSError:
            pass
        print(delete_topics.DeleteTopicsRequest.__name__)
    """) == "DeleteTopicsRequest"
