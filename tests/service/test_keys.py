"""Every Redis key is built in service.infra.keys: the service, the workers and the
command line build none of their own (an f-string key, a prefix joined with `+`, a
fixed key spelt out), and the builders give the strings stored data has always had."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from service.infra import keys

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("service", "workers", "cli")
PREFIXES = "game|user|chat|wa|stats|open|limit|cooldown|update|rooms|sync|presses|bot|notices?"
FIXED = (
    "rooms:due|rooms:idle|rooms:timers|sync:pending|presses:pending"
    "|bot:username|bot:inline|limit:bot|wa:next"
)
KEY = re.compile(
    rf"""f["']({PREFIXES}):"""  # f"user:{…}"
    rf"""|["']({PREFIXES}):[\w:]*["']\s*\+"""  # "user:" + …
    rf"""|["']({FIXED})["']"""  # "rooms:due"
)


def keys_built_outside() -> dict[str, list[str]]:
    """The lines that build a key of their own, by file (relative to the repository)."""
    found: dict[str, list[str]] = {}
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if name == "service/infra/keys.py":
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [f"{n}: {line.strip()}" for n, line in enumerate(lines, 1) if KEY.search(line)]
            if hits:
                found[name] = hits
    return found


def test_no_key_is_built_outside_the_keys_module() -> None:
    found = keys_built_outside()
    assert not found, f"build these keys with service.infra.keys: {found}"


def test_the_check_finds_each_way_of_spelling_a_key() -> None:
    spelt = ['f"user:{uid}"', "f'wa:seq:{p}'", '"stats:chat:" + str(c)', 'get("rooms:due")']
    assert all(KEY.search(line) for line in spelt)
    fields = ['f"top:{chat}"', 'f"{user}:turn"', 'f"hand:{user}"', '"play:" + card']
    assert not any(KEY.search(line) for line in fields)


@pytest.mark.parametrize(
    ("build", "arg", "key"),
    [
        (keys.room_key, "r1", "game:{r1}:room"),
        (keys.live_key, "r1", "game:{r1}:live"),
        (keys.moves_key, "r1", "game:{r1}:moves"),
        (keys.presses_key, "r1", "game:{r1}:presses"),
        (keys.msgs_key, "r1", "game:{r1}:msgs"),
        (keys.sent_key, "r1", "game:{r1}:sent"),
        (keys.blocked_notices_key, "r1", "game:{r1}:blocked_notices"),
        (keys.user_key, 7, "user:7"),
        (keys.user_rooms_key, 7, "user:7:rooms"),
        (keys.user_chats_key, 7, "user:7:chats"),
        (keys.user_stats_key, 7, "stats:user:7"),
        (keys.chat_stats_key, -5, "stats:chat:-5"),
        (keys.user_open_key, 7, "open:user:7"),
        (keys.user_seated_key, 7, "open:seated:7"),
        (keys.chat_open_key, -5, "open:chat:-5"),
        (keys.chatter_cooldown_key, 7, "cooldown:chatter:7"),
        (keys.update_key, 42, "update:42"),
        (keys.update_key, "wa:abc", "update:wa:abc"),
        (keys.chat_limit_key, -5, "limit:chat:-5"),
        (keys.group_limit_key, -5, "limit:group:-5"),
        (keys.notice_key, "n1", "notice:n1"),
        (keys.notices_key, -5, "notices:-5"),
        (keys.wa_update_id, "wamid.X", "wa:wamid.X"),
        (keys.wa_id_key, "BR.abc", "wa:id:BR.abc"),
        (keys.wa_seq_key, 9, "wa:seq:9"),
        (keys.wa_pace_key, 9, "wa:pace:9"),
        (keys.wa_template_key, 9, "wa:template:9"),
        (keys.wa_stale_key, "wamid.X", "wa:stale:wamid.X"),
    ],
)
def test_each_key_is_spelt_as_stored_data_has_it(
    build: Callable[[object], str], arg: object, key: str
) -> None:
    assert build(arg) == key


def test_the_keys_with_several_parts_are_spelt_as_stored() -> None:
    assert keys.chat_key(-5, None) == "chat:-5:0"
    assert keys.chat_key(-5, 12) == "chat:-5:12"
    assert keys.rules_cooldown_key(-5, None) == "cooldown:rules:-5:0"
    assert keys.lock_key("r1", "hand:7") == "game:{r1}:lock:hand:7"
    assert keys.room_part_key("r1", "sent") == "game:{r1}:sent"
    assert keys.room_of_key("game:{r1}:msgs") == "r1"
    assert keys.chat_pattern(-5) == "chat:-5:*"
    assert keys.msgs_pattern("sent") == "game:{*}:sent"
    fixed = [keys.DUE_KEY, keys.IDLE_KEY, keys.TIMERS_KEY, keys.PENDING_SYNC]
    assert fixed == ["rooms:due", "rooms:idle", "rooms:timers", "sync:pending"]
    assert keys.PENDING_PRESSES == "presses:pending"
    assert [keys.BOT_USERNAME, keys.BOT_INLINE, keys.BOT_LIMIT, keys.WA_NEXT] == [
        "bot:username",
        "bot:inline",
        "limit:bot",
        "wa:next",
    ]
