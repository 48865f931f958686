"""A checkpoint a user brings: an uploaded zip, or a folder to copy.

extract_zip and copy_folder write only the files a load reads (folder.read: files() and the weight shards), each
under its bare name, within size limits, and never where the zip says; load_zip then loads the result with every
check of folder.load.
"""
from __future__ import annotations

import io
import os
import stat
import zipfile
import zlib
from pathlib import Path

from ..messages import shortened
from .folder import check_files, files, load, read, refuse_pickles
from .safe_load import CONFIG, CheckpointError, Loaded, size_text


MAX_ZIP_BYTES = 128 * 2**20  # an uploaded zip
MAX_UNPACKED_BYTES = 256 * 2**20  # what a zip may unpack to, and what a copied folder may hold
MAX_ZIP_ENTRIES = 64  # a checkpoint folder has eight files at most (folder.files())
MAX_ZIP_DIRECTORY = 256 * 2**10  # zipfile parses a zip's whole list of entries at once: 7 s for 200,000
MACOS_EXTRAS = ("__MACOSX", ".DS_Store")  # what macOS's Finder adds to every zip it makes


def load_zip(data: bytes, dest) -> Loaded:
    """Unpack a zipped checkpoint folder into the new folder `dest` and load it, checking everything."""
    return load(extract_zip(data, dest))


def extract_zip(data: bytes, dest) -> Path:
    """Unpack a zipped checkpoint folder into the new folder `dest` and return it; refuse anything unsafe.

    Only the files a load reads (folder.read) are written, each under its bare name, never under the
    zip's path for it; the rest is skipped unread. Sizes are checked as the zip declares them and
    again as the bytes come out, so a zip bomb stops at the limit.
    """
    if len(data) > MAX_ZIP_BYTES:
        raise CheckpointError(f"the zip is {size_text(len(data))}, over the limit of {size_text(MAX_ZIP_BYTES)}.",
                              "limit", "zip_too_big", {"size": size_text(len(data)), "limit": size_text(MAX_ZIP_BYTES)})
    listing = directory_size(data)
    if listing > MAX_ZIP_DIRECTORY:
        raise CheckpointError(f"the zip's list of entries takes {size_text(listing)}, far more than a checkpoint "
                              f"folder's few files need (at most {size_text(MAX_ZIP_DIRECTORY)}).", "limit",
                              "zip_listing", {"size": size_text(listing), "limit": size_text(MAX_ZIP_DIRECTORY)})
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, EOFError, NotImplementedError):  # NotImplementedError: an entry
        raise CheckpointError(NOT_A_ZIP, code="not_zip") from None  # needs a zip version beyond Python's (6.3)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with archive:
        budget = MAX_UNPACKED_BYTES
        for name, info in zip_members(archive.infolist()).items():
            too_big = CheckpointError(f"{info.filename} in the zip unpacks to more than the {info.file_size:,} "
                                      "bytes it declares.", "limit", "zip_entry_grew",
                                      {"entry": shortened(info.filename, 80), "n": info.file_size})
            try:
                with archive.open(info) as source:
                    budget -= copy_bounded(source, dest / name, min(info.file_size, budget), too_big)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError, zlib.error) as e:
                raise CheckpointError(f"{info.filename} in the zip cannot be unpacked ({e}).", code="zip_entry_broken",
                                      fields={"entry": shortened(info.filename, 80)}) from None
    return dest


NOT_A_ZIP = "the file is not a zip archive (or the zip is damaged)."


def directory_size(data: bytes) -> int:
    """The size of the zip's list of entries, from its end record (22 bytes and a comment, at the end), or, where that
    says 0xFFFFFFFF (a zip64: some tools write one for any zip), from the zip64 end record its locator points to."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 65535))
    if end < 0 or end + 22 > len(data):
        raise CheckpointError(NOT_A_ZIP, code="not_zip")
    size = int.from_bytes(data[end + 12:end + 16], "little")
    locator = end - 20  # the zip64 locator: its signature, a disk number, then the zip64 end record's offset
    if size != 0xFFFFFFFF or locator < 0 or data[locator:locator + 4] != b"PK\x06\x07":
        return size
    record = int.from_bytes(data[locator + 8:locator + 16], "little")
    if record + 56 > locator or data[record:record + 4] != b"PK\x06\x06":
        raise CheckpointError(NOT_A_ZIP, code="not_zip")
    return int.from_bytes(data[record + 40:record + 48], "little")  # the list's size, 8 bytes


def zip_members(infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """The entries a load reads, by bare name, once every entry's path, kind and size is checked."""
    if len(infos) > MAX_ZIP_ENTRIES:
        raise CheckpointError(f"the zip holds {len(infos)} entries, more than the {MAX_ZIP_ENTRIES} allowed; "
                              f"a checkpoint folder has at most {len(files())} files.", "limit", "zip_entries",
                              {"n": len(infos), "most": MAX_ZIP_ENTRIES, "files": len(files())})
    declared = sum(i.file_size for i in infos)
    if declared > MAX_UNPACKED_BYTES:
        raise CheckpointError(f"the zip unpacks to {size_text(declared)}, over the limit of {size_text(MAX_UNPACKED_BYTES)}.",
                              "limit", "zip_unpacked_too_big",
                              {"size": size_text(declared), "limit": size_text(MAX_UNPACKED_BYTES)})
    entries = []  # (entry, its path's parts): a list, as a zip may hold two entries of one name
    for info in infos:
        parts = entry_parts(info)
        # parts first: ZipInfo.is_dir() reads the name's last letter, and an entry's name may be empty
        if parts and not info.is_dir() and parts[0] not in MACOS_EXTRAS and parts[-1] not in MACOS_EXTRAS:
            entries.append((info, parts))
    deep = [info.filename for info, parts in entries if len(parts) > 2]
    places = {tuple(parts[:-1]): info.filename for info, parts in entries}  # folder -> one entry in it
    if deep or len(places) > 1:
        where = f"{deep[0]!r} is nested deeper" if deep else "it mixes {!r} and {!r}".format(*list(places.values())[:2])
        raise CheckpointError(f"the zip must hold the checkpoint's files at its top level or in one folder, but {where}.",
                              code="zip_layout", fields={"entry": shortened((deep or list(places.values()))[0], 80)})
    names = [parts[-1] for _, parts in entries]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CheckpointError(f"the zip holds {twice[0]} twice.", code="zip_twice",
                              fields={"file": shortened(twice[0], 80)})
    refuse_pickles(names)
    if CONFIG not in names:
        raise CheckpointError(f"the zip has no {CONFIG}, so it holds no checkpoint folder.", code="zip_no_config",
                              fields={"file": CONFIG})
    by_name = {parts[-1]: info for info, parts in entries}
    return {name: by_name[name] for name in read(by_name)}


def entry_parts(info: zipfile.ZipInfo) -> list[str]:
    """The parts of an entry's path, once an entry that could write outside its folder is refused."""
    name = info.filename
    path = name.replace("\\", "/")  # zips made on Windows may use either separator
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise CheckpointError(f"the zip entry {name!r} has an absolute path, which could write anywhere on the disk.",
                              "unsafe", "zip_absolute", {"entry": shortened(name, 80)})
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise CheckpointError(f"the zip entry {name!r} climbs out of its folder with '..'.", "unsafe", "zip_climbs",
                              {"entry": shortened(name, 80)})
    if stat.S_ISLNK(info.external_attr >> 16):
        raise CheckpointError(f"the zip entry {name!r} is a symbolic link, which could point anywhere on the disk.",
                              "unsafe", "zip_link", {"entry": shortened(name, 80)})
    if info.flag_bits & 0x1:
        raise CheckpointError(f"the zip entry {name!r} is encrypted.", code="zip_encrypted",
                              fields={"entry": shortened(name, 80)})
    return parts


def copy_bounded(source, target: Path, limit: int, too_big: CheckpointError | str) -> int:
    """Copy the binary stream `source` into the new file `target`; past `limit` bytes, stop and refuse."""
    written = 0
    with open(target, "xb") as out:
        while chunk := source.read(2**20):
            written += len(chunk)
            if written > limit:
                raise too_big if isinstance(too_big, CheckpointError) else CheckpointError(too_big, "limit")
            out.write(chunk)
    return written


def copy_folder(src, dest) -> Path:
    """Copy the files a load reads from the checkpoint folder `src` into the new folder `dest`.

    Together they may hold MAX_UNPACKED_BYTES, as an unpacked zip; nothing else is copied.
    """
    src, dest = Path(src), Path(dest)
    if not src.is_dir():
        raise CheckpointError(f"{src} is not a checkpoint folder.", code="not_folder", fields={"path": str(src)})
    check_files(src)
    names = [n for n in read(os.listdir(src)) if (src / n).is_file()]
    total = sum((src / n).stat().st_size for n in names)
    if total > MAX_UNPACKED_BYTES:
        raise CheckpointError(f"the checkpoint's files add up to {size_text(total)}, "
                              f"over the limit of {size_text(MAX_UNPACKED_BYTES)}.", "limit", "folder_too_big",
                              {"size": size_text(total), "limit": size_text(MAX_UNPACKED_BYTES)})
    dest.mkdir(parents=True, exist_ok=True)
    budget = MAX_UNPACKED_BYTES
    for name in names:
        try:
            with open(src / name, "rb") as source:  # a file that grows meanwhile is stopped at the limit
                grew = CheckpointError(f"{name} grew past the limit while it was copied.", "limit", "file_grew",
                                       {"file": name})
                budget -= copy_bounded(source, dest / name, budget, grew)
        except OSError as e:
            raise CheckpointError(f"{src / name} cannot be read ({e.strerror}).", code="file_unreadable",
                                  fields={"path": str(src / name)}) from None
    return dest
