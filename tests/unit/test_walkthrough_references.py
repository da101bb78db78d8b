"""No Kafka counterpart: keeps docs/walkthrough/ pointing at code that exists.

Every code reference in the walkthrough is written `path/to/module.py::Name` or
`path/to/module.py::Class.method` (see docs/walkthrough/README.md). This test finds each one in
every docs/walkthrough/*.md file and checks that the file exists, that the module imports, and that
the name resolves with getattr. It also checks that each chapter names every concept (S-number) it
owns; chapters that are not written yet are skipped and checked as soon as their file appears.
"""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WALKTHROUGH = ROOT / "docs" / "walkthrough"

# `some/module.py::Name` or `some/module.py::Name.attr[.attr...]`, inside backticks
REFERENCE = re.compile(r"`([A-Za-z0-9_./-]+\.py)::([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)`")


def _s(first: int, last: int) -> list[str]:
    return [f"S{n}" for n in range(first, last + 1)]


# chapter file prefix -> the concepts (SEED-CONCEPTS.md) that chapter must name
CHAPTER_CONCEPTS = {
    "01-": _s(1, 9) + ["S48", "S49"],
    "02-": _s(10, 17),
    "03-": _s(18, 27),
    "04-": _s(28, 39),
    "05-": _s(40, 47),
}


def _docs() -> list[Path]:
    return sorted(WALKTHROUGH.glob("*.md"))


def _references() -> list[tuple[str, int, str, str]]:
    refs = []
    for doc in _docs():
        for lineno, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in REFERENCE.finditer(line):
                refs.append((doc.name, lineno, m.group(1), m.group(2)))
    return refs


def _chapter_files(prefix: str) -> list[Path]:
    return [p for p in _docs() if p.name.startswith(prefix)]


def _resolve(path: str, name: str):
    """Import the module at repo-relative ``path`` and getattr along ``name``; return the object."""
    module_name = path[:-3].replace("/", ".")
    obj = importlib.import_module(module_name)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def test_walkthrough_has_index_and_first_chapters():
    names = {p.name for p in _docs()}
    assert "README.md" in names
    assert _chapter_files("01-") and _chapter_files("02-")


def test_the_reference_pattern_finds_references_in_every_chapter():
    # guards against a pattern that silently matches nothing
    per_file = {}
    for doc_name, _, _, _ in _references():
        per_file[doc_name] = per_file.get(doc_name, 0) + 1
    for prefix in CHAPTER_CONCEPTS:
        for doc in _chapter_files(prefix):
            assert per_file.get(doc.name, 0) >= 5, f"{doc.name} has almost no code references"


@pytest.mark.parametrize("doc_name,lineno,path,name",
                         _references(), ids=[f"{d}:{n}:{p}::{a}" for d, n, p, a in _references()])
def test_reference_points_at_existing_code(doc_name, lineno, path, name):
    where = f"{doc_name} line {lineno}: `{path}::{name}`"
    assert (ROOT / path).is_file(), f"{where}: no file {path}"
    try:
        obj = _resolve(path, name)
    except ImportError as e:
        pytest.fail(f"{where}: module does not import: {e}")
    except AttributeError as e:
        pytest.fail(f"{where}: name not found: {e}")
    assert obj is not None, f"{where}: resolves to None"


@pytest.mark.parametrize("prefix", sorted(CHAPTER_CONCEPTS))
def test_chapter_names_every_concept_it_owns(prefix):
    files = _chapter_files(prefix)
    if not files:
        pytest.skip(f"chapter {prefix}* is not written yet")
    assert len(files) == 1, f"more than one chapter file starts with {prefix}: {[p.name for p in files]}"
    text = files[0].read_text(encoding="utf-8")
    missing = [s for s in CHAPTER_CONCEPTS[prefix] if not re.search(rf"\b{s}\b", text)]
    assert not missing, f"{files[0].name} does not mention {missing}"


def test_pytest_commands_name_test_files_that_exist():
    # a "watch it" command such as `python -m pytest tests/unit/test_x.py -k y` must run something
    for doc in _docs():
        for m in re.finditer(r"pytest\s+(tests/[\w/]+\.py)", doc.read_text(encoding="utf-8")):
            assert (ROOT / m.group(1)).is_file(), f"{doc.name} runs {m.group(1)}, which does not exist"


def test_resolve_rejects_a_missing_name():
    # the checker itself must fail on a wrong reference, not pass everything
    with pytest.raises(AttributeError):
        _resolve("kafkalite/network/selector.py", "Selector.no_such_method")
    with pytest.raises(ImportError):
        _resolve("kafkalite/network/no_such_module.py", "Selector")
    assert REFERENCE.search("see `kafkalite/network/selector.py::Selector.poll` here").groups() == (
        "kafkalite/network/selector.py", "Selector.poll")
