"""Train a model from a corpus that code in this repository generates.

    python -m core_model.training.train --task translate-en-fr --out runs/translate-en-fr

Teacher forcing, label smoothing, Adam with the paper's warm-up + inverse-square-root schedule (and a linear cool-down),
periodic validation, atomic checkpoints (an interrupted run never leaves a broken one) and
--resume. With --ship DIR the finished model is evaluated and written to DIR with its card.
Every --log-every steps, at each validation and at the last step, a row goes into the training
log (train_log.py), which each checkpoint keeps (and ships) as train_log.csv.
"""
from __future__ import annotations

import json
import math
import random
import sys
import time
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError
from safetensors.torch import load as load_safetensors
from safetensors.torch import save as save_safetensors
from tqdm import tqdm

from .. import checkpoints, cli
from ..config import ModelConfig
from .evaluate import alignment_error_rates, ship
from ..nn.model import Transformer
# Shared with evaluate.py; importable from here as before.
from .tasks import LABEL_SMOOTHING, TASKS, Task, corpus, loss_fn, make_batch, pad  # noqa: F401
from ..tokenizers import Tokenizer
from ..checkpoints.safe_load import Loaded
from .snapshots import (AER_PAIRS, COUNT as SNAPSHOT_COUNT, PROBES, SNAPSHOT_FILE, SnapshotWriter, probe_of,
                        read_snapshots, resumed, snapshot_steps)
from .train_log import LOG_FILE, LogWriter, read_log

STATE_JSON, STATE_TENSORS = "train_state.json", "optimizer.safetensors"


def encode_pairs(pairs, tokenizers, max_len: int) -> list[tuple[list[int] | None, list[int]]]:
    """Token ids of each pair; pairs too long for the model (with <s> or </s> added) are left out."""
    encoded = [(None if src is None else tokenizers["src"].encode(src), tokenizers["tgt"].encode(tgt))
               for src, tgt, _ in pairs]
    return [(s, t) for s, t in encoded if (s is None or len(s) <= max_len) and len(t) < max_len]


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


def cooldown_steps(steps: int, cooldown: float) -> int:
    """How many of a run's last steps the cool-down takes (learning_rate)."""
    return round(cooldown * steps)


def learning_rate(step: int, d_model: int, warmup: int, factor: float, steps: int = 0, cooldown: float = 0.0) -> float:
    """lr = factor · d_model^-0.5 · min(step^-0.5, step · warmup^-1.5)  (Vaswani et al., 5.3), then over the
    last `cooldown` fraction of a run of `steps` (d steps) scaled down linearly towards 0: 1/(d + 1) of it at the
    last step. Decaying to (near) zero at the end lets the last updates settle the weights (a "cool-down")."""
    step = max(step, 1)
    lr = factor * d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)
    decay = cooldown_steps(steps, cooldown)
    return lr * min(1.0, (steps - step + 1) / (decay + 1)) if decay else lr


def learning_rates(d_model: int, warmup: int, factor: float, steps: int, cooldown: float = 0.0) -> np.ndarray:
    """learning_rate for steps 1 … steps: the schedule a run of `steps` follows, [steps]."""
    return np.array([learning_rate(step, d_model, warmup, factor, steps, cooldown) for step in range(1, steps + 1)])


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
        raise checkpoints.CheckpointError(f"{path} cannot be resumed: {STATE_JSON} or {STATE_TENSORS} is missing "
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
    return {side: Tokenizer.train(texts[side], folder / f"{side}.model", size, model_type=task.tokenizer)
            for side, size in task.vocab.items()}


def starting_point(task: Task, splits: dict, out: Path, resume: bool, seed: int):
    """(model, tokenizers, optimizer, state): those of out/checkpoint when resuming from it, else new ones."""
    found = checkpoints.find(out / "checkpoint") if resume else None
    if resume and found is None:
        print(f"No checkpoint in {out} yet: starting from step 0.", file=sys.stderr)
    if found:
        loaded = checkpoints.load(found)
        model, tokenizers = loaded.model, loaded.tokenizers
    else:
        tokenizers = build_tokenizers(task, splits, out / "tokenizers")
        sizes = {f"{side}_vocab_size": tok.vocab_size for side, tok in tokenizers.items()}
        model = Transformer(ModelConfig(**task.config, **sizes))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    state = {"step": 0, "seconds": 0.0, "tokens": 0, "valid_loss": None, "seed": seed, "task": task.name,
             "log_pending": None}
    if found:
        state.update(restore_optimizer(found, optimizer))
        print(f"Resuming from {found} at step {state['step']}.", file=sys.stderr)
    return model, tokenizers, optimizer, state


def batches_from(step: int, examples, batch_size: int, seed: int, steps: int):
    """The batches of steps step+1 … steps, epoch after epoch: the ones an uninterrupted run draws there."""
    per_epoch = math.ceil(len(examples) / batch_size)
    while step < steps:
        epoch, offset = divmod(step, per_epoch)
        for examples_of_step in epoch_batches(examples, batch_size, seed, epoch)[offset:]:
            yield examples_of_step
            step += 1
            if step == steps:
                return


def optimizer_step(model: Transformer, optimizer: torch.optim.Optimizer, examples, task: Task, step: int, steps: int):
    """One update at the schedule's learning rate for `step`.

    Returns (loss, target tokens in the batch, the gradient's global L2 norm before the update).
    """
    for group in optimizer.param_groups:
        group["lr"] = learning_rate(step, model.cfg.d_model, task.warmup, task.lr_factor, steps, task.cooldown)
    loss, n_tokens = loss_fn(model, make_batch(examples, model.cfg), smoothing=LABEL_SMOOTHING)
    optimizer.zero_grad()
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    grad_norm = float(torch.nn.utils.get_total_norm(grads)) if grads else 0.0  # the gradients are left as they are
    optimizer.step()
    return loss, n_tokens, grad_norm


def resumed_log(out: Path, state: dict) -> LogWriter:
    """The run's log: that of the checkpoint resumed from (without rows after its step), or a new one."""
    found = checkpoints.find(out / "checkpoint") if state["step"] else None
    return LogWriter.resume(read_log(found) if found else None, state["step"], state["log_pending"])


def resumed_snapshots(out: Path, state: dict, splits: dict, tokenizers: dict, model: Transformer,
                      steps: int, count: int) -> SnapshotWriter:
    """The run's attention snapshots (snapshots.py): those of the checkpoint resumed from, or new ones starting
    with the untrained model's, at about `count` steps besides step 0; the AER needs pairs with a gold alignment (the translation and reversal tasks)."""
    cfg = model.cfg
    probes = [probe_of(tokenizers, cfg.bos_id, src, tgt) for src, tgt, _ in splits["valid"][:PROBES]]
    pairs = [pair for _, _, pair in splits["valid"][:AER_PAIRS] if pair is not None]

    def aer(m):
        return alignment_error_rates(Loaded(m, cfg, tokenizers, "", out), pairs)

    writer = SnapshotWriter(probes, snapshot_steps(steps, count), aer if pairs and cfg.has_encoder else None)
    found = checkpoints.find(out / "checkpoint") if state["step"] else None
    if found:
        return resumed(writer, read_snapshots(found), state["step"])
    writer.add(0, model)
    return writer


def save_run(out: Path, model: Transformer, tokenizers: dict, optimizer: torch.optim.Optimizer, state: dict,
             log: LogWriter, snaps: SnapshotWriter) -> None:
    """Save the checkpoint with the optimizer state, the counters, the log and the snapshots, all of one step."""
    state["log_pending"] = log.pending  # the sums of the steps since the last row, for an exact resume
    card = f"Training checkpoint of {state['task']}, step {state['step']}.\n"
    extra = dict(optimizer_files(optimizer, state), **{LOG_FILE: log.to_bytes(), SNAPSHOT_FILE: snaps.to_bytes()})
    checkpoints.save(out / "checkpoint", model, tokenizers, card, extra)


class Progress:
    """The progress bar, showing the loss and the target tokens per second every 20 steps."""

    def __init__(self, steps: int, start: int, enabled: bool):
        self.bar = tqdm(total=steps, initial=start, disable=not enabled, unit="step", file=sys.stderr)
        self.tokens, self.since = 0, time.perf_counter()

    def step(self, step: int, loss: torch.Tensor, n_tokens: int) -> None:
        self.tokens += n_tokens
        if step % 20 == 0:
            rate = self.tokens / (time.perf_counter() - self.since)
            self.bar.set_postfix(loss=f"{loss.item():.3f}", tok_s=f"{rate:,.0f}")
            self.tokens, self.since = 0, time.perf_counter()
        self.bar.update(1)


def train(task: Task, out: Path, seed: int = 0, steps: int | None = None, resume: bool = False,
          n_train: int | None = None, validate_every: int = 500, save_every: int = 500,
          progress: bool = True, log_every: int = 50, snapshots: int = SNAPSHOT_COUNT) -> dict:
    """Train (or resume) into out/checkpoint, its log in out/checkpoint/train_log.csv; return the run's summary.
    `snapshots`: about how many steps keep the probes' attention patterns (snapshots.py), each a traced run of
    the probes and the AER pairs, most of a short run's time."""
    steps = steps or task.steps
    torch.manual_seed(seed)
    splits = corpus(task, seed, n_train)
    model, tokenizers, optimizer, state = starting_point(task, splits, out, resume, seed)
    log, state["log_every"] = resumed_log(out, state), log_every
    snaps = resumed_snapshots(out, state, splits, tokenizers, model, steps, snapshots)
    train_set = encode_pairs(splits["train"], tokenizers, model.cfg.max_len)
    valid_set = encode_pairs(splits["valid"], tokenizers, model.cfg.max_len)
    model.train()
    shown = Progress(steps, state["step"], progress)
    started = time.perf_counter() - state["seconds"]
    for examples in batches_from(state["step"], train_set, task.batch_size, seed, steps):
        state["step"] += 1
        loss, n_tokens, grad_norm = optimizer_step(model, optimizer, examples, task, state["step"], steps)
        state["tokens"] += n_tokens
        log.add_step(loss.item(), grad_norm)
        shown.step(state["step"], loss, n_tokens)
        if snaps.wants(state["step"]):
            snaps.add(state["step"], model)
        last = state["step"] == steps
        validated = state["step"] % validate_every == 0 or last
        if validated:
            state["valid_loss"] = validation_loss(model, valid_set, 128)
            shown.bar.write(f"step {state['step']}: valid loss {state['valid_loss']:.4f}")
        if validated or state["step"] % log_every == 0:
            valid_loss = state["valid_loss"] if validated else None
            log.write_row(state["step"], optimizer.param_groups[0]["lr"], state["tokens"], valid_loss)
        if state["step"] % save_every == 0 or last:
            state["seconds"] = time.perf_counter() - started
            save_run(out, model, tokenizers, optimizer, state, log, snaps)
    shown.bar.close()
    state["seconds"] = time.perf_counter() - started
    model.eval()
    return state


def interrupted_message(ckpt: Path) -> str:
    """What an interrupted run leaves behind, and how to go on."""
    found = checkpoints.find(ckpt)
    if found is None:
        return "Interrupted before the first checkpoint: nothing was saved."
    step = json.loads((found / STATE_JSON).read_text())["step"]
    return (f"Interrupted. The last checkpoint, at step {step}, is in {found}; "
            "run the same command with --resume to continue from it.")


def main(argv=None) -> int:
    parser = cli.Parser(prog="python -m core_model.training.train", description=__doc__.split("\n")[0])
    parser.add_argument("--task", choices=sorted(TASKS), required=True)
    parser.add_argument("--out", type=cli.path, required=True, help="run folder (checkpoint and tokenizers)")
    parser.add_argument("--seed", type=cli.whole(0, cli.MAX_SEED), default=0)
    parser.add_argument("--steps", type=cli.whole(1), help="optimizer steps (default: the task's own)")
    parser.add_argument("--n-train", type=cli.whole(1), help="training pairs (default: the task's own)")
    parser.add_argument("--resume", action="store_true", help="continue from OUT/checkpoint")
    parser.add_argument("--ship", type=cli.path, help="evaluate and write the finished model here, with its card")
    parser.add_argument("--validate-every", type=cli.whole(1), default=500)
    parser.add_argument("--save-every", type=cli.whole(1), default=500)
    parser.add_argument("--log-every", type=cli.whole(1), default=50,
                        help="steps between the rows of the training log, train_log.csv (default: 50)")
    parser.add_argument("--threads", type=cli.whole(1), help="CPU threads for torch (default: torch's own choice)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    task = TASKS[args.task]
    try:
        state = train(task, args.out, args.seed, args.steps, args.resume, args.n_train,
                      args.validate_every, args.save_every, log_every=args.log_every)
    except KeyboardInterrupt:
        print(f"\n{interrupted_message(args.out / 'checkpoint')}", file=sys.stderr)
        return 130  # the shell's code for "ended by Ctrl-C"
    except cli.BAD_INPUT as e:  # an unusable --out, or a damaged checkpoint to resume from
        return cli.fail(e)
    print(json.dumps({k: state[k] for k in ("task", "step", "seconds", "tokens", "valid_loss")}))
    if args.ship:
        command = "python -m core_model.training.train " + " ".join(argv if argv is not None else sys.argv[1:])
        try:
            ship(args.out / "checkpoint", args.ship, task, state, command)
        except cli.BAD_INPUT as e:
            return cli.fail(e)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
