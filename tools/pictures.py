"""Screenshots of the table as the widget draws it, at a phone's width, for docs/.

    python -m tools.pictures [--out docs] [--width 390] [--html DIR]

Plays three games with random moves until the first player has a choice worth showing,
packs their picture (service.ui.picture) and renders the Telegram widget's own HTML
(`service.cards.widget.WIDGET_HTML`, given that picture as its chat data) in headless
Chromium: a one-to-one Spanish Burro in Spanish, Burro em Pé (French deck, the tent) in
English at a group's table, and cuartetos in Spanish. Writes `DIR/table-<name>.png`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from service.cards.widget import WIDGET_HTML
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings, new_game_key
from service.ui import games as screens
from service.ui.picture import pack

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path(os.environ.get("BURRO_CHROMIUM", "/usr/bin/chromium"))
PHONE = 390  # px: the width of a common phone's screen


@dataclass(frozen=True)
class Scene:
    """A game to play until `worth` holds for the first player, shown in `lang`."""

    name: str
    preset: str
    lang: str
    players: tuple[str, ...]  # the first is the reader; a one-to-one game seats bots
    private: bool
    worth: Callable[[Room], bool]


def _follow_suit_choice(room: Room) -> bool:
    """The reader's turn, some cards raised and some not, a trick on the table."""
    view = play.game(room).player_view(room.game, 0)
    plays = [a for a in view.legal if a.startswith("play:")]
    return bool(view.trick) and 0 < len(plays) < len(view.hand) and len(view.hand) >= 5


def _passing_choice(room: Room) -> bool:
    """The reader chooses a card to pass, after a first pass."""
    view = play.game(room).player_view(room.game, 0)
    return (
        view.rotation >= 1 and view.call is None and any(a.startswith("pass:") for a in view.legal)
    )


SCENES = (
    Scene("spanish-es", "spanish", "es", ("Lucía",), True, _follow_suit_choice),
    Scene("french-en", "burro_em_pe", "en", ("Ana", "Ben", "Carla"), False, _follow_suit_choice),
    Scene("cuartetos-es", "cuartetos", "es", ("Lucía", "Mateo", "Abuela"), False, _passing_choice),
)


def scene_room(scene: Scene, seed: int = 4) -> Room:
    """The scene's game, played with random moves until it is worth a picture: the same
    deal and moves for the same `seed` (a fresh key could deal a game with no such
    moment)."""
    first = Actor(1, scene.players[0], scene.lang)
    chat = first.user_id if scene.private else -100
    settings = RoomSettings(preset=scene.preset)
    room = lobby.create_room(chat, None, first, 0.0, private=scene.private, settings=settings)
    room.seed = new_game_key(random.Random(seed).getrandbits)
    for n, name in enumerate(scene.players[1:], start=2):
        lobby.join(room, Actor(n, name, scene.lang))
    while len(room.seats) < 4:
        lobby.add_bot(room, first)
    lobby.start(room, first, 0.0)
    rnd, now = random.Random(seed), 1.0
    for _ in range(2000):
        if room.status != "playing":
            break
        waiting = play.game(room).to_act(room.game)
        if 0 in waiting and scene.worth(room):
            return room
        now += 1.0
        if not waiting:
            play.expire(room, now + 1000.0, 0.0)
            continue
        seat = rnd.choice([s for s in waiting if s != 0] or list(waiting))
        play.act(room, seat, rnd.choice(play.game(room).legal_actions(room.game, seat)), now, 0.0)
    raise RuntimeError(f"no moment worth a picture in {scene.name}")


def widget_page(packed: str) -> str:
    """The widget's HTML, given its chat data as Telegram's app would."""
    api = (
        "<script>window.TelegramWidget={chatData:"
        + json.dumps(packed).replace("</", "<\\/")
        + ",ready:function(){document.title='drawn'}}</script><script>"
    )
    return WIDGET_HTML.replace("<body><script>", "<body>" + api, 1)


def screenshot(pages: dict[str, str], out: Path, width: int) -> list[Path]:
    """Each page, `width` px wide and as high as its table, as `out/table-<name>.png`."""
    from playwright.sync_api import sync_playwright

    written = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        context = browser.new_context(
            viewport={"width": width, "height": 400}, device_scale_factor=2
        )
        for name, html in pages.items():
            page = context.new_page()
            page.set_content(html)
            page.wait_for_function("document.title == 'drawn'")
            path = out / f"table-{name}.png"
            page.screenshot(path=str(path), full_page=True)
            written.append(path)
        browser.close()
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.pictures", description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--width", type=int, default=PHONE)
    parser.add_argument("--html", type=Path, help="also keep each page in this folder")
    args = parser.parse_args(argv)
    pages = {}
    for scene in SCENES:
        room = scene_room(scene)
        packed = pack(screens.painter(room, scene.lang).picture(0))
        pages[scene.name] = widget_page(packed)
        print(f"{scene.name}: {len(packed.encode())} bytes of chat data")
        if args.html:
            args.html.mkdir(parents=True, exist_ok=True)
            (args.html / f"table-{scene.name}.html").write_text(pages[scene.name], encoding="utf-8")
    for path in screenshot(pages, args.out, args.width):
        print(path)


if __name__ == "__main__":
    main()
