"""The architecture of DESIGN.md, held by tests: the import arrows (.importlinter, run by import-linter),
no import cycles at all, and the size limits (pages ≤ 60 lines, functions ≤ 40 lines).

Every import statement counts, those inside functions included: grimp, the graph builder under
import-linter, reads them all. Each failure lists every offender, so one run shows all there is to fix.
"""
from __future__ import annotations

import ast
import configparser
import os
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / ".importlinter"
PACKAGES = ("app_pages", "attention_viz", "viz_app", "core_model", "bench")  # app_pages: a namespace package
ENTRY = ROOT / "app.py"  # a single module, not a package: neither grimp nor import-linter can take it as a root
PAGE_LINES = 60
FUNCTION_LINES = 40

# The `lint-imports` console script, run by the venv's own python so no PATH lookup is involved.
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.argv[0] = 'lint-imports'; lint_imports_command()"


def lint(cwd: Path, config: Path) -> subprocess.CompletedProcess:
    """import-linter on `config` from `cwd`, uncached (it would write .import_linter_cache into the repo)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # cwd alone says where the packages are
    env.update(COLUMNS="1000", NO_COLOR="1", TERM="dumb")  # one contract per line, no colour codes
    return subprocess.run([sys.executable, "-c", LINT, "--config", str(config), "--no-cache", "--no-logo"],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def contract_names(config: Path) -> list[str]:
    parser = configparser.ConfigParser()
    parser.read(config, encoding="utf-8")
    return [parser[s]["name"] for s in parser.sections() if s.startswith("importlinter:contract:")]


def test_import_contracts_hold():
    result = lint(ROOT, CONFIG)
    assert result.returncode == 0, f"import-linter (.importlinter) failed:\n{result.stdout}\n{result.stderr}"


# A miniature of the project: the same root packages, each contract's modules present and clean.
SKELETON = {
    "core_model/__init__.py": "",
    "core_model/nn/__init__.py": "",
    "core_model/nn/model.py": "import torch\nfrom core_model.trace import hook_points\n",
    "core_model/trace/__init__.py": "",
    "core_model/trace/hook_points.py": "",
    "core_model/tokenizers/__init__.py": "",
    "core_model/checkpoints/__init__.py": "from core_model.nn import model\nfrom core_model import tokenizers\n",
    "core_model/importers/__init__.py": "from core_model.importers import one, two\n",
    "core_model/importers/one.py": "from core_model import checkpoints\n",
    "core_model/importers/two.py": "from core_model import checkpoints\n",
    "core_model/training/__init__.py": "from core_model import checkpoints\n",
    "viz_app/__init__.py": "",
    "viz_app/loaders.py": "import streamlit as st\nfrom core_model import model\n",
    "viz_app/figures/__init__.py": "",
    "viz_app/figures/heatmap.py": "import plotly.graph_objects as go\n",
    "viz_app/views/__init__.py": "",
    "viz_app/views/attention.py": "import numpy as np\n",
    "app_pages/one.py": "from viz_app import loaders\nfrom viz_app.figures import heatmap\nfrom viz_app.views import attention\n",
    "app_pages/two.py": "from viz_app import loaders\n",
    "bench/__init__.py": "",
    "bench/run.py": "from core_model import model\nfrom viz_app import loaders\n",
    "attention_viz/__init__.py": "from core_model import model\nfrom viz_app.figures import heatmap\n",
}
# One breach of each contract, all inside functions (grimp must still see them).
VIOLATIONS = {
    "core_model/upward.py": "def f():\n    from viz_app import loaders\n",  # layers
    "core_model/ui.py": "def f():\n    import streamlit\n",  # core_model: no streamlit
    "core_model/nn/reads.py": "def f():\n    from core_model import checkpoints\n",  # rooms: nn below checkpoints
    "core_model/importers/three.py": "def f():\n    from core_model.importers import one\n",  # importers independent
    "viz_app/figures/bad.py": "def f():\n    import torch\n",  # figures: no torch
    "viz_app/views/bad.py": "def f():\n    import plotly.graph_objects\n",  # views: no plotly
    "viz_app/entry.py": "def f():\n    import app\n",  # viz_app: not the entry script
    "viz_app/notebooks.py": "def f():\n    import attention_viz\n",  # layers: viz_app below attention_viz
    "viz_app/figures/uses_view.py": "def f():\n    from viz_app.views import attention\n",  # independence
    "app_pages/three.py": "def f():\n    from app_pages import one\n",  # pages independent
    "bench/a.py": "def f():\n    from . import b\n",  # a cycle
    "bench/b.py": "from . import a\n",
}


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_the_linter_is_not_blind(tmp_path):
    """The real .importlinter on a miniature: clean, every contract is kept; with one breach each, every one breaks."""
    config = tmp_path / ".importlinter"
    config.write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    write_tree(tmp_path, SKELETON)
    clean = lint(tmp_path, config)
    assert clean.returncode == 0, f"the clean miniature should pass:\n{clean.stdout}\n{clean.stderr}"
    write_tree(tmp_path, VIOLATIONS)
    broken = lint(tmp_path, config)
    assert broken.returncode != 0, broken.stdout
    blind = [name for name in contract_names(config) if f"{name} BROKEN" not in broken.stdout]
    assert not blind, ("contracts kept despite a breach (a new contract needs its breach in VIOLATIONS): "
                       f"{blind}\n{broken.stdout}\n{broken.stderr}")


# Imports every module of a package, printing after each the top-level packages it newly loaded.
LOAD_ALL = """
import importlib, pkgutil, sys
def top(): return {m.split(".")[0] for m in sys.modules}
before = top()
pkg = importlib.import_module(sys.argv[1])
print(sys.argv[1], *sorted(top() - before))
for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    before = top()
    importlib.import_module(info.name)
    print(info.name, *sorted(top() - before))
"""


@pytest.mark.parametrize("package, forbidden", [
    ("viz_app.views", {"torch", "streamlit", "plotly", "core_model"}),
    ("viz_app.figures", {"torch", "streamlit", "core_model"}),
])
def test_layers_load_without_their_forbidden_packages(package, forbidden):
    """At run time too: importing viz_app.views first runs viz_app/__init__.py, an import grimp does not draw,
    and `from core_model.x import C` runs core_model/__init__.py, which imports torch."""
    result = subprocess.run([sys.executable, "-c", LOAD_ALL, package], cwd=ROOT, capture_output=True, text=True,
                            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, timeout=600)
    assert result.returncode == 0, result.stderr
    culprits = [f"  {line.split()[0]} loads {sorted(forbidden & set(line.split()[1:]))}"
                for line in result.stdout.splitlines() if forbidden & set(line.split()[1:])]
    assert not culprits, f"importing {package} loads what it must not:\n" + "\n".join(culprits)


# ---- no import cycles ------------------------------------------------------------------------------

def entry_imports(modules: set[str]) -> set[str]:
    """The modules of the graph that app.py imports (any statement, inside functions too)."""
    found = set()
    for node in ast.walk(ast.parse(ENTRY.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            known = [".".join(parts[:i]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in modules]
            found.update(known[:1])
    return found


def project_graph() -> tuple[grimp.ImportGraph, dict[str, set[str]]]:
    """grimp's graph of the packages (externals included, so an `import app` shows) plus app.py's own imports."""
    graph = grimp.build_graph(*PACKAGES, include_external_packages=True, cache_dir=None)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    edges["app"] = entry_imports(set(graph.modules))
    return graph, edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module, and modules that import themselves (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while not group or group[-1] != v:
                group.append(stack.pop())
                on_stack.discard(group[-1])
            if len(group) > 1 or v in edges.get(v, ()):
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def describe(graph, edges, group: list[str]) -> str:
    lines = ["  " + " ⇄ ".join(group)]
    for a in group:
        for b in sorted(edges[a] & set(group)):
            where = ("app.py" if a == "app" else
                     ", ".join(f"l.{d['line_number']}: {d['line_contents']}"
                               for d in graph.get_import_details(importer=a, imported=b)))
            lines.append(f"      {a} -> {b}   ({where})")
    return "\n".join(lines)


def test_no_import_cycles(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    graph, edges = project_graph()
    found = cycles(edges)
    assert not found, (f"{len(found)} import cycle(s) among the project's modules; each group's modules import "
                       "each other, directly or round the group (imports inside functions count):\n"
                       + "\n".join(describe(graph, edges, g) for g in found))


def test_cycle_finder_sees_function_level_and_self_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"a"}, "b": set()}) == [["a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_holds_imports_inside_functions(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    graph, edges = project_graph()
    assert {"app_pages.overview", "viz_app", "core_model", "bench.run"} <= set(edges)
    assert "bench.bert" in edges["bench.run"]  # `from .bert import bench_bert` sits inside a function of bench/run.py
    assert any(m.startswith("viz_app") for m in edges["app"])


def test_entry_script_imports_only_streamlit_and_viz_app(monkeypatch):
    """app.py is outside import-linter (a module, not a package): it routes to pages and imports no lower layer."""
    monkeypatch.syspath_prepend(str(ROOT))
    _, edges = project_graph()
    wrong = sorted(m for m in edges["app"] if m != "streamlit" and m != "viz_app" and not m.startswith("viz_app."))
    assert not wrong, f"app.py imports {wrong}; it should only build st.navigation from viz_app's page registry"


# ---- sizes -----------------------------------------------------------------------------------------

def python_files() -> list[Path]:
    files = [ENTRY]
    for package in PACKAGES:
        files += sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def functions(path: Path) -> list[tuple[str, int, int]]:
    """(qualified name, line of the `def`, length in lines) of every function and method; decorators excluded."""
    out = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out.append((prefix + child.name, child.lineno, child.end_lineno - child.lineno + 1))
                walk(child, f"{prefix}{child.name}.<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)), "")
    return out


def page_files() -> list[Path]:
    return sorted((ROOT / "app_pages").glob("*.py"))


def test_pages_are_short():
    long = sorted(((len(p.read_text(encoding="utf-8").splitlines()), p) for p in page_files()), reverse=True)
    over = [f"  {p.relative_to(ROOT)}: {n} lines" for n, p in long if n > PAGE_LINES]
    assert not over, (f"{len(over)} page(s) over {PAGE_LINES} lines (read state → view → figure → place):\n"
                      + "\n".join(over))


def test_functions_are_short():
    found = [(n, f"{p.relative_to(ROOT)}:{line}", name) for p in python_files() for name, line, n in functions(p)]
    over = [f"  {n:4d} lines  {where}  {name}" for n, where, name in sorted(found, reverse=True) if n > FUNCTION_LINES]
    assert not over, (f"{len(over)} function(s) over {FUNCTION_LINES} lines (decorators excluded):\n"
                      + "\n".join(over))


def test_the_size_checks_see_the_code():
    assert ENTRY.is_file()
    assert len(page_files()) >= 9, [p.name for p in page_files()]
    per_package = {pkg: sum(len(functions(p)) for p in (ROOT / pkg).rglob("*.py")) for pkg in PACKAGES}
    assert all(per_package[pkg] > 0 for pkg in ("viz_app", "core_model", "bench")), per_package
    assert sum(len(functions(p)) for p in python_files()) > 100, per_package


@pytest.mark.parametrize("source, expected", [
    ("def f():\n    return 1\n", [("f", 1, 2)]),
    ("@decorator\n@other(1)\ndef f():\n    pass\n", [("f", 3, 2)]),
    ("class A:\n    def m(self):\n        def inner():\n            pass\n", [("A.m", 2, 3), ("A.m.<locals>.inner", 3, 2)]),
    ("async def g():\n    await x\n", [("g", 1, 2)]),
])
def test_function_sizes_count_from_the_def_line(tmp_path, source, expected):
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert functions(path) == expected
