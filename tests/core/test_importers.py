"""The importers as a registry (core_model/importers, checkpoints/registry.py, checkpoints/hub.py): each family
declares what it reads, checkpoints.load dispatches on config.json's model_type alone, a model_type no importer
reads is refused naming it and the model types read, and the shared config table refuses naming the field.

The folders here hold a config.json written in the test and nothing else: every refusal tested comes before a
tensor or tokenizer file is read."""
from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from core_model import checkpoints
from core_model.checkpoints import CheckpointError, hub, registry
from core_model.checkpoints.hub import INTEGER, NUMBER, SWITCH, TEXT, TOKEN_ID, Field, HubConfig
from core_model.importers import IMPORTERS
from viz_app.errors import message

TYPES_READ = ("albert, bart, bert, distilbert, electra, gemma, gpt2, gpt_neo, gpt_neox, llama, marian, mbart, mistral, "
              "opt, phi, qwen2, roberta, t5")


def folder_with(path: Path, config) -> Path:
    """A folder holding only config.json with `config`."""
    path.mkdir()
    (path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return path


def refusal(path: Path) -> CheckpointError:
    with pytest.raises(CheckpointError) as caught:
        checkpoints.load(path)
    return caught.value


# ----- dispatch -----------------------------------------------------------------------------------------------

def test_a_model_type_no_importer_reads_is_refused_naming_it_and_the_families_read(tmp_path):
    e = refusal(folder_with(tmp_path / "rwkv", {"model_type": "rwkv", "hidden_size": 4096}))
    assert str(e) == ("config.json has model_type 'rwkv', which no importer reads; the model types read are: "
                      f"{TYPES_READ}.")
    assert e.code == "unknown_model_type"
    assert e.fields == {"file": "config.json", "name": "model_type", "got": "'rwkv'", "known": TYPES_READ}


def test_a_model_type_that_is_not_a_string_is_refused_the_same_way(tmp_path):
    e = refusal(folder_with(tmp_path / "listed", {"model_type": ["bert", "gpt2"]}))
    assert str(e) == ("config.json has model_type ['bert', 'gpt2'], which no importer reads; the model types read "
                      f"are: {TYPES_READ}.")
    assert e.code == "unknown_model_type" and e.fields["got"] == "['bert', 'gpt2']"


def test_the_unknown_model_type_refusal_is_said_in_chinese(tmp_path):
    e = refusal(folder_with(tmp_path / "rwkv", {"model_type": "rwkv"}))
    assert message(e, language="zh") == ("config.json 中的 model_type 是 'rwkv'，没有哪个导入器能读取它；"
                                         f"能读取的模型类型有：{TYPES_READ}。")
    assert message(e, language="en") == str(e)


def test_load_calls_the_one_importer_of_the_model_type_and_no_other(tmp_path, monkeypatch):
    calls = []
    for importer in IMPORTERS:
        monkeypatch.setattr(importer, "load", lambda path, family=importer.FAMILY: calls.append(family) or family)
    for importer in IMPORTERS:
        for model_type in importer.MODEL_TYPES:
            calls.clear()
            folder = folder_with(tmp_path / model_type, {"model_type": model_type})
            assert checkpoints.load(folder) == importer.FAMILY and calls == [importer.FAMILY]
    calls.clear()
    refusal(folder_with(tmp_path / "rwkv", {"model_type": "rwkv"}))
    assert calls == []  # an unknown family is not tried on any importer


def test_two_importers_claiming_one_model_type_are_refused_naming_both():
    first, second = ModuleType("first"), ModuleType("second")
    first.MODEL_TYPES, second.MODEL_TYPES = ("bert", "roberta"), ("roberta",)
    assert registry.table([first]) == {"bert": first, "roberta": first}
    with pytest.raises(ValueError, match="model_type 'roberta' is read by both first and second"):
        registry.table([first, second])


def test_the_importers_are_installed_once():
    with pytest.raises(RuntimeError, match="installed once"):
        registry.install(IMPORTERS)
    assert registry.model_types() == TYPES_READ.split(", ")


# ----- what an importer declares ------------------------------------------------------------------------------

@pytest.mark.parametrize("importer", IMPORTERS, ids=lambda m: m.__name__)
def test_every_importer_declares_what_the_registry_reads(importer):
    types, files = importer.MODEL_TYPES, importer.FILES
    assert isinstance(types, tuple) and types and all(isinstance(t, str) and t for t in types)
    assert isinstance(importer.FAMILY, str) and importer.FAMILY
    assert isinstance(files, tuple) and files and all(isinstance(f, str) and "/" not in f for f in files)
    assert callable(importer.load)
    assert isinstance(importer.CONFIG, HubConfig) and importer.CONFIG.family == importer.FAMILY
    assert importer.CONFIG.architectures  # dispatch reads architectures too: each names the classes it maps
    assert all(registry.importer_for(t) is importer for t in types)


def test_a_load_reads_every_importers_files():
    for importer in IMPORTERS:
        assert set(importer.FILES) <= set(checkpoints.files()), importer.__name__
    assert len(checkpoints.files()) == len(set(checkpoints.files()))  # each once


@pytest.mark.parametrize("importer", IMPORTERS, ids=lambda m: m.__name__)
def test_an_architecture_the_importer_does_not_map_is_named(importer, tmp_path):
    config = {"model_type": importer.MODEL_TYPES[0], "architectures": ["RwkvForCausalLM"]}
    e = refusal(folder_with(tmp_path / "x", config))
    maps = ", ".join(importer.CONFIG.architectures)
    assert str(e) == (f"config.json names the architecture 'RwkvForCausalLM', whose weights the {importer.FAMILY} "
                      f"importer does not map; it maps: {maps}.")
    assert e.code == "import_architecture" and e.fields["family"] == importer.FAMILY
    assert message(e, language="zh") == (f"config.json 指明的模型结构是 'RwkvForCausalLM'，{importer.FAMILY} "
                                         f"导入器无法映射它的权重；能映射的有：{maps}。")


@pytest.mark.parametrize("importer", IMPORTERS, ids=lambda m: m.__name__)
def test_a_config_with_only_its_model_type_names_the_first_field_it_lacks(importer, tmp_path):
    e = refusal(folder_with(tmp_path / "x", {"model_type": importer.MODEL_TYPES[0]}))
    first = next(f.key for f in importer.CONFIG.fields.values() if f.default is hub.REQUIRED)
    assert str(e) == f"config.json lacks {first}, which a {importer.FAMILY} config has."
    assert e.code == "import_lacks" and e.fields == {"file": "config.json", "family": importer.FAMILY, "name": first}
    assert message(e, language="zh") == f"config.json 缺少 {importer.FAMILY} 配置应有的 {first}。"


# ----- the shared config table (checkpoints/hub.py) ------------------------------------------------------------

TOY = HubConfig(
    "Toy",
    fields={"d_model": Field("width"), "n_heads": Field("heads", INTEGER, 2), "norm_eps": Field("eps", NUMBER, 1e-5),
            "tie_embeddings": Field("tied", SWITCH, False), "pad_id": Field("pad", TOKEN_ID, None),
            "activation": Field("act", TEXT, "gelu", {"gelu": "gelu", "swish": "silu"})},
    needs={"rotary": False}, same=(("width", "decoder_width"),), architectures=("ToyModel",),
    fixed={"architecture": "decoder", "n_encoder_layers": 0})


def toy_refusal(hf: dict) -> CheckpointError:
    with pytest.raises(CheckpointError) as caught:
        TOY.read(hf)
    return caught.value


def test_the_table_reads_each_field_under_our_name_with_its_default():
    assert TOY.read({"width": 8, "act": "swish", "eps": 1, "architectures": ["ToyModel"]}) == {
        "d_model": 8, "n_heads": 2, "norm_eps": 1, "tie_embeddings": False, "pad_id": None, "activation": "silu"}
    cfg = TOY.model_config({**TOY.read({"width": 8}), "pad_id": 0}, d_ff=16)
    assert (cfg.architecture, cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.activation) == ("decoder", 8, 2, 16, "gelu")


@pytest.mark.parametrize("hf, name, want, got", [
    ({"width": "8"}, "width", "an integer", "'8'"),
    ({"width": True}, "width", "an integer", "True"),  # JSON's true is no count
    ({"width": 8, "eps": "small"}, "eps", "a number", "'small'"),
    ({"width": 8, "tied": "false"}, "tied", "true or false", "'false'"),
    ({"width": 8, "pad": [0, 1]}, "pad", "one token id", "[0, 1]"),
    ({"width": 8, "heads": None}, "heads", "an integer", "None"),  # null only where the default is null
    ({"width": 8, "act": "gelu_fast"}, "act", "'gelu', 'swish'", "'gelu_fast'"),
    ({"width": 8, "rotary": True}, "rotary", "False", "True"),
    ({"width": 8, "rotary": 0}, "rotary", "False", "0"),  # a setting is read at its value and type
    ({"width": 8, "decoder_width": 16}, "decoder_width", "width (8)", "16"),
    ({"width": 8, "architectures": "ToyModel"}, "architectures", "a list of model class names", "'ToyModel'"),
])
def test_a_value_the_import_cannot_read_names_the_field_what_is_read_and_what_it_has(hf, name, want, got):
    e = toy_refusal(hf)
    assert str(e) == f"config.json has {name} = {got}; only {want} can be imported."
    assert e.code == "import_setting"
    assert e.fields == {"file": "config.json", "family": "Toy", "name": name, "want": want, "got": got}
    assert message(e, language="zh") == f"config.json 中 {name} = {got}；只能导入 {want}。"


def test_a_missing_field_without_a_default_is_named():
    e = toy_refusal({"heads": 2})
    assert str(e) == "config.json lacks width, which a Toy config has." and e.code == "import_lacks"


def test_values_our_network_refuses_together_are_named_as_an_invalid_config():
    with pytest.raises(CheckpointError, match=r"config.json: d_model \(9\) must be divisible by n_heads \(2\)") as e:
        TOY.model_config(TOY.read({"width": 9}), pad_id=0)
    assert e.value.code == "config_invalid"


def test_the_declared_tables_cannot_be_changed():
    with pytest.raises(TypeError):
        TOY.fields["d_model"] = Field("hidden")
    with pytest.raises(TypeError):
        TOY.needs["rotary"] = True


def test_a_layer_table_is_spelled_out_for_every_layer():
    names = hub.per_layer({"norm1": "ln_1"}, 2, "decoder.layers", "h")
    assert names == {"decoder.layers.0.norm1.weight": "h.0.ln_1.weight", "decoder.layers.0.norm1.bias": "h.0.ln_1.bias",
                     "decoder.layers.1.norm1.weight": "h.1.ln_1.weight", "decoder.layers.1.norm1.bias": "h.1.ln_1.bias"}
