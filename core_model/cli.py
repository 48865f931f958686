"""What the command-line entry points share: a parser whose errors stay one short line, number
and file checks for its arguments, and bad input reported as `error: ...` instead of a traceback."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .checkpoints import CheckpointError

SHOWN = 200  # characters of a bad value quoted back: a 100,000-character argument is not echoed whole
MAX_SEED = 2**32 - 1  # what every seeded generator here accepts (numpy's limit is the lowest)
BAD_INPUT = (CheckpointError, OSError)  # what a wrong path or a damaged file raises


def shorten(text: str, limit: int = SHOWN) -> str:
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


class Parser(argparse.ArgumentParser):
    """argparse with its error line shortened (argparse quotes the whole bad value)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {shorten(message, 2 * SHOWN)}\n")


def whole(low: int, high: int | None = None):
    """An argparse type: a whole number from `low` to `high` (no upper limit if None)."""
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{shorten(raw)!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"at least {low}" if high is None else f"from {low} to {high}"
            raise argparse.ArgumentTypeError(f"{shorten(raw)} is out of range: it must be {span}")
        return value
    return parse


def path(raw: str) -> Path:
    """An argparse type: a path the system can take (a name too long fails here, not after a long run)."""
    try:
        Path(raw).exists()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"{shorten(raw)}: {e.strerror}") from None
    return Path(raw)


def writable(raw: str) -> str:
    """An argparse type: a file that can be written, checked now rather than after a long run."""
    target = Path(raw)
    try:
        existed = target.exists()
        with open(target, "a", encoding="utf-8"):  # "a" leaves an existing file as it is
            pass
        if not existed:
            target.unlink()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write {shorten(raw)}: {e.strerror}") from None
    return raw


def fail(error: BaseException) -> int:
    """Say what went wrong in one line on stderr; the exit code for bad input."""
    if isinstance(error, OSError) and error.filename is not None:
        message = f"{error.strerror}: {shorten(error.filename)}"
    else:
        message = shorten(" ".join(str(error).split()), 2 * SHOWN)
    print(f"error: {message}", file=sys.stderr)
    return 2
