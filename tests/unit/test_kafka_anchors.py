"""No Kafka counterpart: the mirror contract's anchors point at Kafka 2.4 (DESIGN §3).

Every ``# Kafka: Class.member`` comment in kafkalite/ must name a class Kafka 2.4 has and a member
Kafka 2.4 declares in that class's files (``tests/data/kafka-2.4-identifiers.txt``, built from Kafka's
2.4.0 sources by ``tests/data/make_kafka24_index.py``), so a learner who follows an anchor finds the
method in Kafka's tree. Code that mirrors another release says so: ``# Kafka 2.7: Class.member``, and
that release must be named in the README's era notes. JDK classes (the Python stand-ins of DESIGN §3)
are allowed as they are.
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "tests" / "data" / "kafka-2.4-identifiers.txt"
ANCHOR = re.compile(r"#\s*Kafka:\s*([A-Z]\w*)(?:\.(\w+))?")
ERA_ANCHOR = re.compile(r"#\s*Kafka (\d+\.\d+|\d+\.x)\+?:")
JDK_CLASSES = {"ArrayBlockingQueue", "Deque", "FileChannel", "LinkedBlockingDeque", "List", "Map", "Thread"}


def load_index() -> dict[str, set[str]]:
    index = {}
    for line in INDEX.read_text().splitlines()[1:]:
        cls, *members = line.split()
        index[cls] = set(members)
    return index


def anchors():
    for path in sorted((ROOT / "kafkalite").rglob("*.py")):
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            for m in ANCHOR.finditer(line):
                yield f"{path.relative_to(ROOT)}:{lineno}", m.group(1), m.group(2)


def test_every_anchor_names_a_kafka_24_identifier():
    index = load_index()
    wrong = []
    for where, cls, member in anchors():
        if cls in JDK_CLASSES:
            continue
        if cls not in index:
            wrong.append(f"{where}: no class {cls} in Kafka 2.4")
        elif member is not None and member not in index[cls]:
            wrong.append(f"{where}: {cls} has no member {member} in Kafka 2.4")
    assert not wrong, f"{len(wrong)} anchors name what Kafka 2.4 does not have:\n" + "\n".join(wrong)


def test_anchors_of_other_releases_are_in_the_era_notes():
    readme = (ROOT / "README.md").read_text()
    era_notes = readme[readme.index("## Era notes"):]
    missing = set()
    for path in (ROOT / "kafkalite").rglob("*.py"):
        for m in ERA_ANCHOR.finditer(path.read_text()):
            release = m.group(1)
            if release != "2.4" and f"Kafka {release}" not in era_notes:
                missing.add(f"{path.relative_to(ROOT)}: Kafka {release}")
    assert not missing, f"releases named in anchors but not in the README's era notes: {sorted(missing)}"
