"""Being told (issue #14): an edit notifies nobody, so a turn after a pause comes as a
new message (the old one gone: one live hand message), live play edits in place, the end
of a hand and of the game are messages of their own in the group and in every player's
chat, a move played for you is said in your chat, and a table pushed up by the room's
own later messages is posted again at the bottom. Through serve, the emulator and the
jobs run on demand with a chosen clock; who was notified is the emulator's record."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from rq import Queue
from rq.exceptions import InvalidJobOperation

from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState, legal_actions, to_move
from service.infra.queue import QUEUE
from service.platforms.telegram import callbacks
from service.table import games
from service.table.outcome import Outcome
from service.table.room import Room
from tests.service.inproc import (
    ANA,
    BEN,
    CARLA,
    GROUP,
    Hook,
    command,
    press,
    running_hook,
    with_timer,
)
from workers import jobs
from workers.runtime import Runtime

HOUR = 3600.0
PEOPLE = {ANA["id"]: ANA, BEN["id"]: BEN, CARLA["id"]: CARLA}
SYNCS = ("press", "sync")  # a tap's move is applied by a worker, which syncs its chats


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with running_hook(tmp_path_factory.mktemp("told"), rate_limits=False) as running:
        for user in (ANA, BEN, CARLA):
            running.emu.start(user["first_name"])
            assert running.send(command("/start", user)).status_code == 200
        yield running


def clock(hook: Hook, offset: float = 0.0) -> Runtime:
    """A worker's runtime whose clock is `offset` seconds ahead of now."""
    return hook.runtime(clock=lambda: time.time() + offset)


def run_jobs(hook: Hook, rt: Runtime, kinds: tuple[str, ...]) -> int:
    """Run the waiting jobs of these kinds now with `rt`, as a worker would; how many
    ran. (Like `Hook.run_jobs`, but a job listed twice, queued and scheduled, or gone
    meanwhile, is skipped.)"""
    queue = Queue(QUEUE, connection=hook.redis)
    kinds = with_timer(kinds, hook.redis, rt)
    ids = dict.fromkeys([*queue.get_job_ids(), *queue.scheduled_job_registry.get_job_ids()])
    ran = 0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jobs, "runtime", lambda: rt)
        for job in queue.job_class.fetch_many(list(ids), connection=hook.redis):
            if job is None or str(job.func_name).rsplit(".", 1)[-1] not in kinds:
                continue
            try:
                job.delete()
            except InvalidJobOperation:
                continue
            job.func(*job.args)
            ran += 1
    return ran


def cancel(room: Room) -> Outcome:
    room.status = "cancelled"
    return Outcome(changed=True)


def new_game(
    hook: Hook, players: tuple[dict[str, Any], ...], auto_forced: bool = True, **options: Any
) -> Room:
    """A follow-suit game in the group with these rule options, dealt and shown (the
    jobs run now)."""
    old = hook.store().room_in_chat(GROUP, None)
    if old is not None:
        hook.store().update(old.id, cancel)
    creator = players[0]
    assert hook.send(command("/burro spanish", creator, GROUP)).status_code == 200
    room = hook.room(GROUP)

    def choose(fresh: Room) -> Outcome:
        fresh.settings.options = dict(options)
        fresh.settings.auto_forced = auto_forced
        return Outcome(changed=True)

    hook.store().update(room.id, choose)
    for user in players[1:]:
        assert hook.send(press(user, button(hook.room(GROUP), "J"), GROUP)).status_code == 200
    assert hook.send(press(creator, button(hook.room(GROUP), "S"), GROUP)).status_code == 200
    run_jobs(hook, clock(hook), SYNCS)
    return hook.room(GROUP)


def button(room: Room, token: str) -> str:
    return callbacks.encode(room.id, room.version, token)


def mover(hook: Hook) -> tuple[dict[str, Any], str]:
    """Who is to move in the group's game, and a legal action of theirs."""
    room = hook.room(GROUP)
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    user = room.seats[seat].user_id
    assert user is not None
    return PEOPLE[user], legal_actions(room.game, seat)[0]


def move(hook: Hook) -> dict[str, Any]:
    """The player to move taps their first legal action; who it was."""
    user, action = mover(hook)
    data = button(hook.room(GROUP), callbacks.game_token(action))
    assert hook.send(press(user, data, user["id"])).status_code == 200
    return user


def live_hands(hook: Hook, user: dict[str, Any]) -> list[ChatMessage]:
    """The messages in the user's chat that still carry game buttons."""
    room_id = hook.room(GROUP).id
    return [
        m
        for m in hook.emu.messages_in(user["first_name"])
        if any(str(b.value).startswith(room_id) for row in m.buttons for b in row)
    ]


def told(hook: Hook, user: dict[str, Any], since: int) -> list[str]:
    """What the user was notified of since `since`."""
    return [n["text"] for n in hook.emu.notifications(user["first_name"], since=since)]


def hand_message(hook: Hook, user: dict[str, Any]) -> ChatMessage:
    """The user's hand message, as the outbox last sent it."""
    room = hook.room(GROUP)
    found = hook.redis.hget(f"game:{{{room.id}}}:msgs", f"hand:{user['id']}")
    assert found is not None
    return hook.emu.message(user["first_name"], int(found))


def test_a_turn_after_a_pause_is_a_new_message_and_live_play_edits(hook: Hook) -> None:
    new_game(hook, (ANA, BEN), auto_forced=False)  # so the first move passes the turn
    since = hook.emu.last_seq()
    first = move(hook)
    second = BEN if first is ANA else ANA
    before = live_hands(hook, second)
    run_jobs(hook, clock(hook, HOUR), SYNCS)  # the move came an hour after the deal
    assert mover(hook)[0] is second
    assert len(told(hook, second, since)) == 1 and told(hook, first, since) == []
    now_live = live_hands(hook, second)
    assert len(now_live) == 1 and now_live[0].message_id not in {m.message_id for m in before}
    assert "Your turn" in now_live[0].text or "Keep drawing" in now_live[0].text
    # Both play on at once: the turns that follow are edits, nobody is notified.
    since = hook.emu.last_seq()
    for _ in range(3):
        move(hook)
        run_jobs(hook, clock(hook), SYNCS)
    assert told(hook, ANA, since) == [] and told(hook, BEN, since) == []
    playing, _action = mover(hook)
    assert len(live_hands(hook, playing)) == 1
    assert all(len(live_hands(hook, user)) <= 1 for user in (ANA, BEN))


def test_the_end_of_a_game_is_told_to_the_group_and_every_player(hook: Hook) -> None:
    new_game(hook, (ANA, BEN, CARLA), scoring="single", hand_size=3)
    since = hook.emu.last_seq()
    while hook.room(GROUP).status == "playing":
        move(hook)
        run_jobs(hook, clock(hook), ("press",))  # the move applied, by a worker
    run_jobs(hook, clock(hook), SYNCS)
    dan = "Dan"  # in the group, not in the game
    for name in ("Ana", "Ben", "Carla", dan):
        texts = [n["text"] for n in hook.emu.notifications(name, since=since)]
        assert any("🏁 Game over" in t for t in texts), f"{name} was not told: {texts}"
    for user in (ANA, BEN, CARLA):  # the one out first too: no "Waiting for …" left
        shown = hand_message(hook, user).text
        assert "🏁 Game over" in shown and "Waiting for" not in shown


def test_a_waiting_hand_says_nothing_that_later_moves_make_untrue(hook: Hook) -> None:
    """Only the hands whose cards or turn changed are edited at a move: the others show
    what they showed, so a waiting hand names no trick, stock or player to wait for."""
    new_game(hook, (ANA, BEN, CARLA), auto_forced=False)
    for _ in range(8):
        move(hook)
        run_jobs(hook, clock(hook), SYNCS)
        room = hook.room(GROUP)
        if room.status != "playing":
            break
        playing, _action = mover(hook)
        for user in (ANA, BEN, CARLA):
            shown = hand_message(hook, user).text
            if user is playing:
                assert "Your turn" in shown or "Keep drawing" in shown, shown
                continue
            assert "I will remind you when it is your turn" in shown, shown
            for stale in ("On the table", "Stock", "Waiting for", "Your turn"):
                assert stale not in shown, f"{user['first_name']}: {shown}"


def test_a_move_played_for_you_is_said_in_your_chat(hook: Hook) -> None:
    new_game(hook, (ANA, BEN))
    late, _action = mover(hook)
    since = hook.emu.last_seq()
    assert run_jobs(hook, clock(hook, 13 * HOUR), ("turn_timeout",)) >= 1
    run_jobs(hook, clock(hook, 13 * HOUR), SYNCS)
    said = [m for m in hook.emu.messages_in(late["first_name"]) if "time ran out" in m.text]
    assert len(said) == 1 and said[0].notified == ()  # said quietly: not a turn
    assert not any("time ran out" in t for t in told(hook, late, since))


def test_a_turn_after_a_timeout_rings_even_in_live_play(hook: Hook) -> None:
    """A player whose turn timed out is away: their next turn is a new, notifying
    message even when they were prompted within the live window (here a long one)."""
    new_game(hook, (ANA, BEN))
    late, _action = mover(hook)
    rt = clock(hook, 13 * HOUR)
    rt.svc.settings = rt.svc.settings.model_copy(update={"live_window": 20 * HOUR})
    since = hook.emu.last_seq()
    assert run_jobs(hook, rt, ("turn_timeout",)) >= 1
    for _ in range(20):
        run_jobs(hook, rt, SYNCS)
        if mover(hook)[0] is late:
            break
        move(hook)
    assert mover(hook)[0] is late
    # A hand may have ended meanwhile: its news rang then, and her turn came quietly.
    rang = told(hook, late, since)
    turns = [t for t in rang if "Your turn" in t or "Keep drawing" in t]
    news = [t for t in rang if "Scores: " in t]
    assert len(turns) == (0 if news else 1), rang


def test_a_table_pushed_up_is_posted_again_at_the_bottom(hook: Hook) -> None:
    room = new_game(hook, (ANA, BEN))
    table = int(hook.redis.hget(f"game:{{{room.id}}}:msgs", "table") or 0)
    assert run_jobs(hook, clock(hook, 3 * HOUR + 1), ("remind",)) >= 1
    run_jobs(hook, clock(hook, 3 * HOUR + 1), SYNCS)
    assert "it is your turn" in hook.emu.messages_in("Family")[-1].text  # the nudge
    move(hook)
    run_jobs(hook, clock(hook, 3 * HOUR + 2), SYNCS)
    shown = hook.emu.messages_in("Family")
    assert shown[-1].text.startswith("🫏") and shown[-1].message_id > table
    assert table not in {m.message_id for m in shown}  # the old one is gone


def new_passing_game(hook: Hook) -> Room:
    """A cuartetos game of Ana, Ben and Carla in the group, dealt and shown."""
    old = hook.store().room_in_chat(GROUP, None)
    if old is not None:
        hook.store().update(old.id, cancel)
    assert hook.send(command("/burro cuartetos", ANA, GROUP)).status_code == 200
    for user in (BEN, CARLA):
        assert hook.send(press(user, button(hook.room(GROUP), "J"), GROUP)).status_code == 200
    assert hook.send(press(ANA, button(hook.room(GROUP), "S"), GROUP)).status_code == 200
    run_jobs(hook, clock(hook), SYNCS)
    room = hook.room(GROUP)
    assert room.status == "playing" and (room.settings.preset == "cuartetos")
    return room


def test_cuartetos_nobody_choosing_is_told_and_the_end_reaches_everyone(hook: Hook) -> None:
    """Everyone away: each close passes a card for them (said quietly in their chat)
    until too few are left; the end is news in the group and every player's chat."""
    new_passing_game(hook)
    since = hook.emu.last_seq()
    offset = 0.0
    for _ in range(100):
        room = hook.room(GROUP)
        if room.status != "playing":
            break
        assert room.deadline is not None
        offset = max(offset, room.deadline - time.time()) + 1
        run_jobs(hook, clock(hook, offset), ("deadline",))
    assert hook.room(GROUP).status == "over"
    run_jobs(hook, clock(hook, offset), SYNCS)
    for user in (ANA, BEN, CARLA):
        said = [m for m in hook.emu.messages_in(user["first_name"]) if "passed on" in m.text]
        assert said and all(m.notified == () for m in said)
        texts = told(hook, user, since)
        assert any("🏁 Game over" in t for t in texts), f"{user['first_name']}: {texts}"
        assert "🏁 Game over" in hand_message(hook, user).text
    group = [n["text"] for n in hook.emu.notifications("Dan", since=since)]
    assert any("🏁 Game over" in t for t in group)


def private_turn(hook: Hook, offset: float) -> Room:
    """Carla's one-to-one game once it is her turn (her move queued and the bots' moves
    run at `offset`)."""
    run_jobs(hook, clock(hook, offset), ("press",))
    for _ in range(50):
        room = hook.room(CARLA["id"])
        assert isinstance(room.game, GameState) and room.status == "playing"
        seat = to_move(room.game)
        if seat is not None and room.seats[seat].user_id == CARLA["id"]:
            run_jobs(hook, clock(hook, offset), SYNCS)
            return room
        run_jobs(hook, clock(hook, offset), ("bot_turn",))
    raise AssertionError("Carla's turn never came")


def private_game(hook: Hook) -> Room:
    """Carla's one-to-one game against bots (one more added in its lobby), once it is
    her turn."""
    old = hook.store().room_in_chat(CARLA["id"], None)
    if old is not None:
        hook.store().update(old.id, cancel)
    assert hook.send(command("/play spanish", CARLA)).status_code == 200
    lobby = hook.room(CARLA["id"])
    assert hook.send(press(CARLA, button(lobby, "B"))).status_code == 200
    assert hook.send(press(CARLA, button(hook.room(CARLA["id"]), "S"))).status_code == 200
    return private_turn(hook, 0)


def carla_moves(hook: Hook, room: Room) -> None:
    """Carla taps her first legal action."""
    assert isinstance(room.game, GameState)
    seat = to_move(room.game)
    assert seat is not None
    data = button(room, callbacks.game_token(legal_actions(room.game, seat)[0]))
    assert hook.send(press(CARLA, data)).status_code == 200


def test_one_to_one_a_turn_after_a_pause_is_a_new_message(hook: Hook) -> None:
    room = private_game(hook)
    shown = hook.redis.hget(f"game:{{{room.id}}}:msgs", "table")
    since = hook.emu.last_seq()
    carla_moves(hook, room)
    room = private_turn(hook, HOUR)  # the bots' moves and her turn an hour later
    now_shown = hook.redis.hget(f"game:{{{room.id}}}:msgs", "table")
    assert now_shown is not None and now_shown != shown
    rang = [n["message_id"] for n in hook.emu.notifications("Carla", since=since)]
    hands = [m for m in rang if "Your cards" in hook.emu.message("Carla", m).text]
    # Her turn rang; or a hand ended meanwhile, its news rang and her turn came quietly
    # below it (test_the_news_of_a_hand_rings_and_the_turn_below_it_does_not).
    assert hands == [int(now_shown)] or (hands == [] and len(rang) == 1)
    assert shown is not None and int(shown) not in {
        m.message_id for m in hook.emu.messages_in("Carla")
    }


def test_the_news_of_a_hand_rings_and_the_turn_below_it_does_not(hook: Hook) -> None:
    """After a pause, a hand's end and her next turn come together: one ring, the
    news's; her turn comes below it, quietly (she has just been told)."""
    room = private_game(hook)
    offset = 0.0
    for _ in range(60):
        hands = games.finished_hands(room)
        since = hook.emu.last_seq()
        carla_moves(hook, room)
        offset += HOUR
        room = private_turn(hook, offset)
        if games.finished_hands(room) == hands:
            continue
        rang = [hook.emu.message("Carla", n["message_id"]) for n in
                hook.emu.notifications("Carla", since=since)]  # fmt: skip
        assert ["Scores: " in m.text for m in rang] == [True], [m.text for m in rang]
        turn = hook.redis.hget(f"game:{{{room.id}}}:msgs", "table")
        assert turn is not None and int(turn) > rang[0].message_id  # below the news
        assert hook.emu.message("Carla", int(turn)).notified == ()
        return
    raise AssertionError("no hand ended in 60 of her moves")


def test_a_command_in_the_group_pushes_the_table_up(hook: Hook) -> None:
    """The service sees commands in a group (privacy mode): one written after the table
    has the next change post the table again at the bottom, quietly."""
    room = new_game(hook, (ANA, BEN))
    table = int(hook.redis.hget(f"game:{{{room.id}}}:msgs", "table") or 0)
    since = hook.emu.last_seq()
    assert hook.send(command("/help", BEN, GROUP)).status_code == 200
    move(hook)
    run_jobs(hook, clock(hook), SYNCS)
    now_table = int(hook.redis.hget(f"game:{{{room.id}}}:msgs", "table") or 0)
    assert now_table > table and table not in {m.message_id for m in hook.emu.messages_in(GROUP)}
    assert hook.emu.message(GROUP, now_table).notified == ()  # re-posted without a ring
    rang = [n["message_id"] for n in hook.emu.notifications("Carla", since=since)]
    assert rang and now_table not in rang  # Carla (not playing) heard the /help answer only


def test_an_old_message_too_old_to_delete_loses_its_buttons(hook: Hook) -> None:
    """Bots may delete their messages for 48 hours: an older hand replaced by a new one
    (here by the reminder) keeps its text but no buttons: one message with buttons."""
    new_game(hook, (ANA, BEN))
    late, _action = mover(hook)
    old = hand_message(hook, late)
    assert old.buttons
    # every message is past its 48 hours (the replaced hand's, and any other deleted now)
    hook.emu.inject_error(
        "deleteMessage",
        400,
        description="Bad Request: message can't be deleted for everyone",
        times=50,
    )
    try:
        assert run_jobs(hook, clock(hook, 3 * HOUR + 1), ("remind",)) >= 1
        run_jobs(hook, clock(hook, 3 * HOUR + 1), SYNCS)
    finally:
        hook.emu.emulator.api.injected.pop("deletemessage", None)  # the rest unused
    kept = hook.emu.message(late["first_name"], old.message_id)
    assert not kept.deleted and kept.buttons == ()
    assert live_hands(hook, late) == [hand_message(hook, late)]
