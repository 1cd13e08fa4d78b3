"""docs/scaling.md's table of settings says what the service does: each is a setting of
service/settings.py, with the default it has there."""

from __future__ import annotations

import re

from service.settings import Settings
from tests.deploy.conftest import ROOT, SETTINGS

DOC = ROOT / "docs" / "scaling.md"
ROW = re.compile(r"^\| `(BURRO_\w+)` \| ([^|]+) \|", flags=re.MULTILINE)


def documented() -> dict[str, str]:
    section = DOC.read_text().split("## The settings", 1)[1].split("\n## ", 1)[0]
    return {name: default.strip() for name, default in ROW.findall(section)}


def test_every_documented_setting_is_one_with_that_default() -> None:
    rows = documented()
    assert {"BURRO_REDIS_URL", "BURRO_REDIS_CLUSTER", "BURRO_JOBS_REDIS_URL",
            "BURRO_DURABLE_REPLICAS", "BURRO_DURABLE_WAIT_MS"} <= set(rows)  # fmt: skip
    assert set(rows) <= SETTINGS
    fields = Settings.model_fields
    for name, default in rows.items():
        value = fields[name.removeprefix("BURRO_").lower()].default
        if value is None:
            assert not re.fullmatch(r"`[^`]*`", default), name  # in words: what None means
        elif isinstance(value, bool):
            assert default == f"`{int(value)}`", name
        else:
            assert default == f"`{value}`", name
