"""The hand in the group (issue #38): what a group game of four costs and asks, per move.

    python -m bench.group_hand [--games 1] [--gap 600] [--target 2] [--json out.json]

The whole product in this process (tests/service/inproc.py `running_service`: the webhook
app and a worker on threads, Redis, the local Telegram), the bot as BotFather leaves it
(inline mode and inline feedback off); where this code has ephemeral messages, the flag
serve's probe sets is set on (`botfather.record_ephemeral`). The emulator's Family (Ana,
Ben, Carla, Dan) play a Spanish Burro of four in their group: Ana writes `/burro spanish`
there, the others tap Join, Ana starts; at each turn its player plays their first legal
card (else their first move: a draw, a pass). Two families:

- `opened`: all four pressed START in the bot's private chat beforehand;
- `never`: none had. Each takes whatever way the product offers, the fewest taps first:
  a card button they see (their private chat, the group as their app shows it: an
  ephemeral hand too), else the table's "🃏 My cards" press, else the table's link to the
  private chat. A link, or a Join answered with one, opens the bot's chat (the app
  follows a callback answer's URL by itself) and costs the START tap.

Two paces: `live` (moves back to back; the service's clock stands still) and `day`
(before each turn the clock moves on `gap` seconds, past the live window, and whatever
falls due then runs: a game across a day).

Counted from the start's press to the game's end (its last messages included), per move
(every card, draw and pass of the game's record, forced ones too): Bot API calls (by
method), new group messages (sendMessage to the group; ephemeral ones apart), edits of
the group's messages, the group's notifying messages. Per turn that passed to its player
from another's: whether they were told by a notifying message meant for them since the
turn before (a message in their private chat, or a group message with a text_mention of
them); a turn that follows the player's own move needs no telling. For each member: the
steps from the lobby's Join to their seat, and from their turn to their card played
(taps and STARTs), and how many turns took them out of the group.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from emulator.common.control_client import ControlClient
from emulator.telegram.driver import Button, ChatMessage, EmulatorError, TapResult
from engine.follow_suit.game import GameState, to_move
from service.infra import logs
from service.platforms.telegram import botfather
from service.table.room import Room
from tests.service.inproc import GROUP, Hook, running_service
from tests.service.play import FAMILY, GAME_BUTTON

IDS = {name: 100001 + n for n, name in enumerate(FAMILY)}  # the emulator's cast
FAMILIES = ("opened", "never")
PACES = ("live", "day")
CARDS = "🃏"  # "🃏 My cards", in every language
STEP_LIMIT = 6  # steps to a card before the bench gives up on a turn
SHOWN_WITHIN = 5.0  # seconds a hand asked for has to show a move
T = TypeVar("T")
Step = tuple[str, str]  # what (join, START, my cards, link, card), where (group, private)


# ----- what a member sees ----------------------------------------------------------------


def seen_in(hook: Hook, user: str, chat: int | str) -> list[ChatMessage]:
    """A chat as `user`'s app shows it (their ephemeral messages too), through the control
    API (the in-process driver's own read of a chat left `user` out before 5ef6cc2, and
    the bench runs on the code before it too)."""
    views = ControlClient._get(hook.emu, "/messages", chat=chat, user=user)
    return [ChatMessage.from_view(v) for v in views]


def card_buttons(message: ChatMessage, room: Room) -> list[Button]:
    """The message's move buttons for the room's current phase."""
    mark = f"{room.id}.{room.phase_version}."
    return [
        b
        for row in message.buttons
        for b in row
        if b.kind == "callback_data"
        and GAME_BUTTON.match(str(b.value))
        and str(b.value).startswith(mark)
    ]


def first_move(buttons: list[Button]) -> Button:
    """A card if there is one, else the first move offered (a draw, a pass)."""
    cards = [b for b in buttons if str(b.value).split(".")[2].startswith("p")]
    return (cards or buttons)[0]


def a_card(hook: Hook, user: str, room: Room) -> tuple[ChatMessage, Button, str] | None:
    """A move of `user`'s they see now: in their private chat, else in the group."""
    for where, chat in (("private", user), ("group", GROUP)):
        try:
            shown = seen_in(hook, user, chat)
        except EmulatorError:  # no private chat with the bot yet
            continue
        for message in reversed([m for m in shown if not m.deleted]):
            found = card_buttons(message, room)
            if found:
                return message, first_move(found), where
    return None


def table_button(
    hook: Hook, user: str, room: Room, wanted: Callable[[Button], bool]
) -> tuple[ChatMessage, Button] | None:
    """The newest group message of the room's with a button `wanted`."""
    for message in reversed(seen_in(hook, user, GROUP)):
        for row in message.buttons:
            for b in row:
                if not message.deleted and wanted(b) and room.id in str(b.value):
                    return message, b
    return None


def my_cards(b: Button) -> bool:
    return b.kind == "callback_data" and b.text.startswith(CARDS)


def private_link(b: Button) -> bool:
    return b.kind == "url" and "start=" in str(b.value)


# ----- a member's steps ------------------------------------------------------------------


def act(hook: Hook, action: Callable[[], T]) -> T:
    """A member's action and all it causes (`settle`)."""
    seq = hook.emu.last_seq()
    done = action()
    settle(hook, seq)
    return done


def settle(hook: Hook, since: int) -> None:
    """Wait until the webhook has answered every update since `since`, then until the
    jobs they queued (and those that queued) have run."""
    emu = hook.emu

    def answered() -> bool | None:
        queued = {e["update_id"] for e in emu.log("update", since=since)}
        done = {e["update_id"] for e in emu.log("delivery", since=since) if e["status"] == 200}
        return queued <= done or None

    emu.wait_for(answered, what="the webhook's answers")
    assert hook.worker is not None
    hook.worker.settle()


def follow(hook: Hook, user: str, tap: TapResult) -> list[Step]:
    """A press's answer with a URL: the app opens it (the bot's chat) by itself, and
    START there is a tap (the emulator sends the link's `/start` as it opens it, for a
    `url` button too)."""
    url = tap.answer.url if tap.answer is not None else None
    if url:
        act(hook, lambda: hook.emu.open_link(user, url))
    return [("START", "private")] if url or tap.kind == "url" else []


def tap_on(hook: Hook, user: str, message: ChatMessage, button: Button) -> TapResult:
    """Tap a button (by its place: a link's URL names no button) and settle."""
    return act(hook, lambda: hook.emu.tap(user, message, (button.row, button.column)))


def join(hook: Hook, user: str) -> list[Step]:
    """Tap the lobby's Join; whatever it asks after, till the seat."""
    room = hook.room(GROUP)
    found = table_button(hook, user, room, lambda b: str(b.value).endswith(".J"))
    assert found is not None, "no Join on the lobby"
    steps = [("join", "group"), *follow(hook, user, tap_on(hook, user, *found))]
    assert any(s.user_id == IDS[user] for s in hook.room(GROUP).seats), f"{user} not seated"
    return steps


def play_turn(hook: Hook, user: str) -> list[Step]:
    """The fewest steps `user` has to a move of theirs, the move tapped (its effects
    settled). A way to the hand that showed none is not taken twice in a turn."""
    steps: list[Step] = []
    room = hook.room(GROUP)
    card = a_card(hook, user, room)
    for _ in range(STEP_LIMIT):
        if card is not None:
            tap = tap_on(hook, user, card[0], card[1])
            said = tap.answer.text if tap.answer is not None else None
            what = f"{user}'s move {card[1].value} in {card[2]} (answered {said!r})"
            moved(hook, room, what)
            return [*steps, ("card", card[2])]
        steps += open_hand(hook, user, room, {what for what, _where in steps})
        card = shown_card(hook, user, room)
    raise AssertionError(f"{user} found no card to play: {steps}")


def moved(hook: Hook, room: Room, what: str) -> None:
    """Wait for the room to move past `room`, then for what that causes: the worker can
    look quiet while it has just taken a job off the queue (tests/service/inproc.py)."""
    hook.emu.wait_for(lambda: hook.room(GROUP).version > room.version or None, what=what)
    settle(hook, hook.emu.last_seq())


def shown_card(hook: Hook, user: str, room: Room) -> tuple[ChatMessage, Button, str] | None:
    """A move of `user`'s once a way to their hand shows one (a few seconds at most),
    else None."""
    try:
        return hook.emu.wait_for(lambda: a_card(hook, user, room), timeout=SHOWN_WITHIN)
    except TimeoutError:
        return None


def open_hand(hook: Hook, user: str, room: Room, tried: set[str]) -> list[Step]:
    """The table's way to the hand: "🃏 My cards", else the private chat's link."""
    for wanted, what in ((my_cards, "my cards"), (private_link, "link")):
        found = None if what in tried else table_button(hook, user, room, wanted)
        if found is not None:
            return [(what, "group"), *follow(hook, user, tap_on(hook, user, *found))]
    raise AssertionError(
        f"{user} sees no card, no way to their hand but {tried}: {seen(hook, user)}"
    )


def seen(hook: Hook, user: str) -> list[tuple[str, list[str]]]:
    """The newest messages `user` sees, to say why a turn failed."""
    shown = []
    for chat in (user, GROUP):
        try:
            shown += [(m.text[:300], m.button_texts) for m in seen_in(hook, user, chat)[-3:]]
        except EmulatorError:  # no private chat
            continue
    return shown


# ----- counting --------------------------------------------------------------------------


def params_of(call: dict[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = call.get("params") or {}
    return params


def listed(value: Any) -> list[Any]:
    """A parameter that may have come JSON-encoded (a form post)."""
    found = json.loads(value) if isinstance(value, str) else value
    return found if isinstance(found, list) else []


def chat_of(call: dict[str, Any]) -> int:
    return int(params_of(call).get("chat_id", 0) or 0)


def ephemeral(call: dict[str, Any]) -> bool:
    return "ephemeral_message_parameters" in params_of(call) or "Ephemeral" in call["method"]


def notifying(call: dict[str, Any]) -> bool:
    quiet = str(params_of(call).get("disable_notification", "")).lower() in ("true", "1")
    return call["method"] == "sendMessage" and bool(call.get("ok")) and not quiet


def mentioned(call: dict[str, Any]) -> set[int]:
    """The users a message's text_mention entities name."""
    entities = listed(params_of(call).get("entities"))
    return {int(e["user"]["id"]) for e in entities if e.get("type") == "text_mention"}


def told(calls: list[dict[str, Any]], user_id: int) -> bool:
    """Whether a notifying message meant for the user came: in their private chat, or in
    the group naming them."""
    for call in calls:
        if not notifying(call) or ephemeral(call):
            continue
        chat = chat_of(call)
        if chat == user_id or (chat < 0 and user_id in mentioned(call)):
            return True
    return False


def group_counts(calls: list[dict[str, Any]]) -> Counter[str]:
    """The group's new messages, ephemeral ones apart, its edits and notifying ones."""
    counts: Counter[str] = Counter()
    for call in calls:
        if chat_of(call) >= 0 or not call.get("ok"):
            continue
        method = call["method"]
        if ephemeral(call):
            counts["ephemeral_sent" if method == "sendMessage" else "ephemeral_changed"] += 1
        elif method == "sendMessage":
            counts["new_group_messages"] += 1
            counts["notifying_group_messages"] += notifying(call)
            counts["group_mentions"] += bool(mentioned(call))
        elif method.startswith("edit"):
            counts["group_edits"] += 1
        elif method == "deleteMessage":
            counts["group_deletes"] += 1
    return counts


def moves_of(room: Room) -> int:
    """Every card, draw and pass of the game's record, forced ones too."""
    game = room.game
    assert isinstance(game, GameState)
    hands = game.past if game.over else (*game.past, game.hand)  # the last is kept in both
    return sum(len(hand.actions) for hand in hands)


@dataclass
class Played:
    """One game's figures."""

    moves: int = 0
    turns: int = 0  # the humans' turns (each ends in a tap on a move)
    calls: Counter[str] = field(default_factory=Counter)
    group: Counter[str] = field(default_factory=Counter)
    handed: int = 0  # turns that passed to their player from another's
    told: int = 0  # of those, the ones whose player was told by a message meant for them
    before: int = 0  # the group's newest message when the game started
    joins: dict[str, list[Step]] = field(default_factory=dict)
    steps: dict[str, list[list[Step]]] = field(default_factory=dict)  # per member, per turn


# ----- a game ----------------------------------------------------------------------------


@contextmanager
def product(folder: Path, target: int) -> Iterator[Hook]:
    """The product with BotFather's defaults, ephemeral messages on where it has them."""
    with running_service(folder, bot_settings={}, game_target=target) as hook:
        record = getattr(botfather, "record_ephemeral", None)
        if record is not None:
            record(hook.redis, True)
        yield hook


def open_table(hook: Hook, family: str) -> dict[str, list[Step]]:
    """The lobby in the group and the three others' ways to a seat."""
    emu = hook.emu
    if family == "opened":
        for name in FAMILY:
            act(hook, partial(emu.start, name))
    act(hook, lambda: emu.send_message(FAMILY[0], GROUP, "/burro spanish"))
    assert store_room(hook) is not None, "no lobby"
    return {name: join(hook, name) for name in FAMILY[1:]}


def start_game(hook: Hook) -> None:
    """Ana taps the lobby's Start."""
    room = hook.room(GROUP)
    found = table_button(hook, FAMILY[0], room, lambda b: str(b.value).endswith(".S"))
    assert found is not None, "no Start on the lobby"
    tap_on(hook, FAMILY[0], *found)
    assert hook.room(GROUP).status == "playing", "the game did not start"


def store_room(hook: Hook) -> Room | None:
    return hook.store().room_in_chat(GROUP, None)


def play_game(hook: Hook, family: str, pace: str, gap: float) -> Played:
    """One game to its end, counted from the start's press."""
    emu, clock, worker = hook.emu, hook.clock, hook.worker
    assert clock is not None and worker is not None
    played = Played(joins=open_table(hook, family))
    start = last = emu.last_seq()
    played.before = max(m.message_id for m in emu.messages_in(GROUP, include_deleted=True))
    start_game(hook)
    previous = None
    for _ in range(5000):
        if pace == "day":
            act(hook, lambda: worker.reach(clock() + gap))
        room = hook.room(GROUP)
        if room.status != "playing":
            break
        assert isinstance(room.game, GameState)
        seat = to_move(room.game)
        assert seat is not None
        name = room.seats[seat].name
        user_id = room.seats[seat].user_id or 0
        if name != previous:
            played.handed += 1
            played.told += told(emu.calls(since=last), user_id)
        last, previous = emu.last_seq(), name
        played.steps.setdefault(name, []).append(play_turn(hook, name))
        played.turns += 1
    room = hook.room(GROUP)
    assert room.status == "over", "the game did not end"
    settle(hook, emu.last_seq())  # the end's messages, once more (see `moved`)
    calls = emu.calls(since=start)
    played.moves = moves_of(room)
    played.calls = Counter(c["method"] for c in calls)
    played.group = group_counts(calls)
    worker.check()
    return played


# ----- figures ---------------------------------------------------------------------------


def per(count: float, moves: int) -> float:
    return round(count / max(1, moves), 3)


def taps(steps: list[Step]) -> int:
    return len(steps)


def left_group(steps: list[Step]) -> bool:
    """Whether a step was taken outside the group (in the private chat)."""
    return any(where != "group" for _what, where in steps)


def spread(values: list[int]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def ways(paths: list[list[Step]]) -> dict[str, int]:
    """How often each path was taken ("my cards@group > card@group": 3)."""
    return dict(Counter(" > ".join(f"{w}@{c}" for w, c in path) for path in paths))


def summary(games: list[Played]) -> dict[str, Any]:
    """The figures of games of one family at one pace."""
    moves = sum(g.moves for g in games)
    turns = sum(g.turns for g in games)
    calls = sum((g.calls for g in games), Counter[str]())
    group = sum((g.group for g in games), Counter[str]())
    firsts = [paths[0] for g in games for paths in g.steps.values()]
    laters = [path for g in games for paths in g.steps.values() for path in paths[1:]]
    joins = [path for g in games for path in g.joins.values()]
    return {
        "games": len(games),
        "moves": moves,
        "turns": turns,
        "bot_api_calls_per_move": per(sum(calls.values()), moves),
        "bot_api_calls_per_turn": per(sum(calls.values()), turns),
        "calls_by_method": dict(calls.most_common()),
        "group_per_move": {k: per(v, moves) for k, v in sorted(group.items())},
        "group_totals": dict(group),
        "turns_handed": sum(g.handed for g in games),
        "turns_told_share": per(sum(g.told for g in games), sum(g.handed for g in games)),
        "turns_outside_group": sum(map(left_group, firsts + laters)),
        "join_taps": spread([taps(p) for p in joins]),
        "first_turn_taps": spread([taps(p) for p in firsts]),
        "later_turn_taps": spread([taps(p) for p in laters]),
        "join_ways": ways(joins),
        "first_turn_ways": ways(firsts),
        "later_turn_ways": ways(laters),
    }


def measure(folder: Path, games: int, gap: float, target: int) -> dict[str, Any]:
    """Every family at every pace, each game in a product of its own."""
    found: dict[str, Any] = {"ephemeral": hasattr(botfather, "record_ephemeral"), "gap": gap}
    for family in FAMILIES:
        for pace in PACES:
            played = []
            for n in range(games):
                with product(folder / f"{family}-{pace}-{n}", target) as hook:
                    played.append(play_game(hook, family, pace, gap))
            found[f"{family}/{pace}"] = summary(played)
    return found


def report(found: dict[str, Any]) -> str:
    lines = [f"ephemeral messages on: {found['ephemeral']}; a day's gap: {found['gap']} s"]
    for key, figures in found.items():
        if not isinstance(figures, dict):
            continue
        lines.append(f"{key}: {figures['games']} games, {figures['moves']} moves")
        lines.append(f"  Bot API calls per move: {figures['bot_api_calls_per_move']}")
        lines.append(f"  group per move: {figures['group_per_move']}")
        lines.append(f"  turns passed to a player, told: {figures['turns_told_share']}")
        lines.append(f"  turns that left the group: {figures['turns_outside_group']}")
        for what in ("join", "first_turn", "later_turn"):
            low, mid, high = (figures[f"{what}_taps"][k] for k in ("min", "median", "max"))
            lines.append(f"  {what} taps: median {mid} (min {low}, max {high})")
            lines.append(f"    ways: {figures[f'{what}_ways']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games per family and pace")
    parser.add_argument("--gap", type=float, default=600.0, help="seconds between a day's moves")
    parser.add_argument("--target", type=int, default=2, help="the game ends at this score")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    logs.setup("bench", "console", "WARNING")  # the app and the jobs run in this process
    with tempfile.TemporaryDirectory(prefix="burro-group-hand-") as folder:
        found = measure(Path(folder), args.games, args.gap, args.target)
    print(report(found))
    if args.json is not None:
        args.json.write_text(json.dumps(found, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
