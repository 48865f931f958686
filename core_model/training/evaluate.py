"""Evaluate a checkpoint on its task's held-out split and (with --card) write the metrics into its card.

    python -m core_model.training.evaluate assets/models/translate-en-fr --task translate-en-fr

Translation: exact match, BLEU and chrF (sacrebleu), and per decoder layer the alignment error
rate of head-averaged cross-attention against the gold word alignment. Language model: perplexity.
"""
from __future__ import annotations

import datetime
import json
import math
import os
import platform
import sys
from pathlib import Path

import numpy as np
import sacrebleu
import torch

from .. import checkpoints, cli
from .data import VOCABULARY, reverse
from ..decoding import sample
from ..nn.model import Transformer
from .tasks import TASKS, held_out, loss_fn, make_batch
from ..trace import run_with_trace
from .snapshots import SNAPSHOT_FILE, read_snapshots
from .train_log import LOG_FILE, read_log


@torch.no_grad()
def greedy_batch(model: Transformer, sources: list[list[int]], max_len: int) -> list[list[int]]:
    """Greedy translations of many sources at once, with a key/value cache and no recording."""
    cfg = model.cfg
    width = max(len(s) for s in sources)
    src = torch.tensor([s + [cfg.pad_id] * (width - len(s)) for s in sources])  # [b, s]
    memory, memory_mask = model.encode(src)
    cache = model.new_cache()
    step_in = torch.full((len(sources), 1), cfg.bos_id)  # [b, 1]
    done = torch.zeros(len(sources), dtype=torch.bool)
    outputs: list[list[int]] = [[] for _ in sources]
    for _ in range(min(max_len, cfg.max_len - 1)):
        logits = model.project(model.decode(step_in, memory, memory_mask, cache=cache))[:, -1]  # [b, vocab]
        step_in = logits.argmax(-1, keepdim=True)  # [b, 1]
        for i in torch.nonzero(~done).flatten().tolist():
            token = int(step_in[i, 0])
            if token == cfg.eos_id:
                done[i] = True
            else:
                outputs[i].append(token)
        if done.all():
            break
    return outputs


def translate_all(loaded, sources: list[str], batch_size: int = 64) -> list[str]:
    src_tok, tgt_tok = loaded.tokenizers["src"], loaded.tokenizers["tgt"]
    out = []
    for i in range(0, len(sources), batch_size):
        ids = [src_tok.encode(s) for s in sources[i:i + batch_size]]
        out += [tgt_tok.decode(o) for o in greedy_batch(loaded.model, ids, max(map(len, ids)) * 3 + 10)]
    return out


def word_attention(pattern: np.ndarray, src_words: list[int], tgt_words: list[int]) -> np.ndarray:
    """Piece-level attention [tgt pieces, src pieces] → word level [tgt words, src words].

    A source word gets the sum of its pieces' weights; a target word the mean of its pieces' rows.
    """
    src_words, tgt_words = np.asarray(src_words), np.asarray(tgt_words)
    n_src, n_tgt = src_words.max() + 1, tgt_words.max() + 1
    by_src = np.stack([pattern[:, src_words == w].sum(1) for w in range(n_src)], axis=1)  # [t, S]
    return np.stack([by_src[tgt_words == w].mean(0) for w in range(n_tgt)])  # [T, S]


def alignment_error_rates(loaded, pairs) -> list[float]:
    """Per decoder layer: AER = 1 - 2|A∩G| / (|A| + |G|), A = argmax source word of each target word.

    The row used for target token i is the query that predicts it (decoder input <s> y_<i).
    """
    src_tok, tgt_tok, cfg = loaded.tokenizers["src"], loaded.tokenizers["tgt"], loaded.config
    hits = np.zeros(cfg.n_decoder_layers)
    predicted = gold = 0
    for pair in pairs:
        src, tgt = src_tok.encode(pair.src), tgt_tok.encode(pair.tgt)
        _, trace = run_with_trace(loaded.model, src, [cfg.bos_id] + tgt, names="decoder.layers.*.cross_attn.pattern",
                                  stop_after=f"decoder.layers.{cfg.n_decoder_layers - 1}.cross_attn.pattern")
        gold_links = set(pair.alignment)
        for layer in range(cfg.n_decoder_layers):
            pattern = trace.attn("decoder", layer, "cross_attn").pattern[0].mean(0)[:len(tgt)]  # [t, s]
            words = word_attention(pattern, src_tok.word_ids(src), tgt_tok.word_ids(tgt))
            links = {(int(s), t) for t, s in enumerate(words.argmax(1))}
            hits[layer] += len(links & gold_links)
        predicted += len(pair.tgt.split())
        gold += len(gold_links)
    return [float(1 - 2 * h / (predicted + gold)) for h in hits]


def evaluate_translation(loaded, pairs, aer_pairs: int = 300) -> dict:
    """Exact match counts a hypothesis equal to any right translation of its source (Pair.right: a noun's second
    French word is right too); BLEU and chrF score each against that one where it is one, else the pair's tgt."""
    hypotheses = translate_all(loaded, [p.src for p in pairs])
    right = [h in p.right for p, h in zip(pairs, hypotheses)]
    references = [h if ok else p.tgt for p, h, ok in zip(pairs, hypotheses, right)]
    return {
        "pairs": len(pairs),
        "exact_match": sum(right) / len(pairs),
        "bleu": sacrebleu.corpus_bleu(hypotheses, [references]).score,
        "chrf": sacrebleu.corpus_chrf(hypotheses, [references]).score,
        "aer_by_layer": alignment_error_rates(loaded, pairs[:aer_pairs]),
        "errors": [(p.src, h, p.tgt) for p, h, ok in zip(pairs, hypotheses, right) if not ok][:5],
    }


def evaluate_lm(loaded, sentences: list[str]) -> dict:
    tok, cfg = loaded.tokenizers["tgt"], loaded.config
    total = count = 0.0
    with torch.no_grad():
        for i in range(0, len(sentences), 128):
            examples = [(None, tok.encode(s)) for s in sentences[i:i + 128]]
            loss, n = loss_fn(loaded.model, make_batch(examples, cfg), 0.0)
            total, count = total + loss.item() * n, count + n
    return {"sentences": len(sentences), "perplexity": math.exp(total / count)}


def evaluate(path: Path, task_name: str, seed: int = 0) -> dict:
    loaded = checkpoints.load(path)
    task = TASKS[task_name]
    test = list(held_out(task.name, seed)["test"])
    if loaded.config.architecture == "decoder":
        return evaluate_lm(loaded, [t for _, t, _ in test])
    return evaluate_translation(loaded, [p for _, _, p in test])


LIMITS = {
    "translate-en-fr": "It knows only the words listed below and the sentence shapes of the toy grammar in "
                       "core_model/training/data/en_fr.py (subject, verb in the present or compound past, optional "
                       "negation, object or object pronoun, optional place and adverb). Anything else is "
                       "split into pieces it never saw and comes out as nonsense French.",
    "lm-en": "It has read only the English side of the toy grammar: it continues sentences of that "
             "grammar and nothing else.",
    "reverse": "It reverses sequences of 3 to 12 words from its small vocabulary; longer inputs or other "
               "words are outside what it was trained on.",
}


def known_words(task_name: str) -> str:
    """The card's word list: English → French by part of speech, or the reversal vocabulary."""
    if task_name == "reverse":
        return ", ".join(reverse.WORDS)
    if task_name == "lm-en":
        return "\n".join(f"- {pos}: " + ", ".join(en for en, _ in pairs) for pos, pairs in VOCABULARY.items())
    return "\n".join(f"- {pos}: " + ", ".join(f"{en} → {fr}" for en, fr in pairs) for pos, pairs in VOCABULARY.items())


def cpu_model() -> str:
    """The processor's name from /proc/cpuinfo, or the machine type where there is none."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def render_card(task, cfg, metrics: dict, state: dict, command: str, samples: list[str],
                log_every: int | None = None) -> str:
    """The model card: data, config, how it was trained and how long it took, metrics, limits, words.

    With `log_every`, a line says what the shipped train_log.csv holds.
    """
    shown = {k: v for k, v in metrics.items() if k != "errors"}
    parts = [
        f"# {task.name}\n",
        f"Architecture: {cfg.architecture}, d_model {cfg.d_model}, {cfg.n_heads} heads, "
        f"{cfg.n_encoder_layers} encoder / {cfg.n_decoder_layers} decoder layers, {cfg.positional} positions, "
        f"{cfg.norm_placement}-norm.\n",
        "## Data\n",
        f"Generated by `core_model/training/data` with seed {state['seed']} (no downloads): {task.n_train} training "
        "pairs; validation and test splits hold word combinations never seen in training.\n",
        "## Training\n",
        f"    {command}\n",
        f"{state['step']} steps, {state['tokens']:,} target tokens, {state['seconds']:.0f} s measured on "
        f"{os.cpu_count()} CPU cores ({cpu_model()}), torch {torch.__version__}, "
        f"{datetime.date.today().isoformat()}. Final validation loss {state['valid_loss']:.4f}.\n",
    ]
    if log_every:
        parts.append(f"`{LOG_FILE}` holds the training loss, validation loss, learning rate and gradient norm "
                     f"every {log_every} steps (and at each validation).\n")
    parts += [
        "## Metrics (test split)\n",
        "These are what `python -m core_model.training.evaluate` prints for this folder:\n",
        "```json\n" + json.dumps(shown, indent=2) + "\n```\n",
    ]
    if samples:
        parts += ["## Seeded samples\n", "\n".join(f"- seed {i}: {s}" for i, s in enumerate(samples)) + "\n"]
    parts += ["## Config\n", "```json\n" + json.dumps(cfg.to_dict(), indent=2) + "\n```\n",
              "## Known limits\n", LIMITS[task.source] + "\n",
              "## Words it knows\n", known_words(task.source) + "\n"]
    return "\n".join(parts)


def card_metrics(card: str) -> dict:
    """The metrics block of a card written by render_card."""
    block = card.split("## Metrics (test split)", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    return json.loads(block)


def lm_samples(loaded, n: int = 5) -> list[str]:
    tok = loaded.tokenizers["tgt"]
    return [tok.decode(list(sample(loaded.model, [], temperature=0.8, seed=seed, max_len=40).ids)) for seed in range(n)]


def ship(run_checkpoint: Path, dest: Path, task, state: dict, command: str) -> dict:
    """Evaluate a finished run and write it to `dest` with its card and training log (no optimizer state)."""
    metrics = evaluate(run_checkpoint, task.name, state["seed"])
    loaded = checkpoints.load(run_checkpoint)
    samples = lm_samples(loaded) if loaded.config.architecture == "decoder" else []
    log = read_log(loaded.path)  # each checked before it is shipped; None for a run that kept none
    kept = {LOG_FILE: log, SNAPSHOT_FILE: read_snapshots(loaded.path)}
    extra = {name: (loaded.path / name).read_bytes() for name, value in kept.items() if value is not None}
    log_every = state.get("log_every", 50) if log is not None else None
    card = render_card(task, loaded.config, metrics, state, command, samples, log_every)
    checkpoints.save(dest, loaded.model, loaded.tokenizers, card, extra)
    print(json.dumps({k: v for k, v in metrics.items() if k != "errors"}, indent=2))
    return metrics


def main(argv=None) -> int:
    parser = cli.Parser(prog="python -m core_model.training.evaluate", description=__doc__.split("\n")[0])
    parser.add_argument("checkpoint", type=cli.path, help="a checkpoint folder")
    parser.add_argument("--task", choices=sorted(TASKS), required=True)
    parser.add_argument("--seed", type=cli.whole(0, cli.MAX_SEED), default=0,
                        help="the corpus seed the model was trained with")
    args = parser.parse_args(argv)
    try:
        metrics = evaluate(args.checkpoint, args.task, args.seed)
    except cli.BAD_INPUT as e:
        return cli.fail(e)
    print(json.dumps({k: v for k, v in metrics.items() if k != "errors"}, indent=2))
    for src, got, want in metrics.get("errors", []):
        print(f"miss: {src!r} -> {got!r} (expected {want!r})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
