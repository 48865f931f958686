"""The page registry is the one list of pages: it names every page file, and importing it starts nothing."""
import subprocess
import sys

from viz_app.registry import NAMES, PAGES, ROOT


def test_registry_lists_every_page_file_once():
    files = sorted(p.stem for p in (ROOT / "app_pages").glob("*.py"))
    assert sorted(NAMES) == files and len(set(NAMES)) == len(NAMES) == 11
    assert PAGES[0].name == "overview"  # the default page
    assert all((ROOT / p.path).is_file() and p.title_key == f"page.{p.name}" for p in PAGES)


def test_registry_imports_without_streamlit():
    code = "import sys, viz_app.registry; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
