"""Shared test tools: a fixed seed, and the weight mapping from torch's own Transformer modules."""
from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

# One torch thread for the tests and every process they start (servers, CLIs): their models are tiny,
# where a second thread costs more than it saves, and CI's two cores are shared by the browser, a
# Streamlit server and pytest. Measured on tests/core: 804 s with torch's default of two threads on a
# busy machine, 163 s with one. Results differ from two threads' only in float32's last bits, which
# the tolerances allow (tests/tolerance.py).
os.environ.setdefault("OMP_NUM_THREADS", "1")
# Under pytest-xdist each worker, and every process it starts, has a temporary folder of its own: the app keeps
# visitors' models and caches under the system's (viz_app/own_model.py), and two workers must not share them.
if os.environ.get("PYTEST_XDIST_WORKER"):
    _tmp = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"attention-viz-tests-{os.environ['PYTEST_XDIST_WORKER']}")
    os.makedirs(_tmp, exist_ok=True)
    os.environ["TMPDIR"] = tempfile.tempdir = _tmp  # for the processes it starts, and for this one

import pytest  # noqa: E402
import torch  # noqa: E402

torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))


def pytest_collection_modifyitems(config, items):
    """For pytest-xdist (`./dev.sh test` runs a worker per core, a test file on one worker): the browser tests
    (tests/e2e), the longest files, are handed out first, so that no worker is left with one of them at the end."""
    here = Path(__file__).parent
    items.sort(key=lambda item: Path(str(item.path)).relative_to(here).parts[0] != "e2e")  # stable: order kept


@pytest.fixture(autouse=True)
def _seed():
    # Random weights and inputs, but the same ones on every run, so a failure can be replayed.
    torch.manual_seed(0)


def ours_from_torch(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Rename a torch state dict (nn.MultiheadAttention, nn.Transformer*Layer or a stack) to ours.

    torch packs W_Q, W_K, W_V into one in_proj [3d, d]; we keep three Linear layers. The rest
    differs only in a few names: multihead_attn → cross_attn, linearN → ffn.linearN, norm → final_norm.
    """
    out = {}
    for name, value in state.items():
        name = name.replace("multihead_attn.", "cross_attn.")
        name = re.sub(r"\blinear([12])\.", r"ffn.linear\1.", name)
        name = re.sub(r"^norm\.", "final_norm.", name)  # a stack's final norm, not a layer's normN
        packed = re.fullmatch(r"(.*)in_proj_(weight|bias)", name)
        if packed:
            prefix, leaf = packed.groups()
            for proj, part in zip("qkv", value.chunk(3)):
                out[f"{prefix}{proj}_proj.{leaf}"] = part
        else:
            out[name] = value
    return out


@pytest.fixture
def copy_from_torch():
    """Give torch's module random weights (its biases start at 0, which would hide bias bugs),
    then load the same weights into ours; strict, so every weight of ours must be covered."""
    def copy(ours: torch.nn.Module, ref: torch.nn.Module) -> None:
        with torch.no_grad():
            for p in ref.parameters():
                p.normal_(0.0, 0.3)
        ours.load_state_dict(ours_from_torch(ref.state_dict()), strict=True)
        ours.eval()
        ref.eval()
    return copy


@pytest.fixture(scope="session")
def hub_folder(tmp_path_factory):
    """`hub_folder(name)`: the small Hugging Face folder of family `name` (tests/families), built by transformers once
    per test session and shared by every test that reads it (copy it before changing a file)."""
    built = {}

    def get(name: str):
        if name not in built:
            pytest.importorskip("transformers")  # a dev requirement: the folders are made by transformers itself
            from tests.families import FAMILIES
            from tests.families.build import build

            built[name] = build(FAMILIES[name], tmp_path_factory.mktemp(name) / f"tiny-{name}")
        return built[name]

    return get
