"""Every cache the served code keeps has a bound, so no number of visitors grows the server forever.

The source is read with `ast` to find every cache (a decorator anywhere, or a module-level container
that functions write into); the bounds of the Streamlit caches are then read back from the
decorated objects themselves, as Streamlit will apply them.
"""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVED = [ROOT / "app.py", *sorted((ROOT / "app_pages").glob("*.py")), *sorted((ROOT / "viz_app").rglob("*.py")),
          *sorted((ROOT / "core_model").rglob("*.py"))]
STREAMLIT_CACHES = {"cache_data", "cache_resource"}
MUTATORS = {"append", "add", "update", "setdefault", "extend", "insert", "__setitem__"}
CONTAINER_TYPES = {"dict", "list", "set", "defaultdict", "OrderedDict"}


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def called_name(node: ast.expr) -> str:
    """The last name of a call or a decorator: 'cache_data' for st.cache_data(...) or @st.cache_data."""
    target = node.func if isinstance(node, ast.Call) else node
    return target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def cached_functions() -> list[tuple[Path, ast.FunctionDef, ast.expr]]:
    found = []
    for path in SERVED:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [(path, node, d) for d in node.decorator_list
                          if called_name(d) in STREAMLIT_CACHES | {"lru_cache", "cache", "shared_cache"}]
    return found


CACHED = cached_functions()


def test_the_search_finds_the_loaders_caches():
    # Guards the search itself: a broken walk would find nothing and pass every test below.
    # One cache of each of the loaders' modules: each file of the package is read.
    names = {(path.name, f.name) for path, f, _ in CACHED if path.parent == ROOT / "viz_app" / "loaders"}
    assert {("models.py", "_load_cached"), ("runs.py", "run"), ("decodings.py", "decode"),
            ("tables.py", "block_weights"), ("corpus.py", "qk_batch")} <= names


@pytest.mark.parametrize("path, func, decorator", CACHED, ids=[f"{p.name}:{f.name}" for p, f, _ in CACHED])
def test_every_cache_decorator_has_a_bound(path, func, decorator):
    kind = called_name(decorator)
    where = f"{path.relative_to(ROOT)}:{func.lineno} {func.name}"
    assert kind != "cache", f"{where}: functools.cache never forgets; use lru_cache(maxsize=N)"
    assert isinstance(decorator, ast.Call), f"{where}: @{kind} without arguments keeps every entry forever"
    keywords = {k.arg: k.value for k in decorator.keywords}
    if kind == "lru_cache":
        size = keywords.get("maxsize", decorator.args[0] if decorator.args else None)
        assert isinstance(size, ast.Constant) and isinstance(size.value, int), f"{where}: lru_cache needs maxsize=N"
        return
    cached = getattr(importlib.import_module(module_name(path)), func.name)
    if kind == "shared_cache":  # viz_app/shared_cache.py: bounded in entries and in bytes, read from the object
        assert cached.max_entries > 0 and 0 < cached.max_bytes <= 2**30, where
        return
    info = cached._info  # what Streamlit will enforce, read from the decorated object
    assert isinstance(info.max_entries, int) and info.max_entries > 0, f"{where}: {kind} needs max_entries"
    if kind == "cache_data":  # one entry can be a 61 MiB trace: a count alone does not bound the bytes
        assert isinstance(info.max_size_bytes, int) and info.max_size_bytes > 0, f"{where}: cache_data needs max_size"


def test_the_byte_bounded_caches_together_stay_under_a_gibibyte():
    total = 0
    for path, func, decorator in CACHED:
        cached = getattr(importlib.import_module(module_name(path)), func.name)
        if called_name(decorator) == "cache_data":
            total += cached._info.max_size_bytes
        elif called_name(decorator) == "shared_cache":
            total += cached.max_bytes
    assert 0 < total <= 2**30, f"the caches' byte bounds add up to {total / 2**20:.0f} MiB"


def module_containers(tree: ast.Module) -> set[str]:
    """Names bound at module level to a dict, list or set (a literal, a comprehension or a call)."""
    names = set()
    for node in tree.body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets, value = node.targets if isinstance(node, ast.Assign) else [node.target], node.value
        container = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and called_name(value) in CONTAINER_TYPES)
        if container:
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def writes_in_functions(tree: ast.Module, names: set[str]) -> list[tuple[str, int]]:
    """(name, line) wherever a function body stores into, or calls a mutating method of, one of `names`."""
    writes = []
    for func in (n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))):
        for node in ast.walk(func):
            if isinstance(node, (ast.Assign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                writes += [(t.value.id, node.lineno) for t in targets
                           if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS
                  and isinstance(node.func.value, ast.Name) and node.func.value.id in names):
                writes.append((node.func.value.id, node.lineno))
    return writes


@pytest.mark.parametrize("path", SERVED, ids=[str(p.relative_to(ROOT)) for p in SERVED])
def test_no_module_level_container_grows_at_run_time(path):
    # A dict filled by a function is a cache without a bound: every session would add to it.
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert writes_in_functions(tree, module_containers(tree)) == []


def test_the_container_search_catches_a_growing_dict():
    tree = ast.parse("SEEN = {}\nLOG = []\nFIXED = {'a': 1}\n"
                     "def f(k):\n    SEEN[k] = 1\n    LOG.append(k)\n    local = {}\n    local[k] = FIXED['a']\n")
    assert module_containers(tree) == {"SEEN", "LOG", "FIXED"}
    assert writes_in_functions(tree, module_containers(tree)) == [("SEEN", 5), ("LOG", 6)]
