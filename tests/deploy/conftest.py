"""Deployment files, checked without Docker or a cluster: schemas, linters and the
facts the files must agree on (ports, settings names, probes, selectors)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {f"BURRO_{name.upper()}" for name in Settings.model_fields}


def unknown_settings(names: Iterable[object]) -> set[str]:
    """BURRO_* names that no setting reads (a typo would be silently ignored)."""
    return {n for n in names if isinstance(n, str) and n.startswith("BURRO_")} - SETTINGS
