"""No Kafka counterpart (the JVM's class data sharing, JEP 310, keeps parsed classes across starts): a disk cache
for the methods attrs generates, so a broker does not compile them again on every start.

Why: attrs writes each class's ``__init__``/``__eq__``/``__repr__``/``__hash__`` as Python source and compiles it
when the class statement runs. Python caches the bytecode of modules in ``__pycache__``, but not this generated
code: a broker builds ~170 attrs classes before its first Metadata answer, and compiling their methods was ~50 ms
of a ~0.27 s start (issue 18). The code objects depend only on the generated source and its file name, so they
can be kept like ``.pyc`` files.

How:
- ``install()`` (kafkalite/__init__.py) wraps attrs' private ``attr._make._compile_and_eval(script, globs, locs,
  filename)``: a script seen before gets its code object from the cache, a new one is compiled as attrs would
  (same future flags) and remembered. If attrs lacks that function (another version), nothing is installed and
  attrs compiles as before.
- attrs puts ``hash(<class's file name>)`` into each ``__hash__`` as a literal; string hashes are salted per
  process, so the literal is replaced by a fixed sentinel before the lookup and put back into the code object's
  constants afterwards. The key is the exact (normalised) source, so a changed class is a miss, never a stale hit.
- ``save()`` writes the code this process used (hits and misses) to ``kafkalite/__pycache__/
  _attrs_generated.<cache tag>.marshal`` (Python's own ``__pycache__`` rules: nothing when
  ``sys.dont_write_bytecode``, ``sys.pycache_prefix`` honoured), atomically, only when something was compiled.
  ``python -m kafkalite`` calls it once the broker is started and again at exit; other processes only read.
- The file starts with Python's bytecode magic number: another interpreter ignores it. (Not attrs' version: reading
  ``attr.__version__`` imports importlib.metadata, ~10 ms; another attrs writes other source, another key.)

Left out: a size bound (the file holds what one broker used, ~0.65 MB: keys are the generated source itself) and invalidation other than by key.
"""
from __future__ import annotations

import __future__
import importlib.util
import marshal
import os
import sys
import types

FORMAT = b"kafkalite-attrs-code-1\n"
SENTINEL = 7315577216843512069          # stands for the per-process hash literal in a cached __hash__
_METHODS_PREFIX = "<attrs generated methods "
_HASH_PREFIX = "<attrs generated hash "

_installed = False
_path = ""                                            # set by install()
_cache: dict[str, types.CodeType] | None = None   # loaded on the first lookup
_used: dict[str, types.CodeType] = {}
_compiled = 0                                        # misses since the last save
stats = {"hits": 0, "misses": 0}


def cache_path() -> str:
    package_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    pyc = importlib.util.cache_from_source(os.path.join(package_dir, "_attrs_generated.py"))
    return pyc[:-len(".pyc")] + ".marshal"


def _header() -> bytes:
    # the code objects depend on the interpreter's bytecode (its magic number), not on attrs' version: another
    # attrs writes other source, which is another key
    return FORMAT + importlib.util.MAGIC_NUMBER


def _load() -> dict[str, types.CodeType]:
    try:
        with open(_path, "rb") as f:
            raw = f.read()
        header = _header()
        if raw.startswith(header):
            table = marshal.loads(memoryview(raw)[len(header):])
            if isinstance(table, dict):
                return table
    except (OSError, ValueError, EOFError, TypeError):
        pass
    return {}


def _put_back(code: types.CodeType, value: int) -> types.CodeType:
    consts = tuple(value if type(c) is int and c == SENTINEL else
                   _put_back(c, value) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_consts=consts)


def install() -> None:
    global _installed, _path
    if _installed:
        return
    try:
        import attr._make as make
    except ImportError:
        return
    original = getattr(make, "_compile_and_eval", None)
    if original is None or not isinstance(original, types.FunctionType):
        return
    _path = cache_path()
    feature_mask = 0
    for name in __future__.all_feature_names:
        feature_mask |= getattr(__future__, name).compiler_flag
    flags = original.__code__.co_flags & feature_mask   # what compile() inside attr/_make.py inherits
    def compile_and_eval(script, globs, locs=None, filename=""):
        global _cache, _compiled
        type_hash = None
        if filename.startswith(_METHODS_PREFIX) and str(SENTINEL) not in script:
            h = hash(_HASH_PREFIX + filename[len(_METHODS_PREFIX):])
            if str(h) in script:
                type_hash, script = h, script.replace(str(h), str(SENTINEL))
        key = f"{filename}\0{script}"      # the exact source: no digest (hashlib's OpenSSL costs ~4 ms to load)
        if _cache is None:
            _cache = _load()
        code = _cache.get(key)
        if code is None:
            code = compile(script, filename, "exec", flags, True)
            _cache[key] = code
            _compiled += 1
            stats["misses"] += 1
        else:
            stats["hits"] += 1
        _used[key] = code
        if type_hash is not None:
            code = _put_back(code, type_hash)
        eval(code, globs, locs)

    make._compile_and_eval = compile_and_eval
    _installed = True


def save() -> bool:
    """Write the code objects this process used, if any was compiled since the last save; True if written."""
    global _compiled
    if not _installed or not _compiled or sys.dont_write_bytecode:
        return False
    tmp = f"{_path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(_path), exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(_header() + marshal.dumps(dict(_used)))
        os.replace(tmp, _path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
    _compiled = 0
    return True
