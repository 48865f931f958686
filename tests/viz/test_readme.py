"""The README's Python examples run as written (docs that drift fail here)."""
import re

from viz_app.registry import ROOT


def test_readme_python_blocks_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    scope: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), scope)
    assert scope["fig"].data and len(scope["fig"].data) == len(scope["stream"].labels)  # one line per token
    assert scope["stream"].norms.shape == (len(scope["stream"].stages), len(scope["stream"].labels))
