"""Benchmarks of the attention visualizer: `python -m bench.run` writes BENCHMARKS.md."""
