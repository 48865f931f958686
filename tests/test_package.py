"""The wheel: its version is core_model.__version__, its license MIT, the LICENSE file inside, and the app itself
(app.py, its pages, the shipped models, the Streamlit config) in attention_viz/app/, where viz_app/home.py finds it.
(Installed into a fresh environment and served from another folder: tests/e2e/test_one_call.py.)"""
import shutil
import subprocess
import sys
import zipfile

import core_model

from .test_architecture import ROOT

SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "requirements.txt", "core_model", "viz_app",
           "attention_viz", "app.py", "app_pages", ".streamlit", "assets")


def build_wheel(tmp_path):
    """The wheel `pip wheel` builds from a copy of the checkout's sources (an in-tree build would leave build/ and
    egg-info in the checkout), in tmp_path/dist."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, tree / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(tmp_path / "dist"), str(tree)], check=True, capture_output=True, timeout=600)
    (wheel,) = (tmp_path / "dist").glob("attention_viz-*.whl")
    return wheel


def test_the_wheel_says_its_version_and_license_and_carries_the_license(tmp_path):
    wheel = build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        license_text = archive.read(next(n for n in names if n.endswith("licenses/LICENSE"))).decode()
    assert f"Version: {core_model.__version__}" in metadata.splitlines()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert license_text.startswith("MIT License")
    app = "attention_viz/app/"
    assert {f"{app}app.py", f"{app}.streamlit/config.toml"} <= set(names)
    assert {n[len(app):] for n in names if n.startswith(app + "app_pages/")} == {
        str(p.relative_to(ROOT)) for p in (ROOT / "app_pages").glob("*.py")}
    shipped = {str(p.relative_to(ROOT)) for p in (ROOT / "assets" / "models").rglob("*") if p.is_file()}
    assert shipped and {n[len(app):] for n in names if n.startswith(app + "assets/")} == shipped
    print(f"the wheel: {wheel.stat().st_size / 2**20:.1f} MiB, {len(names)} files")
