"""core_model.trace.pace: inside `paced(wait)`, every Stack calls wait() once before each of its layers, in this
thread only, and the model computes exactly what it computes without it."""
import threading

import numpy as np

from core_model import run_with_trace
from core_model.decoding import greedy
from core_model.trace.pace import between, paced

SRC = [5, 17, 42, 9, 3]


def test_a_traced_run_waits_once_before_each_layer_of_each_stack_and_computes_the_same(translator):
    calls = []
    logits, trace = run_with_trace(translator, SRC, [1, 8, 13])
    with paced(lambda: calls.append(1)):
        paced_logits, paced_trace = run_with_trace(translator, SRC, [1, 8, 13])
    cfg = translator.cfg
    assert len(calls) == cfg.n_encoder_layers + cfg.n_decoder_layers
    assert np.array_equal(paced_logits, logits)
    assert len(trace.names) > 40 and all(np.array_equal(paced_trace[name], trace[name]) for name in trace.names)


def test_greedy_decoding_waits_before_each_layer_of_every_step(lm):
    calls = []
    plain = greedy(lm, [1, 20, 31], max_len=6)
    with paced(lambda: calls.append(1)):
        waited = greedy(lm, [1, 20, 31], max_len=6)
    assert waited.ids == plain.ids
    assert len(calls) == lm.cfg.n_decoder_layers * len(plain.steps)


def test_outside_the_block_and_in_another_thread_nothing_waits():
    calls = []
    with paced(lambda: calls.append(1)):
        other = threading.Thread(target=between)
        other.start()
        other.join()
    between()
    assert calls == []
