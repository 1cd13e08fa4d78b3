"""Bad input at the webhook, generated: random JSON, real updates mutated at random
places, oversized fields, unicode oddities, raw bytes, and callback data of every shape.

Whatever comes in: never a 5xx (Redis is up), the game changes only by a legal move of
the player to move, and no traceback reaches a chat or a popup."""

from __future__ import annotations

import json
import string
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.platforms.telegram import callbacks
from service.table.room import Room
from tests.fuzz.conftest import ANA, BEN, Webhook, command
from tests.service.inproc import BOT, GROUP, press

FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
OK = (200, 400, 413)
GROWN = 200_000  # characters at most in a grown string
STRANGER: dict[str, Any] = {
    "id": 100003,
    "is_bot": False,
    "first_name": "Carla",
    "language_code": "en",
}

ODD_TEXT = st.sampled_from(
    [
        "",
        " ",
        "\u200b",  # zero width space
        "\u202eevil",  # right-to-left override
        "\ufeff/burro",  # byte order mark before a command
        "\x00",
        "e\u0301\u0301\u0301",  # combining marks
        "🂡🃏🫏👨‍👩‍👧‍👦",
        "İıßẞ",
        "\ud800",  # a lone surrogate (valid JSON as \\ud800, not valid UTF-8)
        "/burro@burro_bot cangkul",
        "/play " + "x" * 300,
        "/start j" + "a" * 8,
        "/start g\u0661\u0662",
        "/language ☃",
        "٣",  # an Arabic-Indic digit: Python's \\d matches it
        "x" * 5000,
    ]
)
TEXT = st.one_of(ODD_TEXT, st.text(max_size=40))
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)


def ensure_live(webhook: Webhook) -> None:
    """A game in play in the group (the last one may have been played out)."""
    if webhook.room().status != "playing":
        webhook.open_game()


def pressed(update: Any) -> set[tuple[Any, Any]]:
    """(user id, data) of the press or chosen inline result an update carries."""
    found = set()
    if isinstance(update, dict):
        for key, field in (("callback_query", "data"), ("chosen_inline_result", "result_id")):
            part = update.get(key)
            if isinstance(part, dict) and isinstance(part.get("from"), dict):
                found.add((part["from"].get("id"), part.get(field)))
    return found


def check(webhook: Webhook, update: Any, body: bytes | None = None) -> None:
    """Send it; no 5xx, and the game changed only by a legal move of the mover (a move
    `serve` queued counts once applied: settle)."""
    before = webhook.settle()
    legal = set(webhook.legal_presses(before))
    raw = body if body is not None else json.dumps(update).encode()
    answer = webhook.post(raw)
    assert answer.status_code in OK, (answer.status_code, raw[:300])
    after = webhook.settle()
    if after.id == before.id and after != before and not relabelled(before, after):
        assert pressed(update) & legal, f"changed by {raw[:300]!r}"
        assert after.version == before.version + 1


def relabelled(before: Room, after: Room) -> bool:
    """Whether only seats' languages changed (a /language press: lobby.relabel), or the
    table's name (the group's title, as an update brings it: telegram.titles)."""
    if len(before.seats) != len(after.seats):
        return False
    pairs = zip(after.seats, before.seats, strict=True)
    seats = [seat.model_copy(update={"lang": old.lang}) for seat, old in pairs]
    same = after.model_copy(update={"seats": seats, "updated": before.updated, "name": before.name})
    return same.model_dump() == before.model_dump()


# ----- generated updates --------------------------------------------------------------


def templates(webhook: Webhook) -> st.SearchStrategy[dict[str, Any]]:
    room = webhook.room()
    legal = webhook.legal_presses(room)
    datas = [data for _user, data in legal] or ["x"]
    return st.sampled_from(
        [
            command("/burro"),
            command("/play", ANA, ANA["id"]),
            command("/stats"),
            command("/rules cangkul"),
            command("/help", BEN, BEN["id"]),
            command("/export"),
            command("/language", BEN, BEN["id"]),
            press(ANA, datas[0]),
            press(BEN, datas[-1]),
            press(STRANGER, datas[0]),
            press(ANA, callbacks.encode(room.id, room.version, "R"), GROUP),
            press(BEN, "lang:es", BEN["id"]),
            {
                "update_id": 1,
                "inline_query": {"id": "9", "from": BEN, "query": f"g{room.id}", "offset": ""},
            },
            {
                "update_id": 1,
                "chosen_inline_result": {"result_id": datas[0], "from": ANA, "query": "g"},
            },
            {
                "update_id": 1,
                "my_chat_member": {
                    "chat": {"id": GROUP, "type": "supergroup", "title": "Family"},
                    "from": ANA,
                    "date": 0,
                    "old_chat_member": {
                        "status": "member",
                        "user": BOT,
                    },
                    "new_chat_member": {
                        "status": "left",
                        "user": BOT,
                    },
                },
            },
            {"update_id": 1, "edited_message": command("/burro")["message"]},
        ]
    )


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, inner in value.items():
            found += paths(inner, (*prefix, key))
    return found


def mutate(value: Any, path: tuple[Any, ...], how: str, new: Any) -> Any:
    if not path:
        return new if how == "replace" else value
    if not isinstance(value, dict):
        return value
    copy = dict(value)
    key, rest = path[0], path[1:]
    if not rest and how == "delete":
        copy.pop(key, None)
    elif not rest and how == "replace":
        copy[key] = new
    elif not rest and how == "grow" and isinstance(copy.get(key), str):
        # Past the body limit (64 KB), but never gigabytes: three growths of one
        # string, a rare draw, once built a 13 GB body and hung the suite.
        copy[key] = (copy[key] * 1000)[:GROWN]
    else:
        copy[key] = mutate(copy.get(key), rest, how, new)
    return copy


@st.composite
def mutated(draw: st.DrawFn, webhook: Webhook) -> dict[str, Any]:
    update: dict[str, Any] = {**draw(templates(webhook)), "update_id": draw(st.integers(1, 2**52))}
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(paths(update)[1:] or [()]))
        how = draw(st.sampled_from(["replace", "delete", "grow"]))
        update = mutate(update, path, how, draw(JSON))  # a path below the top: still a dict
    return update


def callback_data(webhook: Webhook) -> st.SearchStrategy[str]:
    room = webhook.room()
    ids = st.sampled_from([room.id, room.id.upper(), room.id[:7], room.id + "a", "abcdefgh"])
    versions = st.one_of(
        st.sampled_from([str(room.version), str(room.version + 1), str(room.version - 1),
                         "0", "-1", "٣", "1e3", "9" * 10, ""]),
        st.integers(0, 10**12).map(str),
    )  # fmt: skip
    tokens = st.one_of(
        st.sampled_from(["pAS", "p10H", "pJK", "pZZ", "d", "dl", "dr", "x", "J", "L", "B", "X",
                         "S", "C", "R", "k", "o:timeout", "o:done", "o:", "o:nothing", "N",
                         "p", "p" * 40, "lang:xx"]),
        st.text(alphabet=string.ascii_letters + string.digits + "_:+-", max_size=45),
    )  # fmt: skip
    near = st.tuples(ids, versions, tokens).map(".".join)
    return st.one_of(near, st.text(max_size=80), ODD_TEXT)


# ----- the tests ------------------------------------------------------------------------


@FUZZ
@given(data=st.data())
def test_mutated_updates(webhook: Webhook, data: st.DataObject) -> None:
    ensure_live(webhook)
    check(webhook, data.draw(mutated(webhook)))


@FUZZ
@given(data=st.data())
def test_callback_data_of_every_shape(webhook: Webhook, data: st.DataObject) -> None:
    ensure_live(webhook)
    value = data.draw(callback_data(webhook))
    user = data.draw(st.sampled_from([ANA, BEN, STRANGER]))
    if value.endswith(".K"):  # cancel: a legal action of the table's opener, not a move
        return
    chat = data.draw(st.sampled_from([None, GROUP]))
    check(webhook, press(user, value, chat))


@FUZZ
@given(body=JSON)
def test_any_json(webhook: Webhook, body: Any) -> None:
    ensure_live(webhook)
    check(webhook, body)


@FUZZ
@given(raw=st.one_of(st.binary(max_size=400), st.text(max_size=200).map(str.encode)))
def test_raw_bytes(webhook: Webhook, raw: bytes) -> None:
    ensure_live(webhook)
    check(webhook, None, raw)


def test_what_the_fuzz_found(webhook: Webhook) -> None:
    """Updates the fuzz once broke serve with (PTB keeps a field's odd type as it came):
    a command in the group whose message_id is an object, a press whose id is a list with
    a lone surrogate (the webhook's answer could not be encoded), a language press, a
    language code that is a list. First
    a legal move, which `serve` queues: the language press's change applies it."""
    ensure_live(webhook)
    user, data = webhook.legal_presses(webhook.room())[0]
    webhook.send(press(ANA if user == ANA["id"] else BEN, data, GROUP))
    odd_id = command("/help")
    odd_id["message"]["message_id"] = {"x": 1}
    odd_press = press(ANA, "lang:es", ANA["id"])
    odd_press["callback_query"]["id"] = [{}, ["\ud800"]]
    for update in (odd_id, odd_press, press(BEN, "lang:es", BEN["id"])):
        check(webhook, update)
    # A language code that is not a string (of someone who never chose a language), in
    # a chosen inline result and in a command.
    chosen: dict[str, Any] = {"result_id": "9ngqrwp6.2.p5C", "query": "g"}
    chosen["from"] = {**STRANGER, "id": 100009, "language_code": [None]}
    odd_command = command("/help")
    odd_command["message"]["from"] = {**STRANGER, "id": 100010, "language_code": {"x": 1}}
    for update in ({"update_id": 1, "chosen_inline_result": chosen}, odd_command):
        check(webhook, update)


def test_oversized_bodies_and_fields(webhook: Webhook) -> None:
    ensure_live(webhook)
    huge = command("/burro " + "x" * 70_000)
    assert webhook.send(huge).status_code == 413  # over max_body_bytes (64 KiB here)
    room = webhook.room()
    for text in ("/stats " + "🫏" * 10_000, "/rules " + "\u202e" * 20_000):
        check(webhook, command(text))
    data = callbacks.encode(room.id, room.version, "R")
    check(webhook, {**press(ANA, data), "extra": ["z" * 50_000]})
    for depth in (100, 5000, 12_000):  # nested beyond what a JSON parser recurses into
        deep = '{"a":' * depth + "1" + "}" * depth
        check(webhook, None, f'{{"update_id": 6, "message": {deep}}}'.encode())
        check(webhook, None, f'{{"update_id": 7, "callback_query": {{"data": {deep}}}}}'.encode())
    assert webhook.post(b"{}", {"X-Telegram-Bot-Api-Secret-Token": "nope"}).status_code == 403


def test_no_traceback_reached_a_chat(webhook: Webhook) -> None:
    """Run last (file order): everything the bot sent or answered, read back."""
    words = ("Traceback", "Exception", "Error:", "error:", 'File "')
    # Read in process: the control API cannot encode a lone surrogate a fuzzed update
    # carried into a reply (Telegram itself only ever sends valid UTF-8).
    for call in list(webhook.emu.emulator.world.log):
        if call["kind"] != "call":
            continue
        params = call.get("params") or {}
        said = " ".join(str(params.get(k, "")) for k in ("text", "caption"))
        assert not any(word in said for word in words), said[:300]
    for conversation in webhook.emu.emulator.world.conversations.values():
        for message in conversation.messages.values():
            said = f"{message.text or ''} {message.caption or ''}"
            assert not any(word in said for word in words), said[:300]
