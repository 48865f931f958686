"""Hook points: per-call recording of intermediate values, under stable dotted names.

A trace is active only inside `recording()`, in the current thread or task (a ContextVar), so
one model shared by many sessions records each call into that call's own Recorder. Modules call
`record(self, "leaf", tensor)`; outside a trace that is a single ContextVar lookup. No torch
hook is registered and nothing is stored on the model.

Three ways to keep less (issues 14 and 36):

- A names filter (`recording(names=...)`, like TransformerLens's names_filter) decides per name
  whether a value is kept. A value the filter does not want is never converted or kept, so its
  tensor is freed as soon as the forward pass is done with it.
- Derived values. The scores are Q Kᵀ of the kept q and k: taken again by the same torch product
  when read, they cost no [b, h, q, k] array per attention block and come out as the forward's
  bits (seen on an AMD EPYC at one and two threads, and after pickling, when q and k are contiguous
  copies; tests/core/test_trace_memory.py checks it on whatever CPU runs the tests). q and k are
  kept anyway, and are smaller than the scores once a text is longer than 2 d_head tokens.
  `scores_scaled` and `scores_masked` follow exactly from the scores, the 1/√d_head switch, the
  ALiBi bias and the mask: float32 division and addition are exactly rounded in torch and in numpy
  alike, and masking only copies values or writes -inf. So instead of three [b, h, q, k] arrays per
  attention block the recorder keeps recipes (a divisor, the ALiBi bias's parameters, the mask as a
  small bool array shared by every layer) and computes them only when someone reads them. At 512
  tokens each such array of lm-en is 4 MiB per layer, of MiniLM 12 MiB per layer.
- What a block computes from what it read (issue 36): q, k and v from the norm's output (or the encoder's, for
  cross-attention), z from the weights and v, the block's output from z, the FFN's hidden layer and output
  (`record_call`). The forward's input tensors are known by the names the trace gave them (`Recorder.name_of`), so
  the recipe is the function and those names; reading runs the same function on the same numbers, laid out as they
  were (`as_tensor`), on as many threads, and gives the forward's bits (tests/core/test_trace_memory.py). A value the
  trace would only have as a copy (float16 weights, one row of a decoding step, an edited value) is kept as itself,
  and a layer's output is read where the next layer keeps it as its input (`alias`). A trace keeping every value then
  keeps each layer's input and weights, the embeddings and the logits: SmolLM2-135M at 512 tokens, 401 MiB where it
  kept 649, and its forward took 0.96× as long (bench/real_size.py's children in lockstep). Reading is what pays:
  every value once, one at a time and none held, the score steps aside, took 1.5-1.7 s where it took 0.11-0.12 s
  (the forward: 0.78 s). An on-demand trace's layer, computed again to be read, keeps them all (`whole`).

The trace room sits below the network: nn's modules import record() from here and their leaf names from
names.py, and attention() hands its steps to attention_points.AttentionPoints; nothing here imports nn.
"""
from __future__ import annotations

import contextlib
import fnmatch
import re
import weakref
from contextvars import ContextVar
from typing import Callable

import numpy as np
import torch

from . import heap
from . import on_demand as demand
from .edits import by_name


def name_filter(names) -> Callable[[str], bool] | None:
    """`names` → a predicate over value names, or None to keep everything.

    None keeps every value; a callable(name) -> bool is used as given; a string or an iterable of
    strings keeps the names equal to one of them or matching one as an fnmatch pattern
    ("*.pattern", "decoder.layers.[01].*"), case-sensitive.
    """
    if names is None or callable(names):
        return names
    names = (names,) if isinstance(names, str) else tuple(names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"names must be None, a callable, or names and patterns as strings; got {names!r}.")
    exact = frozenset(n for n in names if not any(c in n for c in "*?["))
    patterns = [fnmatch.translate(n) for n in names if n not in exact]
    regex = re.compile("|".join(patterns)) if patterns else None
    return _Filter(exact, regex)


class _Filter:
    """Exact names and fnmatch patterns compiled into one regular expression (picklable)."""

    def __init__(self, exact: frozenset, regex):
        self.exact, self.regex = exact, regex
        self.memo: dict[str, bool] = {}  # a model has a few hundred names; decoding asks for them every step

    def __call__(self, name: str) -> bool:
        hit = self.memo.get(name)
        if hit is None:
            hit = name in self.exact or (self.regex is not None and self.regex.match(name) is not None)
            if len(self.memo) < 10_000:
                self.memo[name] = hit
        return hit


def describe_filter(names) -> str | None:
    """How a names filter reads in an error message; None when every value is kept."""
    if names is None:
        return None
    if callable(names):
        return f"names={getattr(names, '__qualname__', None) or repr(names)}"
    return f"names={names!r}" if isinstance(names, str) else f"names={list(names)!r}"


class NotRecorded(KeyError):
    """A value the names filter left out of the trace."""

    def __str__(self) -> str:  # KeyError would print the message with quotes around it
        return str(self.args[0])


class Recorder:
    """What one call recorded, read like a dict of name → float32 array.

    `order` is every name the call reached (so views can tell 'left out by the filter' from
    'this model has no such value'); `values` holds the kept arrays, `recipes` the derived ones.
    """

    def __init__(self, scale: bool = True, names=None, stop_after: str | None = None,
                 on_demand: demand.OnDemand | None = None, half: bool = False, keep_as=None, edits=(),
                 whole: bool = False):
        if on_demand is not None and names is not None:
            raise ValueError("an on-demand trace chooses what it keeps itself: give it no names filter.")
        self.edits = by_name(edits)  # name → [Edit], made in the values as they are recorded (edits.py)
        if self.edits and on_demand is not None:
            raise ValueError("an on-demand trace runs a layer again when it is read: it takes no edits.")
        self.scale, self.on_demand = scale, on_demand
        self.half = half  # attention weights kept in float16 (pooled ones too), read as float32
        self.keep_as = keep_as  # (name, tensor) -> what to keep of it, e.g. one row (decoding's steps); None: all
        self.whole = whole  # what a block computes kept as itself, not computed again when read (record_call)
        self.wants = name_filter(names) if on_demand is None else on_demand.keeps
        self.filter = describe_filter(names)
        self.stop_after = stop_after  # the forward ends once this name is recorded (Stopped)
        if stop_after is not None and not self.wanted(stop_after):
            raise ValueError(f"stop_after={stop_after!r} is a name the trace would not keep ({self.filter}).")
        self.values: dict[str, np.ndarray] = {}
        self.recipes: dict[str, tuple] = {}
        self.order: list[str] = []
        self.reached: set[str] = set()
        self._masks: dict[int, tuple] = {}  # id(mask tensor) → (tensor, array): one array per mask per call
        self._derived = weakref.WeakValueDictionary()  # a derived array lives while some reader holds it
        self._named: dict[int, tuple] = {}  # id(tensor) → (weak reference, name): the forward's tensors' names
        # an on-demand trace's own (on_demand.py): each block's pooled weights (name → (array, block)) and digest,
        # what each stack handed its layers (path → dict), each layer's input tensor ((path, index) → tensor)
        self.pooled: dict[str, tuple[np.ndarray, int]] = {}
        self.digests: dict[str, object] = {}
        self.contexts: dict[str, dict] = {}
        self.inputs: dict[tuple[str, int], torch.Tensor] = {}
        self.key = demand.LayerCache.new_id()
        if on_demand is not None:  # its layers computed on reading go when it goes, not when the cache is full
            weakref.finalize(self, demand.LAYERS.forget, self.key)
        self.tally = heap.Tally()  # the heap's free pages go back to the system as the kept values grow

    def __getstate__(self):  # no weak references, no live tensors: a Trace may be pickled (st.cache_data)
        if self.on_demand is not None:
            raise TypeError("an on-demand trace holds the model's layers to compute from: it is shared, never pickled.")
        for name in list(self.values):
            self.array(name)
        for name in [n for n, recipe in self.recipes.items() if recipe[0] == "call"]:  # made now: no module pickled
            self.values[name] = self.derived(name)
            del self.recipes[name]
        skip = ("_derived", "_masks", "_named", "wants", "tally")
        return {k: v for k, v in self.__dict__.items() if k not in skip}

    def __setstate__(self, state):
        self.__dict__.update(state, _derived=weakref.WeakValueDictionary(), _masks={}, _named={}, wants=None,
                             tally=heap.Tally())

    # --- recording ------------------------------------------------------------------------------

    def reach(self, name: str) -> None:
        if name in self.reached:  # a cached decoding step records one new query row per call
            raise RuntimeError(f"{name} was recorded twice in one trace.")
        self.reached.add(name)
        self.order.append(name)

    def edit(self, name: str, value: torch.Tensor) -> None:
        """Make the edits of `name` in `value`, the tensor the forward pass goes on with. A value already kept under
        another name may be this very tensor (a layer's input is the last one's output): it keeps what it was."""
        for kept, tensor in self.values.items():
            if isinstance(tensor, torch.Tensor) and tensor.untyped_storage().data_ptr() == \
                    value.untyped_storage().data_ptr():
                self.values[kept] = tensor.clone()
        for key, (ref, _) in list(self._named.items()):  # no value is derived from what the edit changes, as before it
            tensor = ref()
            if tensor is None or tensor.untyped_storage().data_ptr() == value.untyped_storage().data_ptr():
                del self._named[key]
        for edit in self.edits[name]:
            edit.apply(value)

    def unreached_edits(self) -> list[str]:
        """The names of edits the call never came to (a typo, or a value this model does not have)."""
        return [name for name in self.edits if name not in self.reached]

    def wanted(self, name: str) -> bool:
        return self.wants is None or bool(self.wants(name))

    def keep(self, name: str, value: torch.Tensor) -> None:
        # No copy: nothing in the model changes a tensor in place once it is kept (attention works
        # in place only on tensors no trace keeps). Kept as the tensor itself (detached if it carries a
        # graph) until first read, when `array` makes it a numpy view: a value nobody reads is never converted.
        value = value.detach() if value.requires_grad else value
        self.values[name] = value if self.keep_as is None else self.keep_as(name, value)
        self.tally.add(getattr(self.values[name], "nbytes", 0))
        if self.values[name] is value:
            earlier = self.name_of(value)  # the forward's same tensor, noted as derived: now read where it is kept
            if earlier in self.recipes and name not in self.edits:
                self.recipes[earlier] = ("alias", (name,))
            self.note_name(name, value)
        if self.on_demand is not None and name.endswith(".resid_pre"):
            self.inputs[demand.layer_of(name)] = self.values[name]  # kept a tensor: the layer runs again on it

    def note_name(self, name: str, value: torch.Tensor) -> None:
        """Note that the forward's tensor `value` is what the trace calls `name` (kept as itself, or derived)."""
        self._named[id(value)] = (weakref.ref(value), name)

    def name_of(self, value: torch.Tensor) -> str | None:
        """The name of the forward's tensor `value` in this trace (kept as itself, or derived), or None."""
        ref, name = self._named.get(id(value), (None, None))
        return name if ref is not None and ref() is value else None

    def summarize(self, name: str, weights: torch.Tensor) -> None:
        """An on-demand trace's record of a block's full weights [b, h, q, k]: pooled, and the caller's digest."""
        block = demand.pool_block(*weights.shape[-2:], self.on_demand.side)
        pooled = demand.pool_max(weights, block)
        self.pooled[name] = (pooled.astype(np.float16) if self.half else pooled, block)
        if self.on_demand.digest is not None:
            self.digests[name] = self.on_demand.digest(name, weights.detach().cpu().numpy())

    def remember(self, path: str, context: dict) -> None:
        """What stack `path` handed its layers (masks, memory, bias): an on-demand trace runs a layer again with it."""
        self.contexts[path] = context

    def array(self, name: str) -> np.ndarray:
        """A kept value as float32 numpy, converted on its first read (a GPU's copied to the host only then). The array
        shares the tensor's memory, so it is made read-only: no reader can alter what the model computed."""
        value = self.values[name]
        if isinstance(value, torch.Tensor) and value.dtype == torch.float16 and self.half:
            return self.widened(name, value)
        if isinstance(value, torch.Tensor):
            value = (value if value.dtype == torch.float32 else value.to(torch.float32)).cpu().numpy()
            value.flags.writeable = False
            self.values[name] = value  # two threads reading at once each make a view of the same memory
        return value

    def widened(self, name: str, value: torch.Tensor) -> np.ndarray:
        """A float16 value as float32 numpy, made on reading and kept only while a reader holds it (the trace keeps
        the half-size tensor)."""
        array = self._derived.get(name)
        if array is None:
            array = value.to(torch.float32).cpu().numpy()
            array.flags.writeable = False
            self._derived[name] = array
        return array

    def mask_array(self, mask: torch.Tensor) -> np.ndarray:
        """The mask as a read-only bool array (a view, no copy), once per call however many layers use it."""
        held = self._masks.get(id(mask))
        if held is None or held[0] is not mask:  # the tensor is held, so its id cannot be reused meanwhile
            array = mask.detach().cpu().numpy()  # a GPU's mask copied to the host (a CPU one is not copied)
            array.flags.writeable = False
            held = self._masks[id(mask)] = (mask, array)
        return held[1]

    # --- reading --------------------------------------------------------------------------------

    def available(self, name: str) -> bool:
        """Kept, or derived from what is kept (not counting what an on-demand trace computes when read)."""
        return name in self.values or name in self.recipes

    def computable(self, name: str) -> bool:
        """A layer's value an on-demand trace computes when read."""
        return self.on_demand is not None and name in self.reached and demand.layer_of(name) is not None

    def names(self) -> list[str]:
        return [n for n in self.order if n in self]

    def __contains__(self, name: str) -> bool:
        return self.available(name) or self.computable(name)

    def __iter__(self):
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __getitem__(self, name: str) -> np.ndarray:
        if name in self.values:
            return self.array(name)
        if name in self.recipes:
            return self.derived(name)
        if self.computable(name):
            return self.layer(*demand.layer_of(name))[name]
        if name in self.reached and self.filter is not None:
            raise NotRecorded(f"{name!r} was not recorded: the trace was made with {self.filter}, which leaves it "
                              "out (nor does it keep what it derives from). Trace again with names=None, or a filter "
                              "that matches it.")
        raise KeyError(name)

    def layer(self, stack: str, index: int) -> Recorder:
        """Every value of one layer, computed again from its recorded input (on_demand.LAYERS keeps the latest)."""
        context = self.contexts[stack]

        def compute():
            return demand.recompute(context, self.inputs[(stack, index)], index, self.scale, self.half, recording)
        return demand.LAYERS.get((self.key, stack, index), compute)

    def derived(self, name: str) -> np.ndarray:
        """A derived value, computed from its recipe (one array while any reader still holds it)."""
        value = self._derived.get(name)
        if value is None:
            value = derive(self, *self.recipes[name])
            value.flags.writeable = False
            self._derived[name] = value
        return value

    def nbytes(self) -> int:
        """Bytes of the distinct float32 arrays kept, as read (two names for one tensor, or a shared mask, count
        once); sized where they are, so asking converts nothing."""
        def where(v) -> tuple[int, int]:  # (address, bytes as float32 numpy; float16 as kept)
            if isinstance(v, torch.Tensor):
                return v.data_ptr(), v.numel() * (2 if v.dtype == torch.float16 else 4)
            return v.__array_interface__["data"][0], v.nbytes

        held = [r[-1] for r in self.recipes.values() if isinstance(r[-1], (np.ndarray, torch.Tensor))]
        kept = [*self.values.values(), *held, *(p for p, _ in self.pooled.values())]
        return sum(size for _, size in {where(v) for v in kept})


def derive(recorder: Recorder, kind: str, sources: tuple[str, ...], *args) -> np.ndarray:
    """Recompute a derived value from its sources exactly as the forward computed it in torch.

    'sum': the two sources added (a layer's residuals). 'norm': the norm module in the recipe applied to the source
    (the same kernel on the same numbers, one row at a time: the same bits). 'call': the recipe's function of the
    sources, on the device and the threads the forward ran on (what a block computed from what it read: record_call).
    'alias': the value kept under another name (the forward's same tensor: a layer's output is the next one's input).
    'product': q @ kᵀ in torch (on copies: torch takes no read-only array, and q and k are small) by heads_product,
    as the forward takes it (a key head shared by query heads repeated for them).
    'scaled': source / divisor (float32, exactly rounded like torch's), + the ALiBi bias rebuilt by the function
    and arguments the recipe names (nn.positional.alibi_bias_range; T5's, shared by a stack, as_given). 'masked':
    -inf where the mask blocks, the source elsewhere.
    """
    if kind == "sum":  # a residual: what entered plus what a block added, float32 addition (the same bits as torch's)
        first, second = (recorder[s] for s in sources)
        return np.add(first, second)
    if kind == "norm":  # a layer's norm applied again to its input, where its weights are, as in the forward
        kind, args = "call", (args[0], next(args[0].parameters(), torch.empty(0)).device, None)
    if kind == "call":  # as the forward computed it, from what it read: the same kernels on the same numbers
        return _call(recorder, sources, *args)
    if kind == "alias":
        return recorder[sources[0]].view()
    if kind == "apply":  # a module applied to a tensor the recipe holds (an on-demand trace's logits)
        module, value = args
        with torch.no_grad():
            return module(value).cpu().numpy()
    base, *others = (recorder[s] for s in sources)
    if kind == "softmax":  # over the last axis, by torch as the forward would (in torch's own memory: torch.tensor)
        return torch.softmax(torch.tensor(base), dim=-1).numpy()
    if kind == "product":
        q, k = torch.from_numpy(base.copy()), torch.from_numpy(others[0].copy())
        return heads_product(q, k.transpose(-2, -1)).numpy()
    if kind == "scaled":
        return _scaled(base, *args)
    (mask,) = args
    return base.view() if mask is None else np.where(mask, base, np.float32(-np.inf))


def _call(recorder: Recorder, sources: tuple[str, ...], function, device: torch.device, threads: int | None):
    """function(*sources) as the forward computed it: on its device, with torch on as many threads in this thread as
    the forward had (a product over a long inner dimension is summed in parts, one per thread: FFN's second product
    of MiniLM read on 2 threads after a forward on 1 differed in a third of its numbers, by one unit in the last
    place). torch's count is the calling thread's own (viz_app/serving.settle), so no other thread's changes."""
    before = torch.get_num_threads()
    if threads is not None and threads != before:
        torch.set_num_threads(threads)
    try:
        with torch.no_grad():
            return function(*(as_tensor(recorder[s], device) for s in sources)).cpu().numpy()
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


def _scaled(scores: np.ndarray, divisor: float | None, bias) -> np.ndarray:
    """scores / divisor + the bias rebuilt by its (function, arguments), as the forward computed them."""
    out = scores if divisor is None else scores / np.float32(divisor)
    if bias is not None:
        rebuild, arguments = bias
        out = out + rebuild(*arguments).numpy()
    return out if out is not scores else scores.view()


def as_tensor(array: np.ndarray, device: torch.device) -> torch.Tensor:
    """A copy of `array` as a torch tensor on `device`, its axes laid out in memory in the array's order (a kept value
    is often a view, such as a projection's heads, [b, pos, heads, d] read as [b, heads, pos, d]), so that a derived
    value is made from numbers laid out as the forward's were."""
    return torch.from_numpy(np.array(array, order="K")).to(device)


_ACTIVE: ContextVar[Recorder | None] = ContextVar("core_model_trace", default=None)


def active() -> Recorder | None:
    """The recorder of the call in progress in this context, if any."""
    return _ACTIVE.get()


def heads_product(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a [batch, h, n, x] @ b [batch, kv, x, m] → [batch, h, n, m], each of b's kv heads serving h / kv consecutive
    heads of a (grouped-query attention: b a key or value head shared by query heads), repeated for them as
    transformers' repeat_kv does. Stacking the query heads that share one as the rows of one product instead gives
    the same bits, but measured slower in whole forwards keeping every value (bench/real_size.py's children in
    lockstep, the repeated against the stacked): SmolLM2-135M 0.98× at 512 tokens and 0.99× at 128, Qwen2-0.5B 0.95×
    at 512 and 0.99× at 128 (the stacked [3, 1536, 64] @ [3, 64, 512] took 3.4-3.9 ms where transformers'
    [9, 512, 64] @ [9, 64, 512] took 2.8). nn's attention() and the trace's derived scores both take it: they agree
    bit for bit."""
    heads, shared = a.shape[1], b.shape[1]
    return a @ (b if heads == shared else b.repeat_interleave(heads // shared, dim=1))


def _name(module, leaf: str) -> str:
    path = getattr(module, "trace_path", "")
    return f"{path}.{leaf}" if path else leaf


class Stopped(Exception):
    """Raised by record() once the trace's stop_after name is recorded: nothing after it is needed."""


def record(module: torch.nn.Module, leaf: str, value: torch.Tensor, needed_by: tuple[str, ...] = (),
           copy: bool = False) -> bool:
    """Keep `value` as '<module path>.<leaf>' if a trace is active and wants it; True if kept.

    `needed_by` names sibling leaves derived from this value: it is kept when any of them is wanted. `copy` keeps a
    copy (for a value its computation goes on to overwrite), made only if it is kept.
    Raises Stopped when the name is the trace's stop_after.
    """
    recorder = _ACTIVE.get()
    if recorder is None:
        return False
    name = _name(module, leaf)
    recorder.reach(name)
    if name in recorder.edits:
        recorder.edit(name, value)
    if not (recorder.wanted(name) or any(recorder.wanted(_name(module, d)) for d in needed_by)):
        return False
    recorder.keep(name, value.clone() if copy else value)
    if name == recorder.stop_after:
        raise Stopped(name)
    return True


def reach(module, leaf: str) -> None:
    """Note that the call came to '<module path>.<leaf>' without keeping it (a value never made whole)."""
    recorder = _ACTIVE.get()
    if recorder is not None:
        recorder.reach(_name(module, leaf))


def edited(module, leaf: str) -> bool:
    """Whether the call in progress edits '<module path>.<leaf>'."""
    recorder = _ACTIVE.get()
    return recorder is not None and _name(module, leaf) in recorder.edits


def summarize(module, leaf: str, weights: torch.Tensor) -> None:
    """An on-demand trace pools a block's full weights (and digests them) while they exist; else nothing."""
    recorder = _ACTIVE.get()
    if recorder is not None and recorder.on_demand is not None:
        recorder.summarize(_name(module, leaf), weights)


def remember(module, **context) -> None:
    """An on-demand trace keeps what a stack hands its layers, to run one of them again when it is read."""
    recorder = _ACTIVE.get()
    if recorder is not None and recorder.on_demand is not None:
        recorder.remember(getattr(module, "trace_path", ""), dict(context, stack=module))


def edit(module, leaf: str, value: torch.Tensor) -> None:
    """Make the call's edits of '<module path>.<leaf>' in `value` now (record makes them too, as it keeps a value)."""
    recorder = _ACTIVE.get()
    if recorder is not None and _name(module, leaf) in recorder.edits:
        recorder.edit(_name(module, leaf), value)


def half() -> bool:
    """Whether the call in progress keeps attention weights in float16."""
    recorder = _ACTIVE.get()
    return recorder is not None and recorder.half


def on_demand() -> bool:
    """Whether the call in progress records an on-demand trace (on_demand.py)."""
    recorder = _ACTIVE.get()
    return recorder is not None and recorder.on_demand is not None


def record_derived(module, leaf: str, recipe: tuple, needed_by: tuple[str, ...] | None = None) -> bool:
    """Note '<module path>.<leaf>' as derived by `recipe` (kind, sources, args...) from kept values; True if
    noted. A source is a leaf of the module, or a tensor of the forward, named as the trace names it (Recorder.name_of):
    one the trace has no name for leaves the value to be recorded as itself. Without `needed_by`, it is noted whenever
    its sources are kept (derived values come with what they derive from). With `needed_by` (the leaves derived in
    turn from this one) it is only an offer: noted when its sources are kept and it or one of those leaves is wanted;
    otherwise nothing is reached, and the caller records the value."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return False
    name = _name(module, leaf)
    kind, sources, *args = recipe
    sources = tuple(recorder.name_of(s) if isinstance(s, torch.Tensor) else _name(module, s) for s in sources)
    noted = all(s is not None and recorder.available(s) for s in sources)
    if needed_by is not None:
        noted = noted and (recorder.wanted(name) or any(recorder.wanted(_name(module, d)) for d in needed_by))
        if not noted:
            return False
    recorder.reach(name)
    if noted:
        args = [recorder.mask_array(a) if isinstance(a, torch.Tensor) and a.dtype == torch.bool else a for a in args]
        recorder.recipes[name] = (kind, sources, *args)
        if name == recorder.stop_after:
            raise Stopped(name)
    return noted


def record_as(module, leaf: str, value: torch.Tensor, recipe: tuple, needed_by: tuple[str, ...] = ()) -> None:
    """Record '<module path>.<leaf>', which the forward computed as `value`, as `recipe` (kind, sources, args) when
    its sources are in the trace and no edit names it, so that it is computed again when read; else as the value.
    `needed_by`: as record's. At real size a [b, pos, d_model] array fewer a layer for each (SmolLM2-135M at 1,024
    tokens: 2.25 MiB)."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return
    if _name(module, leaf) in recorder.edits or not record_derived(module, leaf, recipe, needed_by=needed_by):
        record(module, leaf, value, needed_by=needed_by)
    else:
        recorder.note_name(_name(module, leaf), value)


def record_call(module, leaf: str, value: torch.Tensor, function, *inputs: torch.Tensor,
                needed_by: tuple[str, ...] = ()) -> None:
    """Record '<module path>.<leaf>', which the forward computed as `function(*inputs)` (`value`), as that recipe when
    every input is in the trace, as itself otherwise (record_as): what a block computes is computed again from what
    it read when someone reads it, and a forward that keeps every value keeps only the layers' inputs and the
    attention weights as arrays of their own. While training, as itself: dropout comes between, and the weights change
    after the call; and in a `whole` trace (an on-demand trace's layer, computed again to be read)."""
    recorder = _ACTIVE.get()
    if recorder is None:
        return
    if module.training or recorder.whole:
        record(module, leaf, value, needed_by=needed_by)
    else:
        record_as(module, leaf, value, ("call", inputs, function, value.device, torch.get_num_threads()), needed_by)


def set_paths(model: torch.nn.Module) -> None:
    """Give every submodule its dotted path, the prefix of the names it records."""
    for path, module in model.named_modules():
        module.trace_path = path


def scale_scores() -> bool:
    """Whether attention divides scores by sqrt(d_k) in this call (a teaching switch)."""
    recorder = _ACTIVE.get()
    return True if recorder is None else recorder.scale


@contextlib.contextmanager
def recording(scale: bool = True, names=None, stop_after: str | None = None, on_demand=None, half: bool = False,
              keep_as=None, edits=(), whole: bool = False):
    """Record into a fresh Recorder for the duration of the block; yields it (read it like a dict).

    `names` filters what is kept (see name_filter); `scale=False` drops every attention block's 1/√d_k;
    `stop_after` makes record() raise Stopped once that name is recorded; `on_demand` (an on_demand.OnDemand)
    keeps what fits and computes a layer's values when read; `half` keeps attention weights in float16; `keep_as`
    (name, tensor) -> tensor keeps part of each value (a copy, so that the rest is freed); `edits` (edits.Edit) change
    values as they are recorded; `whole` keeps what a block computes as itself (record_call).
    """
    heap.steady()  # malloc places a forward's arrays the same way whatever the process did before (heap.py)
    recorder = Recorder(scale, names, stop_after, on_demand, half, keep_as, edits, whole)
    token = _ACTIVE.set(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.reset(token)
