"""The training log: one CSV row every few steps, written by train.py and kept in each checkpoint.

    step,train_loss,valid_loss,lr,grad_norm,tokens

train_loss is the mean label-smoothed training loss over the steps since the previous row,
valid_loss the validation loss where validation ran at that step (empty elsewhere), lr the
learning rate of that step, grad_norm the mean global L2 norm of the gradient (before the
optimizer step) since the previous row, tokens the target tokens seen so far. Floats are written
with repr, so a value reads back exactly.

read_log takes a file that may come from anyone (an uploaded zip): it reads at most
MAX_LOG_BYTES, MAX_LOG_ROWS rows, numbers only (no eval, no pickle), and names the line at fault.
"""
from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..checkpoints.safe_load import LOG_FILE, MAX_LOG_BYTES, CheckpointError, size_text

COLUMNS = ("step", "train_loss", "valid_loss", "lr", "grad_norm", "tokens")
HEADER = ",".join(COLUMNS)
MAX_LOG_ROWS = 20_000

_WHOLE = re.compile(r"[0-9]{1,18}")  # int() alone would take '1_000', ' 7' or 4,000 digits
_REAL = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,4})?")  # float() would take 'nan', 'inf'


@dataclass(frozen=True)
class TrainLog:
    """The log's columns; valid_loss is NaN on rows without validation."""
    step: np.ndarray  # int64
    train_loss: np.ndarray  # float64
    valid_loss: np.ndarray  # float64, NaN where empty
    lr: np.ndarray  # float64
    grad_norm: np.ndarray  # float64
    tokens: np.ndarray  # int64

    def __len__(self) -> int:
        return len(self.step)


def format_row(step: int, train_loss: float, valid_loss: float | None, lr: float, grad_norm: float,
               tokens: int) -> str:
    """One line of the log (with its newline); valid_loss None or NaN leaves the field empty."""
    valid = "" if valid_loss is None or math.isnan(valid_loss) else repr(float(valid_loss))
    return f"{int(step)},{float(train_loss)!r},{valid},{float(lr)!r},{float(grad_norm)!r},{int(tokens)}\n"


class LogWriter:
    """The rows of a run so far, and the sums that the next row averages; to_bytes() is the file."""

    def __init__(self, rows: list[str] | None = None, pending: list | None = None):
        self.rows = list(rows or [])
        self.pending = [float(pending[0]), float(pending[1]), int(pending[2])] if pending else [0.0, 0.0, 0]
        self.size = len(HEADER) + 1 + sum(map(len, self.rows))
        self.full = False

    @classmethod
    def resume(cls, log: TrainLog | None, step: int, pending: list | None = None) -> LogWriter:
        """The log of a checkpoint at `step` to go on from: rows after that step are dropped."""
        if log is None:
            return cls(pending=pending)
        rows = [format_row(*values) for values in zip(log.step, log.train_loss, log.valid_loss, log.lr,
                                                        log.grad_norm, log.tokens) if values[0] <= step]
        return cls(rows, pending)

    def add_step(self, train_loss: float, grad_norm: float) -> None:
        """One optimizer step's loss and gradient norm, for the mean of the next row."""
        self.pending = [self.pending[0] + float(train_loss), self.pending[1] + float(grad_norm), self.pending[2] + 1]

    def write_row(self, step: int, lr: float, tokens: int, valid_loss: float | None = None) -> bool:
        """Append the row of `step` (means over the steps since the last row); False once the log is full."""
        loss, norm, count = self.pending
        line = format_row(step, loss / max(count, 1), valid_loss, lr, norm / max(count, 1), tokens)
        self.pending = [0.0, 0.0, 0]
        if len(self.rows) >= MAX_LOG_ROWS or self.size + len(line) > MAX_LOG_BYTES:
            if not self.full:
                print(f"{LOG_FILE} is full ({MAX_LOG_ROWS:,} rows or {size_text(MAX_LOG_BYTES)}): "
                      f"no rows after step {step - 1}; use a larger --log-every.", file=sys.stderr)
            self.full = True
            return False
        self.rows.append(line)
        self.size += len(line)
        return True

    def to_bytes(self) -> bytes:
        return (HEADER + "\n" + "".join(self.rows)).encode("ascii")


def read_log(folder: Path) -> TrainLog | None:
    """The log in `folder`, checked field by field; None if there is none. CheckpointError if it is bad."""
    path = Path(folder) / LOG_FILE
    if not path.exists() and not path.is_symlink():
        return None
    try:
        if not path.is_file():
            raise CheckpointError(f"{LOG_FILE} is not a regular file.", code="not_regular_file",
                                  fields={"file": LOG_FILE})
        size = path.stat().st_size
        if size > MAX_LOG_BYTES:
            raise CheckpointError(f"{LOG_FILE} is {size_text(size)}, over the limit of {size_text(MAX_LOG_BYTES)}.",
                                  "limit", "file_too_big",
                                  {"file": LOG_FILE, "size": size_text(size), "limit": size_text(MAX_LOG_BYTES)})
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)  # a file that grew since stat() is still cut at the limit
    except OSError as e:
        raise CheckpointError(f"{LOG_FILE} cannot be read ({e.strerror}).", code="file_unreadable",
                              fields={"path": LOG_FILE}) from None
    return parse_log(data)


def parse_log(data: bytes) -> TrainLog:
    """The log held in `data` (a whole file's bytes); CheckpointError naming the first bad line."""
    if len(data) > MAX_LOG_BYTES:
        raise CheckpointError(f"{LOG_FILE} is over the limit of {size_text(MAX_LOG_BYTES)}.", "limit",
                              "file_over_limit", {"file": LOG_FILE, "limit": size_text(MAX_LOG_BYTES)})
    if data.count(b"\n") > MAX_LOG_ROWS + 1:
        raise CheckpointError(f"{LOG_FILE} has more than {MAX_LOG_ROWS:,} rows.", "limit", "log_rows",
                              {"file": LOG_FILE, "most": MAX_LOG_ROWS})
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as e:
        raise CheckpointError(f"{LOG_FILE}: byte {e.start} is not plain ASCII text.", code="log_not_ascii",
                              fields={"file": LOG_FILE, "byte": e.start}) from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]  # a log saved on Windows
    if not lines or lines[0] != HEADER:
        raise CheckpointError(f"{LOG_FILE} line 1: the header must be exactly '{HEADER}'.", code="log_header",
                              fields={"file": LOG_FILE, "header": HEADER})
    if len(lines) - 1 > MAX_LOG_ROWS:
        raise CheckpointError(f"{LOG_FILE} has {len(lines) - 1:,} rows, over the limit of {MAX_LOG_ROWS:,}.", "limit",
                              "log_rows", {"file": LOG_FILE, "most": MAX_LOG_ROWS})
    rows = [parse_row(line, number) for number, line in enumerate(lines[1:], start=2)]
    check_order(rows)
    columns = list(zip(*rows)) if rows else [()] * len(COLUMNS)
    kinds = (np.int64, np.float64, np.float64, np.float64, np.float64, np.int64)
    return TrainLog(*(np.array(column, dtype=kind) for column, kind in zip(columns, kinds)))


def parse_row(line: str, number: int) -> tuple:
    """(step, train_loss, valid_loss, lr, grad_norm, tokens) of the row on line `number`, each field checked."""
    fields = line.split(",")
    if len(fields) != len(COLUMNS):
        raise CheckpointError(f"{LOG_FILE} line {number}: {len(fields)} fields, not {len(COLUMNS)}.",
                              "invalid", "log_line", {"file": LOG_FILE, "line": number})
    values: list = []
    for name, field in zip(COLUMNS, fields):
        shown = repr(field[:20] + ("…" if len(field) > 20 else ""))
        if name in ("step", "tokens"):
            if not _WHOLE.fullmatch(field):
                raise CheckpointError(f"{LOG_FILE} line {number}: {name} {shown} is not a whole number ≥ 0.",
                                      "invalid", "log_line", {"file": LOG_FILE, "line": number})
            values.append(int(field))
        elif name == "valid_loss" and field == "":
            values.append(math.nan)
        else:
            if not _REAL.fullmatch(field):
                raise CheckpointError(f"{LOG_FILE} line {number}: {name} {shown} is not a finite number.",
                                      "numbers", "log_line", {"file": LOG_FILE, "line": number})
            value = float(field)
            if not math.isfinite(value):
                raise CheckpointError(f"{LOG_FILE} line {number}: {name} {shown} is not a finite number.",
                                      "numbers", "log_line", {"file": LOG_FILE, "line": number})
            if value < 0:
                raise CheckpointError(f"{LOG_FILE} line {number}: {name} {shown} is negative.",
                                      "numbers", "log_line", {"file": LOG_FILE, "line": number})
            values.append(value)
    return tuple(values)


def check_order(rows: list[tuple]) -> None:
    """Steps start at 1 or later and go up; the token count never goes down (rows start on line 2)."""
    last_step, last_tokens = 0, 0
    for number, (step, *_, tokens) in enumerate(rows, start=2):
        if step <= last_step:
            said = "must be at least 1" if number == 2 else f"does not follow step {last_step}"
            raise CheckpointError(f"{LOG_FILE} line {number}: step {step} {said}.",
                                  "invalid", "log_line", {"file": LOG_FILE, "line": number})
        if tokens < last_tokens:
            raise CheckpointError(f"{LOG_FILE} line {number}: tokens {tokens} is fewer than the {last_tokens} before it.",
                                  "invalid", "log_line", {"file": LOG_FILE, "line": number})
        last_step, last_tokens = step, tokens
