"""Two tables at once on WhatsApp, and no turn left unseen when the 24-hour window
closes: Grandma sits at her own family table (against a bot) and at Nenek's. Every
prompt of hers names its table; once her window has closed the one template that may go
names the table whose turn it tells, its Play now opens that table, and the other
table's turn is sent again as soon as she is back; a tap on one table's prompt moves
nothing at the other."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.infra import keys
from service.infra.store import text
from service.platforms.whatsapp import templates, window
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import act, choices, outgoing, pick
from tests.service.whatsapp.test_family_table import player_id

DAY = 24 * 3600


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    folder = tmp_path_factory.mktemp("turns")
    with running_service(
        folder, whatsapp_pair_rate=0.0, turn_timeout=3 * DAY, game_target=2
    ) as running:
        yield running


def test_play_now_names_its_room_and_an_older_template_none() -> None:
    message = templates.turn_message("es", "Mesa de Nenek", "abcd1234")
    body, play_now, _stop = message["template"]["components"]
    assert body["parameters"] == [{"type": "text", "text": "Mesa de Nenek"}]
    payload = play_now["parameters"][0]["payload"]
    assert templates.played_room(payload) == "abcd1234"
    assert templates.played_room(templates.PLAY) is None  # a template sent before
    assert templates.played_room("play:../../x") is None  # nothing but a room id


def test_two_tables_at_once_and_no_turn_left_unseen(hook: Hook) -> None:
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None and hook.clock is not None
    grandma, nenek = (person(hook, wa, name) for name in ("Grandma", "Nenek"))
    # Seated at both before either deals: a prompt drawn while she sat at one table
    # alone would rightly not name it.
    hers = open_table(hook, grandma, guests=(), bots=1)
    theirs = open_table(hook, nenek, guests=(grandma,), bots=0)
    worker.settle()  # the lobbies shown: Nenek's moves are played from prompts after them
    dealt = outgoing(wa, "Nenek")[-1].seq
    for host, room_id in ((grandma, hers), (nenek, theirs)):
        deal(hook, host, room_id)
    until_her_turn(hook, wa, theirs, grandma.user_id, ("Nenek", nenek.user_id), dealt)
    until_her_turn(hook, wa, hers, grandma.user_id)
    worker.settle()  # her prompts sent (the newest names its table): not one still on its way
    names = {hers: "Grandma's table", theirs: "Nenek's table"}
    for room_id, name in names.items():
        prompt = wa.wait_for(partial(prompt_of, wa, "Grandma", room_id, 0), what="a prompt")
        assert prompt.text.split("\n", 1)[0].endswith(name), prompt.text
    seen = outgoing(wa, "Grandma")[-1].seq

    wa.advance(DAY + 3600)  # a day and an hour without a word from her
    worker.reach(hook.clock() + DAY + 3600)  # both tables' reminders are long due
    template = wa.wait_for(partial(template_after, wa, seen), what="the template")
    told = next(room_id for room_id, name in names.items() if name in template.text)
    other = theirs if told == hers else hers
    wa.wait_for(partial(noted, hook, grandma.user_id, {hers, theirs}), what="both noted")
    assert len([m for m in outgoing(wa, "Grandma") if m.type == "template"]) == 1

    wa.tap_quick_reply("Grandma", template, "Play now")
    for room_id in (told, other):  # the table the template named, and the other one
        again = wa.wait_for(
            partial(prompt_of, wa, "Grandma", room_id, template.seq), what="its turn again"
        )
        assert again.text.split("\n", 1)[0].endswith(names[room_id]), again.text
    assert window.take_unseen(hook.redis, grandma.user_id) == []  # nothing left unseen

    before, moving = load(hook, told), load(hook, other).version
    play_one(wa, "Grandma", other, template.seq)
    wa.wait_for(partial(moved, hook, other, moving), what="her move")
    worker.settle()
    after = load(hook, told)
    assert (after.version, after.game) == (before.version, before.game)  # untouched


def person(hook: Hook, wa: WhatsAppDriver, name: str) -> Actor:
    """A WhatsApp person who has written to us once (greeted), as an actor."""
    wa.send(name, "hi")
    wa.wait_for(lambda: hook.redis.get(f"wa:id:{wa.user(name)['user_id']}"), what=name)
    player = player_id(hook, name)
    return Actor(player, name, hook.store().user(player).get("lang", "en"), platform="whatsapp")


def open_table(hook: Hook, host: Actor, guests: tuple[Actor, ...], bots: int) -> str:
    """A family table in the host's own chat, its guests and bots seated (a lobby)."""
    clock = hook.clock
    assert clock is not None
    settings = RoomSettings(turn_timeout=3 * DAY)  # her turns wait through the test's day
    room = lobby.create_room(host.user_id, None, host, clock(), settings=settings)
    for guest in guests:
        assert lobby.join(room, guest).changed
    for _bot in range(bots):
        assert lobby.add_bot(room, host).changed
    assert hook.store(clock).create(room, lobby.changed(room), None)
    return room.id


def deal(hook: Hook, host: Actor, room_id: str) -> None:
    """The host starts the table's game."""
    clock = hook.clock
    assert clock is not None
    hook.store(clock).update(room_id, lambda fresh: lobby.start(fresh, host, clock()))


def load(hook: Hook, room_id: str) -> Room:
    room = hook.store().load(room_id)
    assert room is not None
    return room


def moved(hook: Hook, room_id: str, version: int) -> bool | None:
    return load(hook, room_id).version > version or None


def until_her_turn(
    hook: Hook,
    wa: WhatsAppDriver,
    room_id: str,
    her: int,
    other: tuple[str, int] | None = None,
    seen: int = 0,
) -> None:
    """Play the table on (the `other` person's turns from their prompts after `seen`,
    the bots' by the worker) until it waits on her."""
    for _step in range(60):
        waiting = wa.wait_for(
            lambda: play.waiting_humans(load(hook, room_id)) or None, what="a person's turn"
        )
        room = load(hook, room_id)
        if room.seat_of(her) in waiting:
            return
        assert other is not None and room.seat_of(other[1]) in waiting
        seen = play_one(wa, other[0], room_id, seen)
        wa.wait_for(partial(moved, hook, room_id, room.version), what="a move")
    raise AssertionError("the table never waited on her")


def prompt_of(wa: WhatsAppDriver, user: str, room_id: str, after: int) -> WaChatMessage | None:
    """The person's newest prompt of a room (its choices name it) after `after`."""
    found = [
        m
        for m in outgoing(wa, user)
        if m.seq > after and any(data.startswith(f"{room_id}.") for data, _t in choices(m))
    ]
    return found[-1] if found else None


def play_one(wa: WhatsAppDriver, user: str, room_id: str, after: int) -> int:
    """Play the person's newest prompt of the room after `after` (a folded suit opened
    first); the last prompt's number."""
    prompt = wa.wait_for(partial(prompt_of, wa, user, room_id, after), what="a prompt")
    choice = pick(prompt)
    act(wa, user, prompt, choice)
    if not choice.startswith("pick:"):
        return prompt.seq
    rows = wa.wait_for(partial(newer, wa, user, prompt.seq), what="the suit's cards")
    act(wa, user, rows, pick(rows))
    return rows.seq


def newer(wa: WhatsAppDriver, user: str, after: int) -> WaChatMessage | None:
    found = [m for m in outgoing(wa, user) if m.seq > after and choices(m)]
    return found[-1] if found else None


def template_after(wa: WhatsAppDriver, seen: int) -> WaChatMessage | None:
    found = [m for m in outgoing(wa, "Grandma") if m.type == "template" and m.seq > seen]
    return found[-1] if found else None


def noted(hook: Hook, player: int, rooms: set[str]) -> bool | None:
    fields = {text(f) for f in hook.redis.hkeys(keys.user_key(player))}
    return {window.UNSEEN + room for room in rooms} <= fields or None
