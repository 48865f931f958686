"""The operator's choices, handed by `attention-viz` (viz_app/cli.py) to the server it starts, in its environment:
the names of those settings. The loaders read them (viz_app/loaders/models.py)."""
MODELS_SETTING = "ATTENTION_VIZ_MODELS"  # JSON [[name, folder], …] of the models --model named
LOCAL_SETTING = "ATTENTION_VIZ_LOCAL"  # "1" on a local run, where the sidebar lists the cache
DEVICE_SETTING = "ATTENTION_VIZ_DEVICE"  # the torch device every model is loaded on, "cpu" or "cuda"
LANG_SETTING = "ATTENTION_VIZ_LANG"  # the language a visit opens in when its link names none (i18n.default_lang)
