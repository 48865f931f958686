"""Eight visitors bring large models at once (issue 37, case 3: eight distinct zips of 230 MB models once took the
server from 0.56 to 2.6 GB, kept it, and pushed another visitor's model out with a page error naming a server path).

`.venv/bin/python -m bench.uploads [--models 8]` starts a `streamlit run` server on 127.0.0.1, makes that many
distinct encoder-decoder checkpoints of about 230 MB (the shipped reverse model's vocabulary, 512 wide, 3 + 3 layers,
feed-forward 8,192 wide; weights of a few values, so each zips small), and uploads them from as many protocol clients
at once, through Streamlit's own upload route (bench.protocol.Client.upload). It prints each upload's time and what
the page said, the server's RSS before, at its highest (sampled every 0.2 s) and after, and the bytes the own-model
folder gained on disk, against the budgets of viz_app/own_model.py (4 loaded, 8 folders, 2 GiB on disk).
"""
from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

from . import browser as br
from .hostile import UPLOAD
from .protocol import opened

MiB = 2**20


def large_model(dest: Path, seed: int) -> bytes:
    """The zip of a ~230 MB checkpoint, distinct for each seed."""
    import torch

    from core_model import ModelConfig, Transformer, checkpoints
    from tests.bad_checkpoints import REVERSE, files_of, zip_of

    loaded = checkpoints.load(REVERSE)
    cfg = ModelConfig(**{**loaded.config.to_dict(), "d_model": 512, "n_heads": 8, "head_dim": 64, "d_ff": 8192,
                         "n_encoder_layers": 3, "n_decoder_layers": 3})
    model = Transformer(cfg).eval()
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randint(-2, 3, p.shape, generator=g).float() * 0.02)
    return zip_of(files_of(checkpoints.save(dest, model, loaded.tokenizers, card=f"large {seed}")))


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) if folder.exists() else 0


async def bring(base: str, name: str, data: bytes) -> tuple[float, list[str], list[str]]:
    """One visitor uploads `data`: seconds until the page had run with it, what it said, its errors."""
    async with opened(base, urlencode({"model": "reverse"}), timeout_s=600) as c:
        t0 = time.perf_counter()
        await c.upload(base, UPLOAD, name, data, timeout_s=600)
        return time.perf_counter() - t0, c.alerts, c.s.errors


async def all_at_once(base: str, pid: int, zips: list[bytes]) -> tuple[list, float]:
    peak, done = rss_mib(pid), False

    async def sample():
        nonlocal peak
        while not done:
            peak = max(peak, rss_mib(pid))
            await asyncio.sleep(0.2)

    sampler = asyncio.create_task(sample())
    results = await asyncio.gather(*(bring(base, f"large-{i}.zip", z) for i, z in enumerate(zips)))
    done = True
    await sampler
    return results, peak


def main(argv=None) -> int:
    from viz_app.own_model import OWN_DIR

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=int, default=8, help="visitors, each bringing a model of its own (1 to 16)")
    args = ap.parse_args(argv)
    if not 0 < args.models <= 16:
        ap.error("--models must be 1 to 16")
    folder = Path(tempfile.mkdtemp(prefix="bench-uploads-"))
    zips = [large_model(folder / f"m{i}", seed=i) for i in range(args.models)]
    print(f"{args.models} zips of {sum(map(len, zips)) / len(zips) / MiB:.1f} MiB each, "
          f"{disk_bytes(folder / 'm0') / MiB:.0f} MiB unpacked")
    with br.server() as (base, pid):
        asyncio.run(bring(base, "warm.zip", b""))  # the server's first page and Streamlit's upload route, once
        before, disk_before = rss_mib(pid), disk_bytes(OWN_DIR)
        t0 = time.perf_counter()
        results, peak = asyncio.run(all_at_once(base, pid, zips))
        wall = time.perf_counter() - t0
        time.sleep(5)
        after = rss_mib(pid)
    for i, (secs, alerts, errors) in enumerate(results):
        print(f"large-{i}.zip: {secs:.1f} s; said: {' | '.join(a[:120] for a in alerts)}; errors: {errors}")
    print(f"server RSS: {before:.0f} MiB before, {peak:.0f} MiB at its highest, {after:.0f} MiB 5 s after; "
          f"own-model folder on disk: {disk_before / MiB:.0f} MiB before, {disk_bytes(OWN_DIR) / MiB:.0f} MiB after "
          f"({len(list(OWN_DIR.iterdir()))} folders); {wall:.0f} s wall")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
