"""The three architectures, built from the same parts: encoder-decoder, encoder, decoder."""
from __future__ import annotations

import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from ..config import ModelConfig
from ..trace.hook_points import on_demand, record, record_derived, set_paths
from ..trace.names import MODEL_LEAVES
from .layers import Embeddings, MaskedLMTransform, Stack
from .masks import causal_mask, combine, padding_mask


class KVCache:
    """Keys and values of earlier decoding steps, one dict per decoder layer; held by the caller."""

    def __init__(self, n_layers: int):
        self.layers: list[dict] = [{} for _ in range(n_layers)]
        self.length = 0  # how many target positions are cached

    def reorder(self, index: torch.Tensor) -> None:
        """Keep batch rows `index` (beam search follows the surviving beams)."""
        for layer in self.layers:
            for block in layer.values():
                rows = index.to(block["k"].device)  # a caller's index on the host, the keys where the model runs
                block["k"], block["v"] = block["k"][rows], block["v"][rows]


class NoRandomInit(TorchFunctionMode):
    """Modules built under it draw no random numbers: their weights are left as allocated (torch.empty), untouched,
    so they take no resident memory until the real weights replace them (Transformer.empty). A mode holds only in the
    thread that entered it: a model another session builds meanwhile is initialised as usual."""
    SKIPPED = frozenset({torch.Tensor.uniform_, torch.Tensor.normal_, nn.init.uniform_, nn.init.normal_,
                         nn.init.kaiming_uniform_})

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in self.SKIPPED:  # the tensor itself: nn.init's functions pass it by name (tensor=)
            return args[0] if args else kwargs["tensor"]
        return func(*args, **(kwargs or {}))


class Transformer(nn.Module):
    LEAVES = MODEL_LEAVES

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        if cfg.has_encoder:
            self.src_embed = Embeddings(cfg, cfg.src_vocab_size)
            self.encoder = Stack(cfg, cfg.n_encoder_layers, cross=False)
            if cfg.mlm_head:  # an encoder's output layer over its vocabulary (ModelConfig.mlm_head)
                self.mlm = MaskedLMTransform(cfg)
                self.generator = nn.Linear(cfg.d_embed or cfg.d_model, cfg.src_vocab_size)
        if cfg.has_decoder:
            self.tgt_embed = Embeddings(cfg, cfg.tgt_vocab_size)
            self.decoder = Stack(cfg, cfg.n_decoder_layers, cross=cfg.has_encoder, causal=True, local=cfg.window_layers)
            self.generator = nn.Linear(cfg.d_model, cfg.tgt_vocab_size, bias=cfg.output_bias)
        self.reset_parameters()
        self.tie()
        set_paths(self)

    def tie(self) -> None:
        """The output layer shares the token embedding's matrix, when the config ties them (and a masked-LM head's)."""
        if self.cfg.has_decoder and self.cfg.tie_embeddings:
            self.generator.weight = self.tgt_embed.tok.weight
        if self.cfg.mlm_head:
            self.generator.weight = self.src_embed.tok.weight

    @classmethod
    def empty(cls, cfg: ModelConfig) -> Transformer:
        """The model's structure without weights, for `fill`: no random numbers drawn (GPT-2 small: 2.2 s of a 3.5 s
        load were its random initialisation), and no memory touched. Not on the meta device: its first initialiser
        or arange imports torch._dynamo, 1.9 s of a cold start."""
        with NoRandomInit():
            return cls(cfg)

    def fill(self, weights: dict[str, torch.Tensor], strict: bool = True) -> Transformer:
        """An `empty` model given `weights` as its parameters themselves (load_state_dict's assign: no second copy of
        the weights in memory) and the output layer tied again; a parameter left without weights is a ValueError."""
        unfilled = dict(self.named_parameters())
        self.load_state_dict({name: w.contiguous() for name, w in weights.items()}, strict=strict, assign=True)
        self.tie()
        missing = [name for name, p in self.named_parameters() if p is unfilled.get(name)]
        if missing:
            raise ValueError(f"no weights for {', '.join(missing)}.")
        return self

    def reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                nn.init.xavier_uniform_(p)

    def encode(self, src: torch.Tensor, pad_mask: bool = True, token_types=None):
        """src ids [b, s] → (memory [b, s, d_model], key mask [b, 1, 1, s] or None)."""
        mask = padding_mask(src, self.cfg.pad_id) if pad_mask else None
        memory = self.encoder(self.src_embed(src, token_types=token_types), mask)
        return memory, mask

    def decode(self, tgt: torch.Tensor, memory=None, memory_mask=None, pad_mask: bool = True,
               cache: KVCache | None = None) -> torch.Tensor:
        """tgt ids [b, t] (only the new ones when cached) → decoder output [b, t, d_model]."""
        start = cache.length if cache is not None else 0
        mask = causal_mask(tgt.shape[1], start + tgt.shape[1], offset=start, device=tgt.device)  # [1, 1, t, start + t]
        # the local layers' mask (ModelConfig.window): the causal mask, cut to the last `window` keys
        local = causal_mask(tgt.shape[1], start + tgt.shape[1], start, tgt.device, self.cfg.window) if self.cfg.window \
            else None
        if pad_mask and cache is None and self.cfg.mask_padding:  # see ModelConfig.mask_padding
            keys = padding_mask(tgt, self.cfg.pad_id)  # [b, 1, 1, t]
            if self.cfg.bos_id == self.cfg.pad_id:  # Marian starts from <pad>: position 0 is its start, not padding
                keys = keys.clone()
                keys[..., 0] = True
            mask, local = combine(mask, keys), None if local is None else combine(local, keys)
        x = self.tgt_embed(tgt, start=start)
        out = self.decoder(x, mask, memory, memory_mask, start, None if cache is None else cache.layers, local)
        if cache is not None:
            cache.length += tgt.shape[1]
        return out

    def project(self, hidden: torch.Tensor) -> torch.Tensor:
        """Decoder output [b, t, d_model] → next-token logits [b, t, vocab] (a masked-LM head's transformed encoder
        output: its logits at every position); records probabilities."""
        if on_demand():  # at real size [b, t, vocab] is large (Qwen2 at 2,048 tokens: 1.2 GiB, 2.3 s of products):
            record_derived(self, "logits", ("apply", (), self.output_layer, hidden.detach()))  # made when read
            logits = self.output_layer(hidden[:, -1:])  # the call returns the next token's only: [b, 1, vocab]
        else:
            logits = self.output_layer(hidden)
            record(self, "logits", logits, needed_by=("probs",))
        record_derived(self, "probs", ("softmax", ("logits",)))  # the softmax when read, from the logits
        return logits

    def output_layer(self, hidden: torch.Tensor) -> torch.Tensor:
        """Decoder output [..., d_model] → logits [..., vocab]: the generator, after × 1/√d_model with scale_output
        (T5 v1.0's tied output layer)."""
        return self.generator(hidden * self.cfg.d_model ** -0.5 if self.cfg.scale_output else hidden)

    def parameter_counts(self) -> dict[str, int]:
        """Trainable parameters per top-level part (src_embed, encoder, ...), a tied matrix once."""
        counts: dict[str, int] = {}
        for name, p in self.named_parameters():  # named_parameters skips a tied duplicate
            part = name.split(".")[0]
            counts[part] = counts.get(part, 0) + p.numel()
        return counts

    def new_cache(self) -> KVCache:
        return KVCache(self.cfg.n_decoder_layers)

    def forward(self, src=None, tgt=None, pad_mask: bool = True, token_types=None):
        """Logits [b, t, vocab] for models with a decoder (or a masked-LM head); encoder output [b, s, d] otherwise."""
        memory = memory_mask = None
        if self.cfg.has_encoder:
            if src is None:
                raise ValueError("this model has an encoder, so it needs source ids.")
            memory, memory_mask = self.encode(src, pad_mask, token_types)
            if not self.cfg.has_decoder:  # the last hidden state, or a masked-LM head's logits over it
                return self.project(self.mlm(memory)) if self.cfg.mlm_head else memory
        if tgt is None:
            raise ValueError("this model has a decoder, so it needs target ids.")
        return self.project(self.decode(tgt, memory, memory_mask, pad_mask))
