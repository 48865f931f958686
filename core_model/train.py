"""Train a model from a corpus that code in this repository generates.

    python -m core_model.train --task translate-en-fr --out runs/translate-en-fr

Teacher forcing, label smoothing, Adam with the paper's warm-up + inverse-square-root schedule,
periodic validation, atomic checkpoints (an interrupted run never leaves a broken one) and
--resume. With --ship DIR the finished model is evaluated and written to DIR with its card.
"""
from __future__ import annotations

import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from tqdm import tqdm

from . import checkpoint, cli
from .config import ModelConfig
from .model import Transformer
from .tokenizer import Tokenizer

STATE_JSON, STATE_TENSORS = "train_state.json", "optimizer.safetensors"


@dataclass(frozen=True)
class Task:
    """What to train: a corpus, tokenizer sizes, a model shape and a training budget."""
    name: str
    config: dict
    vocab: dict  # side -> tokenizer vocabulary size
    steps: int
    batch_size: int = 64
    warmup: int = 400
    lr_factor: float = 1.0
    n_train: int = 40000
    extra: dict = field(default_factory=dict)


TASKS = {
    "translate-en-fr": Task(
        "translate-en-fr",
        dict(architecture="encoder-decoder", d_model=128, n_heads=4, n_encoder_layers=3,
             n_decoder_layers=3, d_ff=256, dropout=0.0, max_len=64),
        vocab={"src": 900, "tgt": 1300}, steps=4000, batch_size=128, warmup=400, n_train=150000),
    "lm-en": Task(
        "lm-en",
        dict(architecture="decoder", d_model=128, n_heads=4, n_encoder_layers=0, n_decoder_layers=3,
             d_ff=256, dropout=0.1, max_len=512, norm_placement="pre", positional="alibi",
             tie_embeddings=True),
        vocab={"tgt": 800}, steps=3000, warmup=400),
    "reverse": Task(
        "reverse",
        dict(architecture="encoder-decoder", d_model=64, n_heads=2, n_encoder_layers=2,
             n_decoder_layers=2, d_ff=128, dropout=0.0, max_len=48),
        vocab={"src": 400, "tgt": 400}, steps=6000, warmup=200, n_train=20000),
}


def corpus(task: Task, seed: int, n_train: int | None = None) -> dict:
    """The task's splits as lists of (src text or None, tgt text, pair or None)."""
    from .data import en_fr, reverse

    n_train = n_train or task.n_train
    if task.name == "lm-en":
        sentences = en_fr.english_sentences(seed, n_train + 1000)
        split = {"train": sentences[:n_train], "valid": sentences[n_train:n_train + 500],
                 "test": sentences[n_train + 500:]}
        return {k: [(None, s, None) for s in v] for k, v in split.items()}
    make = en_fr.make_corpus if task.name == "translate-en-fr" else reverse.make_reverse_corpus
    splits = make(seed=seed, n_train=n_train)
    return {k: [(p.src, p.tgt, p) for p in v] for k, v in splits.items()}


def encode_pairs(pairs, tokenizers, max_len: int) -> list[tuple[list[int] | None, list[int]]]:
    """Token ids of each pair; pairs too long for the model (with <s> or </s> added) are left out."""
    encoded = [(None if src is None else tokenizers["src"].encode(src), tokenizers["tgt"].encode(tgt))
               for src, tgt, _ in pairs]
    return [(s, t) for s, t in encoded if (s is None or len(s) <= max_len) and len(t) < max_len]


def pad(rows: list[list[int]], pad_id: int) -> torch.Tensor:
    width = max(len(r) for r in rows)
    return torch.tensor([r + [pad_id] * (width - len(r)) for r in rows], dtype=torch.long)


def make_batch(examples, cfg: ModelConfig) -> dict:
    """Teacher forcing: the decoder reads <s> y and must predict y </s>."""
    batch = {"tgt_in": pad([[cfg.bos_id] + t for _, t in examples], cfg.pad_id),
             "tgt_out": pad([t + [cfg.eos_id] for _, t in examples], cfg.pad_id)}
    batch["src"] = pad([s for s, _ in examples], cfg.pad_id) if cfg.has_encoder else None
    return batch


def epoch_batches(examples, batch_size: int, seed: int, epoch: int) -> list[list]:
    """Shuffled batches of similar lengths (less padding), the same for the same seed and epoch."""
    rng = random.Random(seed * 100003 + epoch)
    order = list(range(len(examples)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for i in range(0, len(order), chunk):
        group = sorted(order[i:i + chunk], key=lambda j: len(examples[j][1]))
        batches += [[examples[j] for j in group[k:k + batch_size]] for k in range(0, len(group), batch_size)]
    rng.shuffle(batches)
    return batches


def learning_rate(step: int, d_model: int, warmup: int, factor: float) -> float:
    """lr = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)  (Vaswani et al., 5.3)."""
    step = max(step, 1)
    return factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


def loss_fn(model: Transformer, batch: dict, smoothing: float) -> tuple[torch.Tensor, int]:
    logits = model(batch["src"], batch["tgt_in"])  # [b, t, vocab]
    target = batch["tgt_out"]
    loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(),
                                             ignore_index=model.cfg.pad_id, label_smoothing=smoothing)
    return loss, int((target != model.cfg.pad_id).sum())


def optimizer_files(optimizer: torch.optim.Optimizer, state: dict) -> dict[str, bytes]:
    """The optimizer's moments as safetensors and the run's counters as JSON: no pickle."""
    opt = optimizer.state_dict()
    tensors = {f"{i}.{k}": v.contiguous() for i, s in opt["state"].items() for k, v in s.items()}
    tensors["rng"] = torch.get_rng_state()
    meta = dict(state, param_groups=opt["param_groups"])
    return {STATE_TENSORS: save_safetensors(tensors), STATE_JSON: json.dumps(meta, indent=2).encode()}


def restore_optimizer(path: Path, optimizer: torch.optim.Optimizer) -> dict:
    """Put back the optimizer's moments, the random state and the run's counters; a damaged file is named."""
    try:
        meta = json.loads((path / STATE_JSON).read_text())
        tensors = load_safetensors((path / STATE_TENSORS).read_bytes())
        torch.set_rng_state(tensors.pop("rng"))
        state: dict = {}
        for key, value in tensors.items():
            index, name = key.split(".", 1)
            state.setdefault(int(index), {})[name] = value
        optimizer.load_state_dict({"state": state, "param_groups": meta.pop("param_groups")})
    except (OSError, ValueError, KeyError, RuntimeError, SafetensorError) as e:
        raise checkpoint.CheckpointError(f"{path} cannot be resumed: {STATE_JSON} or {STATE_TENSORS} is missing "
                                         f"or damaged ({e}).") from None
    return meta


@torch.no_grad()
def validation_loss(model: Transformer, examples, batch_size: int) -> float:
    """Mean cross-entropy per target token, without smoothing (exp of it is the perplexity)."""
    model.eval()
    total, count = 0.0, 0
    for i in range(0, len(examples), batch_size):
        loss, n = loss_fn(model, make_batch(examples[i:i + batch_size], model.cfg), 0.0)
        total, count = total + loss.item() * n, count + n
    model.train()
    return total / count


def build_tokenizers(task: Task, splits: dict, folder: Path) -> dict:
    texts = {"src": [s for s, _, _ in splits["train"]], "tgt": [t for _, t, _ in splits["train"]]}
    folder.mkdir(parents=True, exist_ok=True)
    return {side: Tokenizer.train(texts[side], folder / f"{side}.model", size)
            for side, size in task.vocab.items()}


def train(task: Task, out: Path, seed: int = 0, steps: int | None = None, resume: bool = False,
          n_train: int | None = None, validate_every: int = 500, save_every: int = 500,
          progress: bool = True) -> dict:
    """Train (or resume) into out/checkpoint; return the run's summary."""
    steps = steps or task.steps
    torch.manual_seed(seed)
    splits = corpus(task, seed, n_train)
    ckpt = out / "checkpoint"
    found = checkpoint.find(ckpt) if resume else None
    if resume and found is None:
        print(f"No checkpoint in {out} yet: starting from step 0.", file=sys.stderr)
    if found:
        loaded = checkpoint.load(found)
        model, tokenizers = loaded.model, loaded.tokenizers
    else:
        tokenizers = build_tokenizers(task, splits, out / "tokenizers")
        sizes = {f"{side}_vocab_size": tok.vocab_size for side, tok in tokenizers.items()}
        model = Transformer(ModelConfig(**task.config, **sizes))
    train_set = encode_pairs(splits["train"], tokenizers, model.cfg.max_len)
    valid_set = encode_pairs(splits["valid"], tokenizers, model.cfg.max_len)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    state = {"step": 0, "seconds": 0.0, "tokens": 0, "valid_loss": None, "seed": seed, "task": task.name}
    if found:
        state.update(restore_optimizer(found, optimizer))
        print(f"Resuming from {found} at step {state['step']}.", file=sys.stderr)
    model.train()
    bar = tqdm(total=steps, initial=state["step"], disable=not progress, unit="step", file=sys.stderr)
    started, tokens_in_window = time.perf_counter() - state["seconds"], 0
    window_start = time.perf_counter()
    while state["step"] < steps:
        epoch, offset = divmod(state["step"], math.ceil(len(train_set) / task.batch_size))
        for examples in epoch_batches(train_set, task.batch_size, seed, epoch)[offset:]:
            state["step"] += 1
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(state["step"], model.cfg.d_model, task.warmup, task.lr_factor)
            loss, n_tokens = loss_fn(model, make_batch(examples, model.cfg), smoothing=0.1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            state["tokens"] += n_tokens
            tokens_in_window += n_tokens
            if state["step"] % 20 == 0:
                rate = tokens_in_window / (time.perf_counter() - window_start)
                bar.set_postfix(loss=f"{loss.item():.3f}", tok_s=f"{rate:,.0f}")
                tokens_in_window, window_start = 0, time.perf_counter()
            bar.update(1)
            last = state["step"] == steps
            if state["step"] % validate_every == 0 or last:
                state["valid_loss"] = validation_loss(model, valid_set, 128)
                bar.write(f"step {state['step']}: valid loss {state['valid_loss']:.4f}")
            if state["step"] % save_every == 0 or last:
                state["seconds"] = time.perf_counter() - started
                extra = optimizer_files(optimizer, state)
                checkpoint.save(ckpt, model, tokenizers, f"Training checkpoint of {task.name}, step {state['step']}.\n", extra)
            if last:
                break
    bar.close()
    state["seconds"] = time.perf_counter() - started
    model.eval()
    return state


def interrupted_message(ckpt: Path) -> str:
    """What an interrupted run leaves behind, and how to go on."""
    found = checkpoint.find(ckpt)
    if found is None:
        return "Interrupted before the first checkpoint: nothing was saved."
    step = json.loads((found / STATE_JSON).read_text())["step"]
    return (f"Interrupted. The last checkpoint, at step {step}, is in {found}; "
            "run the same command with --resume to continue from it.")


def main(argv=None) -> int:
    parser = cli.Parser(prog="python -m core_model.train", description=__doc__.split("\n")[0])
    parser.add_argument("--task", choices=sorted(TASKS), required=True)
    parser.add_argument("--out", type=cli.path, required=True, help="run folder (checkpoint and tokenizers)")
    parser.add_argument("--seed", type=cli.whole(0, cli.MAX_SEED), default=0)
    parser.add_argument("--steps", type=cli.whole(1), help="optimizer steps (default: the task's own)")
    parser.add_argument("--n-train", type=cli.whole(1), help="training pairs (default: the task's own)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint")
    parser.add_argument("--ship", type=cli.path, help="evaluate and write the finished model here, with its card")
    parser.add_argument("--validate-every", type=cli.whole(1), default=500)
    parser.add_argument("--save-every", type=cli.whole(1), default=500)
    parser.add_argument("--threads", type=cli.whole(1), help="CPU threads for torch (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    task = TASKS[args.task]
    try:
        state = train(task, args.out, args.seed, args.steps, args.resume, args.n_train,
                      args.validate_every, args.save_every)
    except KeyboardInterrupt:
        print(f"\n{interrupted_message(args.out / 'checkpoint')}", file=sys.stderr)
        return 130  # the shell's code for "ended by Ctrl-C"
    except cli.BAD_INPUT as e:  # an unusable --out, or a damaged checkpoint to resume from
        return cli.fail(e)
    print(json.dumps({k: state[k] for k in ("task", "step", "seconds", "tokens", "valid_loss")}))
    if args.ship:
        from .evaluate import ship
        command = "python -m core_model.train " + " ".join(argv if argv is not None else sys.argv[1:])
        try:
            ship(args.out / "checkpoint", args.ship, task, state, command)
        except cli.BAD_INPUT as e:
            return cli.fail(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
