"""A checkpoint a user brings: real bad files on disk and in zips, each refused with its reason.

Every case checks what the user is told and that nothing ran or landed outside the destination.
"""
import io
import json
import pickle
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest
import torch

from core_model import checkpoints
from core_model.checkpoints import CheckpointError, copy_folder, extract_zip, load, load_zip
from core_model.checkpoints.archive import copy_bounded
from tests.bad_checkpoints import (REVERSE, Payload, compressible_bomb, files_of, other_config_weights,
                                   torch_save_payload, zip_of)


@pytest.fixture
def marker(tmp_path):
    return tmp_path / "pwned"


@pytest.fixture
def evil_pickle(marker):
    return pickle.dumps(Payload(marker))


@pytest.fixture
def evil_torch_save(marker):
    return torch_save_payload(marker)


@pytest.fixture
def folder(tmp_path):
    """A copy of the shipped reverse model, to damage."""
    return Path(shutil.copytree(REVERSE, tmp_path / "mine"))


def outputs(loaded):
    src, tgt = torch.tensor([[5, 6, 7, 8]]), torch.tensor([[2, 9, 10]])
    with torch.no_grad():
        return loaded.model(src, tgt)


def refused(action, *args) -> str:
    with pytest.raises(CheckpointError) as err:
        action(*args)
    return str(err.value)


def everything_under(path: Path) -> list[str]:
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


# ----- good files ---------------------------------------------------------------------------

@pytest.mark.parametrize("top", ["reverse", None])
def test_a_zip_of_a_shipped_model_gives_the_same_outputs_as_its_folder(tmp_path, top):
    loaded = load_zip(zip_of(files_of(REVERSE), top), tmp_path / "dest")
    shipped = load(REVERSE)
    assert loaded.config == shipped.config
    assert torch.equal(outputs(loaded), outputs(shipped))
    assert loaded.card == (REVERSE / "card.md").read_text(encoding="utf-8")


def as_zip64(data: bytes, size: int | None = None) -> bytes:
    """The same zip with a zip64 end record, as some tools write for any zip: the plain end record's counts 0xFFFF
    and its size and offset of the list of entries 0xFFFFFFFF, the real ones (or another `size`) in the zip64 record."""
    end = len(data) - 22  # no comment
    count, real, offset = (int.from_bytes(data[end + a:end + b], "little") for a, b in ((10, 12), (12, 16), (16, 20)))
    size = real if size is None else size
    record = b"PK\x06\x06" + (44).to_bytes(8, "little") + (45).to_bytes(2, "little") * 2 + bytes(8) + \
        count.to_bytes(8, "little") * 2 + size.to_bytes(8, "little") + offset.to_bytes(8, "little")
    locator = b"PK\x06\x07" + bytes(4) + end.to_bytes(8, "little") + (1).to_bytes(4, "little")
    plain = b"PK\x05\x06" + bytes(4) + b"\xff\xff" * 2 + b"\xff\xff\xff\xff" * 2 + bytes(2)
    return data[:end] + record + locator + plain


def test_a_zip64_archive_loads_as_the_plain_one(tmp_path):
    data = as_zip64(zip_of(files_of(REVERSE), "reverse"))
    assert zipfile.ZipFile(io.BytesIO(data)).namelist()  # Python's zipfile reads it (through the zip64 record)
    assert torch.equal(outputs(load_zip(data, tmp_path / "dest")), outputs(load(REVERSE)))
    claimed = as_zip64(zip_of(files_of(REVERSE), "reverse"), size=2**40)  # its zip64 record bounded as the plain one
    assert refused(extract_zip, claimed, tmp_path / "other").startswith("the zip's list of entries takes 1,048,576 MB")


def test_a_finder_zip_with_its_macos_extras_loads(tmp_path):
    files = {**{f"mine/{n}": d for n, d in files_of(REVERSE).items()},
             "__MACOSX/mine/._config.json": b"\x00\x05\x16\x07", "mine/.DS_Store": b"\x00\x00\x00\x01Bud1"}
    assert load_zip(zip_of(files, top=None), tmp_path / "dest").config == load(REVERSE).config


# A zip of one entry whose name is empty (zipfile cannot write one), as test_fuzz's hostile zips drew it
EMPTY_NAME = (b"PK\x03\x04\x14\x00\x00\x00\x00\x00\x00\x00!\x00" + bytes(16) + b"PK\x01\x02\x14\x03\x14\x00\x00\x00"
              b"\x00\x00\x00\x00!\x00" + bytes(24) + b"\x80\x01" + bytes(4) + b"PK\x05\x06\x00\x00\x00\x00\x01\x00"
              b"\x01\x00.\x00\x00\x00\x1e\x00\x00\x00\x00\x00")


def test_an_entry_with_an_empty_name_is_refused_as_a_checkpoint_error(tmp_path):
    """zipfile's is_dir() read the empty name's last letter and raised IndexError: a traceback, not a message."""
    assert [i.filename for i in zipfile.ZipFile(io.BytesIO(EMPTY_NAME)).infolist()] == [""]
    assert "config.json" in refused(extract_zip, EMPTY_NAME, tmp_path / "dest")


def test_only_the_files_a_load_reads_are_unpacked(tmp_path, evil_torch_save):
    extra = {"notes.txt": b"hello", "pytorch_model.bin": evil_torch_save, "run.sh": b"rm -rf /"}
    dest = extract_zip(zip_of({**files_of(REVERSE), **extra}), tmp_path / "dest")
    assert everything_under(dest) == sorted(files_of(REVERSE))


def test_a_copied_folder_gives_the_same_outputs(tmp_path):
    dest = copy_folder(REVERSE, tmp_path / "dest")
    assert everything_under(dest) == sorted(files_of(REVERSE))
    assert torch.equal(outputs(load(dest)), outputs(load(REVERSE)))


# ----- pickles: refused, and never run ------------------------------------------------------

def test_the_malicious_pickle_is_real(tmp_path, evil_pickle, marker):
    """The payload the next tests refuse does run code once unpickled (in a separate process)."""
    subprocess.run([sys.executable, "-c", "import pickle, sys; pickle.loads(sys.stdin.buffer.read())"],
                   input=evil_pickle, check=True, cwd=tmp_path)
    assert marker.exists()


@pytest.mark.parametrize("payload", ["evil_pickle", "evil_torch_save"])
def test_a_pickle_named_model_safetensors_is_refused_unrun(folder, payload, marker, request):
    (folder / "model.safetensors").write_bytes(request.getfixturevalue(payload))
    assert refused(load, folder) == ("model.safetensors holds a pickle (what torch.save writes), not safetensors "
                                     "data; loading a pickle can run any code, so it is not read.")
    assert not marker.exists()


PICKLE_CHECKPOINT = ("pytorch_model.bin is a pickle-based checkpoint, which is not accepted because loading a pickle "
                     "can run any code: only model.safetensors is read (save the weights with safetensors).")


def test_a_pickle_checkpoint_folder_is_refused_unrun(folder, evil_torch_save, marker):
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(evil_torch_save)
    assert refused(load, folder) == PICKLE_CHECKPOINT
    assert refused(copy_folder, folder, folder.parent / "dest") == PICKLE_CHECKPOINT
    assert not marker.exists()


def test_a_zipped_pickle_checkpoint_is_refused_unrun_and_unwritten(tmp_path, evil_torch_save, marker):
    files = {**files_of(REVERSE), "pytorch_model.bin": evil_torch_save}
    del files["model.safetensors"]
    assert refused(load_zip, zip_of(files), tmp_path / "dest") == PICKLE_CHECKPOINT
    assert everything_under(tmp_path) == ["dest"]  # nothing unpacked
    assert not marker.exists()


# ----- broken weights -----------------------------------------------------------------------

def test_truncated_weights_are_refused(folder):
    full = (REVERSE / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(full[:len(full) // 2])
    assert refused(load, folder) == (f"model.safetensors is truncated: it should be {len(full):,} bytes long, "
                                     f"but has {len(full) // 2:,}.")


def test_weights_saved_from_another_config_are_refused(folder):
    weights, reason = other_config_weights()
    (folder / "model.safetensors").write_bytes(weights)
    assert refused(load, folder) == reason


# ----- huge files and huge models -----------------------------------------------------------

def sparse(path: Path, size: int) -> None:
    """A file of `size` bytes that takes no room on disk (a hole), for the real size checks."""
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.truncate(size)


def test_huge_weights_are_refused_unread(folder):
    sparse(folder / "model.safetensors", 600 * 2**20)
    assert refused(load, folder) == "model.safetensors is 600 MB, over the limit of 512 MB."


def test_a_huge_config_is_refused_unread(folder):
    sparse(folder / "config.json", 40 * 2**20)
    assert refused(load, folder) == "config.json is 40 MB, over the limit of 32 MB."


def test_a_copied_folder_is_bounded_in_all(folder, tmp_path):
    sparse(folder / "model.safetensors", 300 * 2**20)  # under the loader's 512 MB, over what a user may bring
    assert refused(copy_folder, folder, tmp_path / "dest") == "the checkpoint's files add up to 300 MB, over the limit of 256 MB."
    assert not (tmp_path / "dest").exists()


def with_config(folder: Path, **fields) -> None:
    (folder / "config.json").write_text(json.dumps({**load(REVERSE).config.to_dict(), **fields}))


def test_a_small_config_asking_for_a_huge_model_is_refused_before_building_it(folder):
    with_config(folder, d_model=8192, n_heads=8)
    message = refused(load, folder)
    assert message.startswith("config.json describes a model of over ")
    assert message.endswith(" MB), over the limit of 512 MB.")


def test_a_config_asking_for_a_thousand_layers_is_refused(folder):
    with_config(folder, n_encoder_layers=1000)
    assert refused(load, folder) == "config.json asks for 1000 encoder layers, more than the 96 the loader builds."


def test_a_bert_config_asking_for_a_huge_model_is_refused_before_building_it(tmp_path):
    from core_model.importers import bert

    folder = Path(shutil.copytree(bert.minilm_path(), tmp_path / "bert"))
    hf = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**hf, "hidden_size": 12288, "intermediate_size": 12288}))
    message = refused(load, folder)  # without the check, building it takes tens of GB and hangs the server
    assert message.startswith("config.json describes a model of over ")
    assert message.endswith(" MB), over the limit of 512 MB.")


def test_an_oversized_zip_is_refused(tmp_path):
    assert refused(extract_zip, bytes(130 * 2**20), tmp_path / "dest") == "the zip is 130 MB, over the limit of 128 MB."


# ----- zips that would write outside their folder -------------------------------------------

@pytest.mark.parametrize("name, reason", [
    ("../evil", "the zip entry '../evil' climbs out of its folder with '..'."),
    ("mine/../../evil", "the zip entry 'mine/../../evil' climbs out of its folder with '..'."),
    ("..\\evil", "the zip entry '..\\\\evil' climbs out of its folder with '..'."),
    ("C:/evil", "the zip entry 'C:/evil' has an absolute path, which could write anywhere on the disk."),
])
def test_a_zip_slip_is_refused_and_writes_nothing(tmp_path, name, reason):
    data = zip_of({**{f"mine/{n}": d for n, d in files_of(REVERSE).items()}, name: b"owned"}, top=None)
    assert refused(extract_zip, data, tmp_path / "a" / "dest") == reason
    assert everything_under(tmp_path) == ["a", "a/dest"]


def test_an_absolute_path_is_refused_and_writes_nothing(tmp_path):
    target = tmp_path / "outside" / "evil"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("config.json", (REVERSE / "config.json").read_bytes())
        z.writestr(zipfile.ZipInfo(str(target)), b"owned")  # ZipInfo keeps the leading '/'
    assert refused(extract_zip, buf.getvalue(), tmp_path / "dest") == (
        f"the zip entry '{target}' has an absolute path, which could write anywhere on the disk.")
    assert not target.parent.exists()
    assert everything_under(tmp_path) == ["dest"]


def test_a_file_the_zip_holds_twice_is_refused_not_one_of_them_picked(tmp_path):
    """Two entries of one name (zipfile warns, and writes both): which one a tool reads is a guess."""
    buf = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w") as z:
        warnings.simplefilter("ignore")  # "Duplicate name"
        for name, data in files_of(REVERSE).items():
            z.writestr(name, data)
        z.writestr("config.json", json.dumps({"d_model": 7}))
    assert refused(extract_zip, buf.getvalue(), tmp_path / "dest") == "the zip holds config.json twice."
    assert everything_under(tmp_path) == ["dest"]


def test_a_symlink_entry_is_refused(tmp_path):
    link = zipfile.ZipInfo("mine/config.json")
    link.external_attr = (0o120777 << 16)  # S_IFLNK: the entry's data is the link's target
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(link, "/etc/passwd")
    assert refused(extract_zip, buf.getvalue(), tmp_path / "dest") == (
        "the zip entry 'mine/config.json' is a symbolic link, which could point anywhere on the disk.")
    assert everything_under(tmp_path) == ["dest"]


# ----- zip bombs and other odd zips ---------------------------------------------------------

def test_a_highly_compressible_huge_member_is_refused_unpacked(tmp_path):
    data = compressible_bomb(300)
    assert len(data) < 2**20  # 300 MB of zeros in under 1 MB
    assert refused(extract_zip, data, tmp_path / "dest") == "the zip unpacks to 300 MB, over the limit of 256 MB."
    assert everything_under(tmp_path) == ["dest"]


def forge(data: bytes, name: str, local: int, central: int, value: bytes) -> bytes:
    """Overwrite a field of `name`'s entry at byte `local` of its local header and `central` of its directory entry."""
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo(name)
    out = bytearray(data)
    out[info.header_offset + local:info.header_offset + local + len(value)] = value
    entry = data.find(b"PK\x01\x02")  # the directory entries; the name starts 46 bytes in
    while data[entry + 46:entry + 46 + len(name)] != name.encode():
        entry = data.find(b"PK\x01\x02", entry + 1)
    out[entry + central:entry + central + len(value)] = value
    return bytes(out)


def forge_size(data: bytes, name: str, size: int) -> bytes:
    """Make the zip declare `size` uncompressed bytes for `name`."""
    return forge(data, name, 22, 24, size.to_bytes(4, "little"))


def test_a_member_larger_than_it_declares_is_refused_at_its_declared_size(tmp_path):
    files = {**files_of(REVERSE), "model.safetensors": bytes(20 * 2**20)}
    data = forge_size(zip_of(files), "mine/model.safetensors", 1000)
    assert zipfile.ZipFile(io.BytesIO(data)).getinfo("mine/model.safetensors").file_size == 1000
    message = refused(extract_zip, data, tmp_path / "dest")
    assert message.startswith("mine/model.safetensors in the zip cannot be unpacked (Bad CRC-32")
    assert (tmp_path / "dest" / "model.safetensors").stat().st_size <= 1000  # not 20 MB


def test_copying_stops_at_the_limit_whatever_the_stream_declares(tmp_path):
    target = tmp_path / "out"
    assert refused(copy_bounded, io.BytesIO(bytes(3 * 2**20)), target, 2**20, "too big") == "too big"
    assert target.stat().st_size <= 2**20


def test_a_zip_with_thousands_of_entries_is_refused_before_it_is_parsed(tmp_path):
    data = zip_of({f"{i:05d}": b"" for i in range(6000)})
    listing = data.rfind(b"PK\x05\x06") - data.find(b"PK\x01\x02")  # from the first entry to the end record
    assert listing > 256 * 2**10
    assert refused(extract_zip, data, tmp_path / "dest") == (
        f"the zip's list of entries takes {listing / 2**10:.0f} KB, far more than a checkpoint folder's few files "
        "need (at most 256 KB).")


def test_a_zip_with_too_many_entries_is_refused(tmp_path):
    data = zip_of({f"{i}.txt": b"" for i in range(100)})
    assert refused(extract_zip, data, tmp_path / "dest") == (
        f"the zip holds 100 entries, more than the 64 allowed; a checkpoint folder has at most {len(checkpoints.files())} files.")


@pytest.mark.parametrize("names, where", [
    (["a/b/config.json"], "'a/b/config.json' is nested deeper"),
    (["a/config.json", "b/model.safetensors"], "it mixes 'a/config.json' and 'b/model.safetensors'"),
    (["config.json", "a/model.safetensors"], "it mixes 'config.json' and 'a/model.safetensors'"),
])
def test_a_zip_must_hold_one_folder_at_most(tmp_path, names, where):
    data = zip_of({n: b"{}" for n in names}, top=None)
    assert refused(extract_zip, data, tmp_path / "dest") == (
        f"the zip must hold the checkpoint's files at its top level or in one folder, but {where}.")


@pytest.mark.parametrize("data, reason", [
    (b"just some text, not a zip at all", "the file is not a zip archive (or the zip is damaged)."),
    (zip_of(files_of(REVERSE))[:300_000], "the file is not a zip archive (or the zip is damaged)."),
    (zip_of({"card.md": b"# hi"}), "the zip has no config.json, so it holds no checkpoint folder."),
    (zip_of({"config.json": b"{}", "x/../config.json": b"{}"}, top=None),
     "the zip entry 'x/../config.json' climbs out of its folder with '..'."),
])
def test_other_bad_zips_are_refused(tmp_path, data, reason):
    assert refused(extract_zip, data, tmp_path / "dest") == reason


def test_an_encrypted_member_is_refused(tmp_path):
    data = forge(zip_of({"config.json": b"\x00" * 40}, top=None), "config.json", 6, 8, (1).to_bytes(2, "little"))
    assert zipfile.ZipFile(io.BytesIO(data)).getinfo("config.json").flag_bits & 0x1  # bit 0: encrypted
    assert refused(extract_zip, data, tmp_path / "dest") == "the zip entry 'config.json' is encrypted."


def test_a_zip_holding_a_broken_checkpoint_gets_the_loaders_reason(tmp_path):
    files = files_of(REVERSE)
    files["model.safetensors"] = files["model.safetensors"][:1000]
    message = refused(load_zip, zip_of(files), tmp_path / "dest")
    assert message.startswith("model.safetensors is truncated")


def test_limits_are_the_documented_ones():
    # RELIABILITY.md and the app's messages quote these numbers
    assert (checkpoints.MAX_ZIP_BYTES, checkpoints.MAX_UNPACKED_BYTES, checkpoints.MAX_WEIGHT_BYTES,
            checkpoints.MAX_FILE_BYTES, checkpoints.MAX_ZIP_ENTRIES) == (128 * 2**20, 256 * 2**20, 512 * 2**20,
                                                                       32 * 2**20, 64)


def test_a_zip_asking_for_a_version_python_cannot_read_is_refused(tmp_path):
    """An entry whose "version needed to extract" is 6.4 makes zipfile raise NotImplementedError while it lists the
    entries (found by tests/core/test_fuzz.py): refused as a damaged zip, never a traceback."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("m/config.json", "{}")
    data = bytearray(buf.getvalue())
    central = data.rindex(b"PK\x01\x02")
    data[central + 6:central + 8] = (64).to_bytes(2, "little")  # version needed to extract: 6.4
    with pytest.raises(CheckpointError) as e:
        extract_zip(bytes(data), tmp_path / "out")
    assert e.value.code == "not_zip"
