"""The page registry is the one list of pages: it names every page file, and importing it starts nothing."""
import subprocess
import sys

from viz_app.registry import NAMES, PAGES, ROOT


def page_files() -> list[str]:
    return sorted(p.stem for p in (ROOT / "app_pages").glob("*.py"))


def problems(names, files) -> dict:
    """What keeps `names` (the registry's list) from naming each of `files` (app_pages/) exactly once."""
    return {"missing": sorted(set(files) - set(names)), "no file": sorted(set(names) - set(files)),
            "twice": sorted({n for n in names if list(names).count(n) > 1})}


def test_registry_lists_every_page_file_once():
    files = page_files()
    assert files and not any(problems(NAMES, files).values()), problems(NAMES, files)
    assert len(PAGES) == len(files)  # as many pages as page files, however many there are
    assert PAGES[0].name == "overview"  # the default page
    assert all((ROOT / p.path).is_file() and p.title_key == f"page.{p.name}" for p in PAGES)


def test_the_check_finds_a_page_left_out_or_listed_twice():
    files = page_files()
    assert problems(NAMES[1:], files)["missing"] == [NAMES[0]]
    assert problems((*NAMES, NAMES[-1]), files)["twice"] == [NAMES[-1]]
    assert problems((*NAMES, "gone"), files)["no file"] == ["gone"]


def test_registry_imports_without_streamlit():
    code = "import sys, viz_app.registry; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
