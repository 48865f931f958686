"""Your own model: a zipped checkpoint folder uploaded, or a checkpoint folder on the server's disk.

core_model.checkpoints unpacks the zip (or copies the folder) with every check, core_model.checkpoints.probe tries
it in a child process held to a time and a memory limit; the files then go into OWN_DIR under a name made
of their content hash (OWN_PREFIX and the hash), and load like a shipped model: viz_app.loaders asks this
module where they are (folder_of), and the sidebar hands it the loader that caches them (load_model), so
this module never imports the loaders back. The folder box is there only when whoever runs the server names
one folder that visitors may read models from (ROOT_SETTING), and no path outside it is read, or said to exist.
Each session lists its own models in its session state, so another session is offered one only
if it brings the very same files (and then shares the cached model, which is the same).
"""
from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
import time
from functools import partial
from pathlib import Path

import streamlit as st
from streamlit.runtime.memory_uploaded_file_manager import MemoryUploadedFileManager
from streamlit.runtime.scriptrunner import get_script_run_ctx
from streamlit.runtime.uploaded_file_manager import DeletedFile

from core_model import checkpoints
from core_model.checkpoints import probe
from core_model.messages import CodedError

from . import fair
from .errors import message
from .i18n import t
from .text import literal

OWN = "own_models"  # session state: {model name: its title in the model list}
MESSAGE = "own_message"  # session state: (kind, i18n key, fields) of the last attempt, shown once
FOLDER = "own_folder"  # the folder-path text input
UPLOADS = "own_uploads"  # zips handled so far; a new uploader key after each empties the widget
MAX_UPLOAD_MB = checkpoints.MAX_ZIP_BYTES // 2**20
MAX_FOLDERS = 8  # own models kept on disk, for all sessions together (the most recently brought)
MAX_DISK_BYTES = 2 * 2**30  # and their files together at most (each model's within the loader's 256 MB unpacked)
MAX_LOADED = 4  # own models in memory at once, for all sessions (viz_app.loaders.models._load_own)
PER_SESSION = 3  # models one session brought that stay on disk: its next one removes its oldest
MADE = "own_made"  # session state: the models this session brought first (their folders are its), oldest first
REMOVED = "own_removed"  # session state: (i18n key, fields) saying which models left the session's list, said once
STALE_SECONDS = 3600  # an unpacking folder this old was left by a server that stopped midway
ROOT_SETTING = "ATTENTION_VIZ_MODEL_ROOT"  # environment variable: the one folder the folder box may read from
LOG = logging.getLogger(__name__)
# Named by their content, so an own model's cached model and traces serve only sessions that brought the same files.
OWN_PREFIX = "own-"
OWN_DIR = Path(tempfile.gettempdir()) / "attention-viz-own-models"


def is_own(name: str) -> bool:
    """A model someone brought (named by content_name), not a shipped one."""
    return name.startswith(OWN_PREFIX)


def session_model_is_own() -> bool:
    """The session's model is one someone brought (False outside a session)."""
    try:
        return is_own(str(st.session_state.get("model", "")))
    except Exception:  # noqa: BLE001 - no session behind this thread
        return False


def folder_of(name: str) -> Path:
    """Where the own model `name` is kept."""
    return OWN_DIR / name


def folder_root() -> Path | None:
    """The folder whoever runs the server lets visitors load checkpoints from, or None (no folder box)."""
    raw = os.environ.get(ROOT_SETTING, "").strip()
    return Path(raw).resolve() if raw else None


def inside(root: Path, typed: str) -> Path | None:
    """The folder `typed` names inside `root`, relative to it or absolute, with `..` and links resolved;
    None if it lies outside. Nothing is expanded: "~" and "$HOME" are names like any other."""
    if "\0" in typed:
        return None
    path = (root / typed).resolve()  # an absolute `typed` replaces root; the check below then decides
    return path if path.is_relative_to(root) else None


def models() -> list[str]:
    """This session's own models, in the order they were brought; one the server no longer keeps is dropped first
    (drop_removed)."""
    drop_removed()
    return list(st.session_state.get(OWN, {}))


def drop_removed() -> None:
    """This session's own models whose folders are gone (prune keeps the MAX_FOLDERS most recently brought, for all
    sessions together) leave the model list; the session is told which, in words, and a page that showed one shows
    the first model instead. Before, every page showed an error quoting the server's folder."""
    own = st.session_state.get(OWN, {})
    gone = [name for name in own if not folder_of(name).is_dir()]
    if not gone:
        return
    st.session_state[OWN] = {name: title for name, title in own.items() if name not in gone}
    if st.session_state.get("model") in gone:
        st.session_state.pop("model")  # the sidebar then opens on the first model
    if st.query_params.get("model") in gone:
        del st.query_params["model"]  # said here: the link's stale model is not said again
    titles = ", ".join(own[name] for name in gone)
    st.session_state[REMOVED] = ("own.removed", {"source": titles, "n": MAX_FOLDERS})


def labels():
    """How the model list shows a name: a shipped model by its folder, an own one by its title.

    The labels are fixed when called, so the function also works outside a script run (as AppTest calls it).
    """
    own = {name: t("own.label", name=title) for name, title in st.session_state.get(OWN, {}).items()}
    return lambda name: own.get(name, name)


def content_name(folder: Path) -> str:
    """'own-' and the hash of the folder's files, names and bytes: the same files get the same name."""
    digest = hashlib.sha256()
    for f in sorted(folder.iterdir()):
        digest.update(f"{f.name}\0{f.stat().st_size}\0".encode())
        with open(f, "rb") as fh:
            while chunk := fh.read(2**20):
                digest.update(chunk)
    return OWN_PREFIX + digest.hexdigest()[:24]


def bring_in(fill, source: str, load, private: tuple[Path, ...] = (), waiting=None) -> tuple[str, bool]:
    """Let fill(folder) write a checkpoint into a new folder, try it in a bounded child process
    (core_model.checkpoints.probe), name it by content and load it with load(name) (the cached loader, so
    the first page that reads it finds it loaded); return the name, and whether its folder is new (not brought
    before by anyone).

    Raises CheckpointError (naming `source`, never a folder of the server: the temporary ones, nor those
    in `private`) if anything is wrong, and then leaves nothing of it on disk, whatever went wrong. The probes take
    turns (probe.LINE); `waiting(place)` hears this one's place in line while it waits.
    """
    OWN_DIR.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=OWN_DIR))
    target = made = None
    try:
        fill(staging)
        with fair.stepped_aside():  # the check is a child's, and may wait in line: this address's other runs go
            probe.check(staging, waiting)
        name = content_name(staging)
        target = folder_of(name)
        try:
            os.replace(staging, target)
            made = target
        except OSError:  # a folder of that name holds the very same files: brought before, or just now by another session
            if not target.is_dir():
                raise
        load(name)
    except BaseException as e:
        if made is not None:
            shutil.rmtree(made, ignore_errors=True)
        if isinstance(e, checkpoints.CheckpointError):
            hidden = [str(f) for f in (staging, target, OWN_DIR, *private) if f is not None]
            fields = {k: reworded(v, hidden, source) if isinstance(v, str) else v for k, v in e.fields.items()}
            raise checkpoints.CheckpointError(reworded(str(e), hidden, source), e.kind, e.code, fields) from None
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    os.utime(target)  # the most recently brought are the ones kept
    prune()
    return name, made is not None


def reworded(reason: str, hidden: list[str], source: str) -> str:
    """A loader's reason with the server's folders replaced by what the user gave (a file name or a path)."""
    for folder in sorted(hidden, key=len, reverse=True):
        reason = reason.replace(folder, source)
    return reason


def prune() -> None:
    """Keep the MAX_FOLDERS most recently brought models on disk, and no stale half-unpacked folder."""
    def age(p: Path) -> float:  # another server process may remove a folder meanwhile
        try:
            return time.time() - p.stat().st_mtime
        except OSError:
            return 0.0

    folders = sorted(OWN_DIR.iterdir(), key=age)
    own = [p for p in folders if is_own(p.name)]
    stale = [p for p in folders if p.name.startswith(".incoming-") and age(p) > STALE_SECONDS]
    kept, total = 0, 0
    for p in own:  # newest first: the newest is always kept
        total += sum(f.stat().st_size for f in p.rglob("*") if f.is_file())
        kept += 1
        if kept > 1 and (kept > MAX_FOLDERS or total > MAX_DISK_BYTES):
            stale.append(p)
    for p in stale:
        shutil.rmtree(p, ignore_errors=True)


def made_by_session(name: str, made: bool) -> None:
    """Count a model this session brought first (`made`: its folder is new); past PER_SESSION, the session's oldest
    such folder is removed (and leaves its list), so that one visitor cannot take every place on the server's disk;
    the session is told, in words."""
    if not made:
        return
    mine = [n for n in st.session_state.get(MADE, []) if n != name] + [name]
    oldest, own = mine[:-PER_SESSION], st.session_state.get(OWN, {})
    for old in oldest:
        shutil.rmtree(folder_of(old), ignore_errors=True)
    st.session_state[MADE] = mine[-PER_SESSION:]
    st.session_state[OWN] = {n: title for n, title in own.items() if n not in oldest}
    titles = ", ".join(own[n] for n in oldest if n in own)
    if titles:
        st.session_state[REMOVED] = ("own.replaced", {"source": titles, "n": PER_SESSION})


def add(fill, source: str, title: str, load, private: tuple[Path, ...] = ()) -> None:
    """Bring a model in (loaded with load(name)) and select it; if that fails, for any reason, say why in one
    short message in the user's language and leave everything else as it was."""
    told = st.empty()  # while other uploads are checked first: this one's place in line
    try:
        name, made = bring_in(fill, source, load, private, lambda place: told.info(t("own.waiting", place=place)))
    except checkpoints.CheckpointError as e:
        reason = {"message": str(e), "code": e.code, "fields": e.fields}  # worded when shown, in the language then
        st.session_state[MESSAGE] = ("error", "own.failed", {"source": source, "why": e.kind, "reason": reason})
        return
    except Exception as e:  # an OSError (a full disk), or anything a loader did not foresee: logged, not shown
        LOG.exception("bringing in %s failed", source)
        reason = {"message": type(e).__name__, "code": "", "fields": {}}
        st.session_state[MESSAGE] = ("error", "own.failed", {"source": source, "why": "crash", "reason": reason})
        return
    finally:
        told.empty()
    st.session_state[OWN] = {**st.session_state.get(OWN, {}), name: title}
    made_by_session(name, made)
    st.session_state["model"] = name
    st.session_state["tgt"] = ""  # a target typed for the previous model; the sentence stays
    st.session_state[MESSAGE] = ("success", "own.loaded", {"source": source})


def add_zip(data: bytes, filename: str, load) -> None:
    add(partial(checkpoints.extract_zip, data), filename, Path(filename).stem or filename, load)


def add_folder(typed: str, load) -> None:
    root = folder_root()
    folder = inside(root, typed) if root is not None else None
    if folder is None:  # the same words whether or not such a path exists
        st.session_state[MESSAGE] = ("error", "own.outside", {"source": typed})
        return
    add(partial(checkpoints.copy_folder, folder), typed, folder.name or typed, load, (folder,))


def forget(upload) -> None:
    """Drop the upload's bytes from Streamlit's store, as st.chat_input does; else they stay until the session ends."""
    ctx = get_script_run_ctx()
    if ctx is not None and isinstance(ctx.uploaded_file_mgr, MemoryUploadedFileManager):
        ctx.uploaded_file_mgr.remove_file(session_id=ctx.session_id, file_id=upload.file_id)


def on_upload(key: str, load) -> None:
    upload = st.session_state.get(key)
    if isinstance(upload, DeletedFile):  # a client named a file the server does not hold (a crafted widget state)
        st.session_state[MESSAGE] = ("error", "own.no_file", {})
        st.session_state[UPLOADS] = st.session_state.get(UPLOADS, 0) + 1
    elif upload is not None:
        data, name = upload.getvalue(), upload.name
        forget(upload)
        st.session_state[UPLOADS] = st.session_state.get(UPLOADS, 0) + 1  # a new, empty uploader for the next zip
        add_zip(data, name, load)


def on_folder(load) -> None:
    path = st.session_state.get(FOLDER, "").strip()
    if path:
        add_folder(path, load)


def render(sb, load) -> None:
    """The sidebar's 'Your own model' expander: a zip to upload, or the path of a folder on the server.

    load(name) loads a model brought in and keeps it (viz_app.loaders.load_model), called back by the widgets."""
    message, removed = st.session_state.pop(MESSAGE, None), st.session_state.pop(REMOVED, None)
    with sb.expander(t("own.title"), expanded=message is not None or removed is not None):
        key = f"own_upload_{st.session_state.get(UPLOADS, 0)}"
        st.file_uploader(t("own.upload"), type=["zip"], key=key, on_change=on_upload, args=(key, load),
                         help=t("own.upload.help", mb=MAX_UPLOAD_MB), max_upload_size=MAX_UPLOAD_MB)
        if folder_root() is not None:
            st.text_input(t("own.folder"), key=FOLDER, on_change=on_folder, args=(load,), help=t("own.folder.help"),
                          max_chars=1000)
        if removed:
            show("warning", *removed)
        if message:
            show(*message)


def show(kind: str, text_key: str, fields: dict) -> None:
    """The last attempt's outcome. The file name, the path and a loader's reason quote what the user gave:
    shown as typed, never as Markdown; why the model was refused, and the reason, in the user's language."""
    quoted = {k: literal(v) for k, v in fields.items() if k not in ("why", "reason")}
    if "why" in fields:
        quoted["why"] = t(f"own.why.{fields['why']}")
    if "reason" in fields:
        reason = fields["reason"]
        quoted["reason"] = message(CodedError(reason["message"], reason["code"], reason["fields"]), literal)
    {"error": st.error, "warning": st.warning}.get(kind, st.success)(t(text_key, **quoted))
