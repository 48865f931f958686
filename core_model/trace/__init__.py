"""Recording, and the Trace it fills: every value one call computed, by a stable dotted name.

hook_points records per call (a ContextVar that the network's modules write into while a trace is active;
never a torch hook, nothing stored on the model), names declares what each module of nn/ records, and
trace holds the typed Trace and run_with_trace, edits the interventions a run may make (a head knocked out, a value
patched from another run). The network imports this package; this package never imports the network.
"""
from .edits import Edit, mean, patch, zero
from .hook_points import NotRecorded, Recorder, Stopped, name_filter, record, recording, scale_scores, set_paths
from .names import ATTN_LEAVES, EMBED_LEAVES, FFN_LEAVES, LAYER_LEAVES, MODEL_LEAVES, STACK_LEAVES
from .trace import AttnView, EmbedView, Trace, as_batch, on_device, run_with_trace

__all__ = ["ATTN_LEAVES", "EMBED_LEAVES", "FFN_LEAVES", "LAYER_LEAVES", "MODEL_LEAVES", "STACK_LEAVES",
           "AttnView", "Edit", "EmbedView", "NotRecorded", "Recorder", "Stopped", "Trace", "as_batch", "mean",
           "name_filter", "on_device", "patch", "record", "recording", "run_with_trace", "scale_scores", "set_paths", "zero"]
