"""Keeping a world in a file across restarts, Telegram's and WhatsApp's alike: a file
is replaced whole (written aside, then renamed), one that cannot be read is set aside,
and a task saves whenever the world changed."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger("emulator")
JSON = dict[str, Any]
SAVE_EVERY = 2.0  # seconds between looks for changes to save


class Changing(Protocol):
    """A world that counts its changes (bumped with each one)."""

    changes: int


def write_whole(path: Path, saved: JSON) -> None:
    """Write `saved` to `path`, aside first and then renamed over it: a crash never
    leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    aside = path.with_name(path.name + ".tmp")
    aside.write_text(json.dumps(saved, ensure_ascii=False))
    os.replace(aside, path)


def read_into(path: Path, restore_: Callable[[JSON], object]) -> bool:
    """Hand what `path` holds to `restore_`; False when there is no such file yet."""
    if not path.exists():
        return False
    restore_(json.loads(path.read_text()))
    return True


def resume_into(
    path: Path, trial: Callable[[JSON], object], restore_: Callable[[JSON], object]
) -> bool:
    """What `path` holds restored into a fresh world first (`trial`: a failure leaves no
    trace), then by `restore_`. A file that cannot be read (of another version, damaged)
    is set aside as `<name>.old` and the world starts afresh (False)."""
    if not path.exists():
        return False
    try:
        saved = json.loads(path.read_text())
        trial(saved)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        aside = path.with_name(path.name + ".old")
        log.warning("%s cannot be read (%s): set aside as %s", path, error, aside.name)
        os.replace(path, aside)
        return False
    restore_(saved)
    return True


async def keep(world: Changing, save: Callable[[], None], every: float = SAVE_EVERY) -> None:
    """`save()` whenever the world changed, until cancelled (then once more: a stopping
    server's last save that fails is logged, not raised into the shutdown)."""
    saved_at = world.changes
    try:
        while True:
            await asyncio.sleep(every)
            if world.changes != saved_at:
                saved_at = world.changes
                save()
    finally:
        try:
            save()
        except OSError as error:
            log.warning("the last save failed: %s", error)
