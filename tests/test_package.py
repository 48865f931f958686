"""The distribution's metadata: its version is core_model.__version__, its license MIT, the LICENSE file inside."""
import shutil
import subprocess
import sys
import zipfile

import core_model

from .test_architecture import ROOT

SOURCES = ("pyproject.toml", "README.md", "LICENSE", "requirements.txt", "core_model", "viz_app", "attention_viz")


def test_the_wheel_says_its_version_and_license_and_carries_the_license(tmp_path):
    tree = tmp_path / "tree"  # built from a copy: an in-tree build would leave build/ and egg-info in the checkout
    tree.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, tree / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q",
                    "-w", str(tmp_path / "dist"), str(tree)], check=True, capture_output=True, timeout=600)
    (wheel,) = (tmp_path / "dist").glob("attention_viz-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        license_text = archive.read(next(n for n in names if n.endswith("licenses/LICENSE"))).decode()
    assert f"Version: {core_model.__version__}" in metadata.splitlines()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert license_text.startswith("MIT License")
