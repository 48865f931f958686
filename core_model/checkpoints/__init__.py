"""Reading a checkpoint folder, within limits: ours, a Hugging Face folder through its importer, or a user's upload.

safe_load holds what every reader shares (the error with its code, the loaded result, size limits, JSON and
safetensors read within bounds); folder reads and writes our own folder and dispatches a Hugging Face folder on
its config.json's model_type (registry: the importers register themselves there); archive unpacks an uploaded
zip or copies a folder, writing only the files a load reads; probe loads a stranger's folder in a child process
with its time and memory bounded. Every message names the cause, with a code a UI can say in its own words.
"""
from .archive import (MAX_UNPACKED_BYTES, MAX_ZIP_BYTES, MAX_ZIP_DIRECTORY, MAX_ZIP_ENTRIES, copy_folder, extract_zip,
                      load_zip)
from .folder import check_files, files, find, load, parked, read_config, save, tokenizer_file, weights_to_save
from .safe_load import (CARD, CONFIG, MAX_FILE_BYTES, MAX_LAYERS, MAX_POSITIONS, MAX_WEIGHT_BYTES, WEIGHTS,
                        CheckpointError, Loaded, size_text)

__all__ = ["CARD", "CONFIG", "MAX_FILE_BYTES", "MAX_LAYERS", "MAX_POSITIONS", "MAX_UNPACKED_BYTES", "MAX_WEIGHT_BYTES",
           "MAX_ZIP_BYTES", "MAX_ZIP_DIRECTORY", "MAX_ZIP_ENTRIES", "WEIGHTS", "CheckpointError", "Loaded",
           "check_files", "copy_folder", "extract_zip", "files", "find", "load", "load_zip", "parked", "read_config",
           "save", "size_text", "tokenizer_file", "weights_to_save"]
