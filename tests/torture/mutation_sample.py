"""No Kafka counterpart (Kafka runs no mutation testing; issue 12 asks for it): a sampled mutation run over
the modules the seed concepts live in, to find what the tests would let break unnoticed.

Each mutant changes one operator in one module -- a comparison (``<`` <-> ``<=``, ``>`` <-> ``>=``,
``==`` <-> ``!=``, ``is`` <-> ``is not``, ``in`` <-> ``not in``), a boolean (``and`` <-> ``or``, ``not x``
-> ``x``), an arithmetic ``+`` <-> ``-``, or a constant ``True`` <-> ``False`` -- writes the mutated module
in place of the real one, runs the unit tests with ``-x``, and puts the original back. A mutant is
*killed* when a test fails (or times out), *survived* otherwise; the score is killed / run.

    python tests/torture/mutation_sample.py --mutants 40 --seed 1

prints one line per mutant and the score; ``docs/mutation.md`` has the latest figures. The run is
deterministic for a seed. It rewrites files under kafkalite/ while it runs: do not run it beside
other work in the same checkout (it always restores the originals, even on Ctrl-C).
"""
from __future__ import annotations

import argparse
import ast
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODULES = ["kafkalite/network/socket_server.py", "kafkalite/network/selector.py", "kafkalite/network/kafka_channel.py",
           "kafkalite/network/network_receive.py", "kafkalite/network/request_channel.py",
           "kafkalite/server/replica_manager.py", "kafkalite/cluster/partition.py",
           "kafkalite/server/delayed_operation.py", "kafkalite/server/delayed_produce.py",
           "kafkalite/server/delayed_fetch.py"]
TESTS = ["tests/unit"]

SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
         ast.And: ast.Or, ast.Or: ast.And, ast.Add: ast.Sub, ast.Sub: ast.Add}


def mutation_points(tree) -> list[tuple[ast.AST, str]]:
    points = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            points += [(node, f"op{i}") for i, op in enumerate(node.ops) if type(op) in SWAPS]
        elif isinstance(node, ast.BoolOp) or (isinstance(node, ast.BinOp) and type(node.op) in SWAPS):
            points.append((node, "op"))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            points.append((node, "drop-not"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, bool):
            points.append((node, "flip"))
    return points


def mutate(source: str, index: int) -> tuple[str, str]:
    tree = ast.parse(source)
    node, kind = mutation_points(tree)[index]
    where = f"line {node.lineno}: {ast.unparse(node)[:70]}"
    if kind.startswith("op") and isinstance(node, ast.Compare):
        i = int(kind[2:])
        node.ops[i] = SWAPS[type(node.ops[i])]()
    elif isinstance(node, (ast.BoolOp, ast.BinOp)):
        node.op = SWAPS[type(node.op)]()
    elif kind == "flip":
        node.value = not node.value
    elif kind == "drop-not":
        parent = next(p for p in ast.walk(tree) for f in ast.iter_child_nodes(p) if f is node)
        for field, value in ast.iter_fields(parent):
            if value is node:
                setattr(parent, field, node.operand)
            elif isinstance(value, list):
                setattr(parent, field, [node.operand if v is node else v for v in value])
    after = ast.unparse(node.operand if kind == "drop-not" else node)
    return ast.unparse(tree), f"{where}  ->  {after[:70]}"


def run_tests(timeout_s: int) -> bool:
    """True when the tests pass (the mutant survived)."""
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-W", "ignore::DeprecationWarning", *TESTS], cwd=ROOT, capture_output=True,
                              timeout=timeout_s, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False
    return proc.returncode == 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="sampled mutation testing of kafkalite's core modules")
    parser.add_argument("--mutants", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per test run")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    candidates = []
    for module in MODULES:
        source = (ROOT / module).read_text()
        candidates += [(module, i) for i in range(len(mutation_points(ast.parse(source))))]
    sample = rng.sample(candidates, min(args.mutants, len(candidates)))
    killed, survivors, started = 0, [], time.monotonic()
    for n, (module, index) in enumerate(sample, 1):
        path = ROOT / module
        original = path.read_text()
        mutated, what = mutate(original, index)
        try:
            path.write_text(mutated)
            survived = run_tests(args.timeout)
        finally:
            path.write_text(original)
        killed += not survived
        if survived:
            survivors.append(f"{module} {what}")
        print(f"[{n}/{len(sample)}] {'SURVIVED' if survived else 'killed  '} {module} {what}", flush=True)
    score = killed / len(sample) if sample else 0.0
    print(f"\n{killed} of {len(sample)} mutants killed ({score:.0%}) from {len(candidates)} mutation points in "
          f"{len(MODULES)} modules, seed {args.seed}, {time.monotonic() - started:.0f}s")
    for s in survivors:
        print(f"  survived: {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
