"""examples/explore.ipynb, run as a reader runs it: cell by cell in a real Jupyter kernel (ipykernel on this
venv's python, started by nbclient), from its own folder. It must run without an error or a warning, and its
charts must hold the shipped translator's own numbers for the notebook's sentence, recomputed here from
core_model.

The kernel is named in a kernelspec written to a temporary folder, with this interpreter's full path: `python3`
would be whatever the machine's Jupyter paths or PATH give. Jupyter's and IPython's own folders (connection
files, history) are temporary too, so nothing is written outside the checkout, the venv and /tmp.
"""
from __future__ import annotations

import ast
import json
import os
import re
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

from core_model import load, run_with_trace
from core_model.decoding import greedy
from tests.app.conftest import decode

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK = ROOT / "examples" / "explore.ipynb"
MODEL = ROOT / "assets" / "models" / "translate-en-fr"  # the model the notebook loads
KERNEL = "attention-viz-tests"
CELL_SECONDS = 300  # a cell at most: the whole notebook takes seconds, but CI's two cores are shared
START_SECONDS = 120
PLOTLY = "application/vnd.plotly.v1+json"


def kernel_home(root: Path) -> dict[str, str]:
    """A kernelspec for this interpreter under `root`, and the environment that makes Jupyter use only `root`."""
    spec = root / "share" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]
    (spec / "kernel.json").write_text(json.dumps({"argv": argv, "display_name": KERNEL, "language": "python"}))
    env = {"JUPYTER_PATH": str(root / "share"), "JUPYTER_DATA_DIR": str(root / "data"),
           "JUPYTER_CONFIG_DIR": str(root / "config"), "JUPYTER_RUNTIME_DIR": str(root / "runtime"),
           "IPYTHONDIR": str(root / "ipython"), "JUPYTER_PLATFORM_DIRS": "1"}
    # The checkout first, so the kernel imports this tree (installed with `pip install -e .` or not).
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    # Figures as plotly's JSON, which these tests read: the renderer plotly picks in a Jupyter kernel anyway,
    # pinned so that a variable such as VSCODE_PID on a developer's machine does not pick another.
    env["PLOTLY_RENDERER"] = "plotly_mimetype"
    return env


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict[str, nbformat.NotebookNode]:
    """The notebook after a run in a fresh kernel, its cells by id; a cell that raises fails every test here."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as mp:
        for name, value in kernel_home(tmp_path_factory.mktemp("jupyter")).items():
            mp.setenv(name, value)
        assert KernelSpecManager().get_kernel_spec(KERNEL).argv[0] == sys.executable
        NotebookClient(nb, timeout=CELL_SECONDS, startup_timeout=START_SECONDS, kernel_name=KERNEL,
                       resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return {cell.id: cell for cell in nb.cells}


def figure(cell) -> dict:
    """The plotly figure a cell displayed (its last output)."""
    shown = [o for o in cell.outputs if PLOTLY in o.get("data", {})]
    assert shown, f"cell {cell.id} displayed no plotly figure: {[o.output_type for o in cell.outputs]}"
    return shown[-1]["data"][PLOTLY]


def the_sentence(cells) -> str:
    """The sentence the notebook traces: `sentence = "..."` in its trace cell."""
    tree = ast.parse(cells["trace"].source)
    found = [node.value.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
             and [getattr(t, "id", None) for t in node.targets] == ["sentence"]]
    assert len(found) == 1, "the trace cell sets `sentence` once"
    return found[0]


@pytest.fixture(scope="module")
def translator():
    return load(MODEL)


def test_the_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_every_cell_runs_without_an_error_or_a_warning(executed):
    code = [c for c in executed.values() if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "every code cell ran"
    noisy = {c.id: o.get("text", o.get("ename")) for c in code for o in c.outputs
             if o.output_type == "error" or (o.output_type == "stream" and o.name == "stderr")}
    assert not noisy, f"a reader would see these: {noisy}"


def test_the_grid_holds_every_encoder_head_of_the_sentence(executed, translator):
    fig = figure(executed["grid"])
    ids = translator.tokenizers["src"].encode(the_sentence(executed))
    # The encoder reads only the source: its weights do not depend on what the decoder is given.
    _, trace = run_with_trace(translator.model, src=ids, tgt=[translator.config.bos_id])
    z = decode(fig["data"][0]["z"]).astype(np.float32)
    meta, n = fig["layout"]["meta"], len(ids)
    assert (meta["block"], meta["rows"], meta["cols"]) == (1, n, n)  # a short sentence: every weight, none pooled
    step = n + meta["gap"]
    n_layers, n_heads = trace.n_layers("encoder"), translator.config.n_heads
    assert z.shape == (n_layers * step - meta["gap"], n_heads * step - meta["gap"])
    for layer in range(n_layers):
        want = trace.attn("encoder", layer, "self_attn").pattern[0]  # [heads, q, k]
        for head in range(n_heads):
            tile = z[layer * step:layer * step + n, head * step:head * step + n]
            # Weights lie in 0..1 and go to the figure as float32: an absolute bound (tests/tolerance.py).
            np.testing.assert_allclose(tile, want[head], rtol=0, atol=1e-6, err_msg=f"layer {layer} head {head}")
    tiles = np.zeros(z.shape, bool)
    for layer, head in np.ndindex(n_layers, n_heads):
        tiles[layer * step:layer * step + n, head * step:head * step + n] = True
    assert np.isnan(z[~tiles]).all(), "the gaps between tiles are empty cells"


def test_the_decoding_chart_is_each_steps_cross_attention(executed, translator):
    fig = figure(executed["decoding"])
    ids = translator.tokenizers["src"].encode(the_sentence(executed))
    decoded = greedy(translator.model, ids)
    # One teacher-forced pass over the whole translation: each decoder position's cross-attention is what the
    # step that chose the next token read (the notebook's chart comes from the step-by-step, cached decoding).
    _, trace = run_with_trace(translator.model, src=ids, tgt=[translator.config.bos_id, *decoded.ids])
    last = trace.n_layers("decoder") - 1
    want = trace.attn("decoder", last, "cross_attn").pattern[0].mean(0)  # [steps, source]
    z = decode(fig["data"][0]["z"])
    assert z.shape == (len(decoded.steps), len(ids)) == want.shape
    assert len(fig["data"][0]["y"]) == len(decoded.steps) and len(fig["data"][0]["x"]) == len(ids)
    # 0..1 weights; a cached step and a full pass sum in another order (tests/tolerance.py): an absolute bound.
    np.testing.assert_allclose(z, want, rtol=0, atol=1e-5)


def test_the_attribution_chart_shows_four_methods_each_on_its_own_scale(executed, translator):
    fig = figure(executed["attribution-chart"])
    n = len(translator.tokenizers["src"].encode(the_sentence(executed)))
    z = decode(fig["data"][0]["z"]).astype(np.float64)
    assert z.shape == (4, n) and len(fig["data"][0]["y"]) == 4  # rollout, flow, gradient × input, integrated
    np.testing.assert_allclose(np.abs(z).max(axis=1), 1.0, rtol=1e-6)  # each row divided by its largest |value|
    printed = "".join(o.get("text", "") for o in executed["attribution"].outputs)
    gap = re.search(r"\(([0-9.]+)% apart\)", printed)
    # Integrated gradients add up to f(input) − f(baseline) within 1 % (core_model.attribution.COMPLETE).
    assert gap and float(gap.group(1)) <= 1.0, printed
