"""The Telegram widget against Telegram's limits (issue #39): its HTML's size, raw and
after zlib level 9 (32,768 and 4,096 bytes), and the packed picture each update sends
as `chat_data` (1,024 bytes), for every preset.

Each preset is played to its end with random legal moves, `--games` games per preset and
language; after every move each seat's picture (service.ui.picture, as its painter makes
it) is packed within the limit, and whole (`limit=None`) to show how often the shrinking
steps had to give something up (the story first, then card names, then words cut).

    python -m bench.widget [--games 3] [--json FILE]

With `--calls`, Bot API calls per move with widgets against text hands: the whole
product in this process (tests/service/inproc.py `running_service`, the local Telegram
recording every call), Carla plays `--games` one-to-one Spanish Burros against three
bots to one hand's end, tapping her first legal card (else her first move) at each turn:
in her hand's widget (a `widget_query`, as the web chat sends it), or, after `/look` →
📝 Text, on the text hand's buttons. Counted from the lobby's Start to the game's end,
per move of the game's record (every card, draw and pass, the bots' too) and per tap of
hers.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from emulator.telegram import widgets as emulator_widgets
from emulator.telegram.driver import ChatMessage
from engine.follow_suit.game import GameState
from engine.registry import preset_names
from service.cards.widget import MAX_HTML, MAX_HTML_COMPRESSED, WIDGET_HTML
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games as screens
from service.ui.picture import MAX_WIDGET_DATA, pack
from tests.service.inproc import CARLA, Hook, running_service
from tests.service.play import action_button, game_buttons

LANGS = ("en", "es", "pt_BR", "id")  # the longest words decide the size
PLAYERS = ("Abuela", "Mateo", "Lucía", "Grandma")  # a group's four people
MAX_MOVES = 3000


@dataclass
class Sizes:
    """Bytes of each packed update of one preset, within the limit and whole."""

    packed: list[int] = field(default_factory=list)
    whole: list[int] = field(default_factory=list)

    def row(self) -> dict[str, float | int]:
        over = sum(1 for n in self.whole if n > MAX_WIDGET_DATA)
        return {
            "updates": len(self.packed),
            "median": statistics.median(self.packed),
            "max": max(self.packed),
            "whole_median": statistics.median(self.whole),
            "whole_max": max(self.whole),
            "shrunk_share": over / len(self.whole),
        }


def html_sizes() -> dict[str, int]:
    raw = WIDGET_HTML.encode("utf-8")
    return {
        "raw": len(raw),
        "raw_limit": MAX_HTML,
        "zlib9": len(zlib.compress(raw, 9)),
        "zlib9_limit": MAX_HTML_COMPRESSED,
    }


def new_room(preset: str, lang: str, private: bool) -> Room:
    """A started table: one person against bots in private, else four people."""
    people = PLAYERS[:1] if private else PLAYERS
    first = Actor(1, people[0], lang)
    chat = first.user_id if private else -100
    settings = RoomSettings(preset=preset)
    room = lobby.create_room(chat, None, first, 0.0, private=private, settings=settings)
    for n, name in enumerate(people[1:], start=2):
        lobby.join(room, Actor(n, name, lang))
    while len(room.seats) < 4:
        lobby.add_bot(room, first)
    lobby.start(room, first, 0.0)
    return room


def measure_game(room: Room, lang: str, seed: int, sizes: Sizes) -> None:
    """Random legal moves to the end; after each, every person's picture packed."""
    rnd, now = random.Random(seed), 1.0
    people = [n for n in range(len(room.seats)) if not room.is_bot_seat(n)]
    for _ in range(MAX_MOVES):
        if room.status != "playing":
            return
        painter = screens.painter(room, lang)
        for seat in people:
            picture = painter.picture(seat)
            sizes.packed.append(len(pack(picture).encode("utf-8")))
            sizes.whole.append(len(pack(picture, None).encode("utf-8")))
        now += 1.0
        waiting = play.game(room).to_act(room.game)
        if not waiting:
            play.expire(room, now + 1000.0, 0.0)
            continue
        seat = rnd.choice(sorted(waiting))
        play.act(room, seat, rnd.choice(play.game(room).legal_actions(room.game, seat)), now, 0.0)


def measure(games: int) -> dict[str, object]:
    rows: dict[str, dict[str, float | int]] = {}
    for preset in preset_names():
        sizes = Sizes()
        for lang in LANGS:
            for seed in range(games):
                private = seed % 2 == 0  # one-to-one and group tables alike
                measure_game(new_room(preset, lang, private), lang, seed, sizes)
        rows[preset] = sizes.row()
    return {"html": html_sizes(), "data_limit": MAX_WIDGET_DATA, "presets": rows}


# ----- Bot API calls per move: widgets against text hands -----------------------------------


def moves_of(room: Room) -> int:
    """Every card, draw and pass of the game's record, forced ones too."""
    game = room.game
    assert isinstance(game, GameState)
    hands = game.past if game.over else (*game.past, game.hand)  # the last is kept in both
    return sum(len(hand.actions) for hand in hands)


def her_room(hook: Hook) -> Room:
    found = hook.store().room_in_chat(CARLA["id"], None)
    assert found is not None
    return found


def settle(hook: Hook) -> None:
    assert hook.worker is not None
    hook.worker.settle()


def widget_press(message: ChatMessage, phase: str) -> str | None:
    """The press her widget's first raised card (else first move) sends, this turn."""
    widget = message.raw.get("widget")
    if not isinstance(widget, dict):
        return None
    data = json.loads(widget["chat_data"])
    taps = [t for _code, t in data["h"] if t] + [a[1] for a in data["a"]]
    press = str(data["k"]) + str(taps[0]) if taps else ""
    return press if phase in press else None


def text_press(message: ChatMessage, phase: str) -> str | None:
    """The label of her text hand's first card (else move) button, this turn."""
    if "widget" in message.raw:
        return None
    moves = [b for b in game_buttons(message) if phase in str(b.value)]
    cards = [b for b in moves if str(b.value).split(".")[2].startswith("p")]
    return (cards or moves)[0].text if moves else None


def her_turn(hook: Hook, widget: bool) -> tuple[ChatMessage, str]:
    """Her newest hand once it offers this turn's moves, and what she taps in it."""

    def ready() -> tuple[ChatMessage, str] | None:
        phase = f".{her_room(hook).phase_version}."
        for message in reversed(hook.emu.messages_in("Carla")):
            found = widget_press(message, phase) if widget else text_press(message, phase)
            if found:
                return message, found
        return None

    return hook.emu.wait_for(ready, what="Carla's turn")


def play_one(hook: Hook, widget: bool) -> tuple[Counter[str], int, int]:
    """One game to its end; the Bot API calls from its Start, its moves, her taps."""
    emu = hook.emu
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
    settle(hook)
    log = emu.log()
    since = int(log[-1]["seq"]) if log else 0
    data = action_button(lobby, "S")
    emu.tap("Carla", lobby, next(b.text for r in lobby.buttons for b in r if b.value == data))
    taps = 0
    while (room := her_room(hook)).status == "playing":
        message, press = her_turn(hook, widget)
        if widget:
            emu.widget_answer(emu.widget_request("Carla", message, press))
        else:
            emu.tap("Carla", message, press)
        emu.wait_for(lambda: her_room(hook).version > room.version or None)
        settle(hook)
        taps += 1
    settle(hook)
    calls = Counter(str(c["method"]) for c in emu.calls(since=since))
    return calls, moves_of(her_room(hook)), taps


def text_hands(hook: Hook) -> None:
    """Carla asks for text hands: /look, then 📝 Text."""
    hook.emu.send_message("Carla", "Carla", "/look")
    choice = hook.emu.wait_for_message("Carla", lambda m: "📝 Text" in m.button_texts)
    hook.emu.tap("Carla", choice, "📝 Text")
    settle(hook)


def measure_calls(games: int) -> dict[str, Any]:
    found: dict[str, Any] = {}
    with pytest.MonkeyPatch.context() as patch, tempfile.TemporaryDirectory() as folder:
        patch.setattr(emulator_widgets, "QUERIES", 10_000)  # taps faster than a person
        for mode in ("widget", "text"):
            with running_service(Path(folder) / mode, telegram_widgets=True, game_target=1) as hook:
                hook.emu.start("Carla")
                if mode == "text":
                    text_hands(hook)
                calls: Counter[str] = Counter()
                moves = taps = 0
                for _ in range(games):
                    more, played, tapped = play_one(hook, mode == "widget")
                    calls += more
                    moves += played
                    taps += tapped
            found[mode] = {
                "games": games,
                "moves": moves,
                "her_taps": taps,
                "calls_per_move": round(sum(calls.values()) / moves, 3),
                "calls_per_tap": round(sum(calls.values()) / taps, 3),
                "by_method_per_move": {m: round(n / moves, 3) for m, n in sorted(calls.items())},
            }
    return found


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.widget", description=__doc__)
    parser.add_argument("--games", type=int, default=3, help="games per preset and language")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--calls", action="store_true", help="Bot API calls per move instead")
    args = parser.parse_args(argv)
    if args.calls:
        calls = measure_calls(args.games)
        for mode, row in calls.items():
            print(
                f"{mode}: {row['moves']} moves ({row['her_taps']} hers),"
                f" {row['calls_per_move']} calls a move, {row['calls_per_tap']} a tap of hers"
            )
            print("   ", row["by_method_per_move"])
        if args.json:
            args.json.write_text(json.dumps(calls, indent=2) + "\n", encoding="utf-8")
        return
    found = measure(args.games)
    html = found["html"]
    print(f"widget HTML: {html['raw']} bytes raw, {html['zlib9']} zlib-9")  # type: ignore[index]
    print("preset        updates  median  max   whole median/max  shrunk")
    for preset, row in found["presets"].items():  # type: ignore[attr-defined]
        print(
            f"{preset:<13} {row['updates']:>7} {row['median']:>7.0f} {row['max']:>5}"
            f"   {row['whole_median']:>6.0f}/{row['whole_max']:<6} {row['shrunk_share']:>7.1%}"
        )
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
