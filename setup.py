"""The wheel carries the app itself: app.py, its pages, the shipped models and the Streamlit config, copied into
attention_viz/app/ when the packages are built (viz_app/home.py finds them there), so `attention-viz` runs from any
folder after `pip install <wheel>`. Everything else is pyproject.toml's."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
APP_FILES = ["app.py", ".streamlit/config.toml"]
APP_TREES = {"app_pages": "*.py", "assets/models": "*"}  # folder → the files of it to carry


class WithTheApp(build_py):
    def run(self):
        super().run()
        target = Path(self.build_lib) / "attention_viz" / "app"
        for name in APP_FILES:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(HERE / name, target / name)
        for folder, pattern in APP_TREES.items():
            for path in sorted((HERE / folder).rglob(pattern)):
                if path.is_file() and "__pycache__" not in path.parts:
                    (target / path.relative_to(HERE)).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target / path.relative_to(HERE))


setup(cmdclass={"build_py": WithTheApp})
