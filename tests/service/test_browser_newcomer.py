"""A new WhatsApp person's first two minutes, read in the web chat at a phone's width
(headless Chromium): "hola" is answered by our greeting (the game in a line, three
choices), "Play now" by their dealt hand and their turn, and a few moves tapped in the
page by what happened since, until something was done for them (a card played, cards
drawn) and the page said which. In Spanish, Brazilian Portuguese and Indonesian (the
emulator's Abuela, Vovó and Nenek).

What a person reads is asserted, not what the service meant: each message shown, with
its buttons or its list's rows tappable; nothing wider than the phone; their hand shown
before anything is done for them; a card played for them one they were shown holding
(or drawing), in the hand they last saw; cards drawn for them as many as said and each
named; no card of another's hand named (in the first hand: later, an earlier hand's
cards are held again). Each screen is saved as the phone shows it (`BURRO_SHOTS`, else
the test's own folder), to be read."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.newcomer import PLAYED, lines_saying, told_for
from emulator.whatsapp.driver import WaChatMessage
from engine.follow_suit.actions import decode
from engine.follow_suit.game import GameState
from service.i18n import Translator
from service.platforms.whatsapp.manual import GREETING
from service.table import games as table_games
from service.table import lobby
from service.table.room import KEY_BITS, Room
from service.ui.screens import card_name, spanish_suits
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, page_at  # noqa: F401  (a fixture)
from tests.emulator.test_web_whatsapp import (
    Chat,
    act,
    check_fits,
    check_prompt,
    open_whatsapp,
    shown,
)
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import choices, pick
from tests.service.whatsapp.test_whatsapp_game import player_of

pytestmark = [NEEDS_CHROMIUM, pytest.mark.e2e]  # a browser in its own processes
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, expect

# The emulator's people (emulator/whatsapp/config.py), their language and first word.
PEOPLE = {"Abuela": ("es", "hola"), "Vovó": ("pt_BR", "oi"), "Nenek": ("id", "halo")}
GAME_KEY = 11  # every game dealt from it: in its first hand a card is played for them
MOVES = 12  # at most this many taps for something to be done for them (2 or 3 take)
AFTER = 5  # and this many more moves read after it (a list among them, in this deal)
CHOICES = ("🎲 Play now", "👪 Family table", "❓ How to play")


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    """The product in this process, every game dealt from one key (the same first
    minutes every run)."""
    key = GAME_KEY | (1 << (KEY_BITS - 1))  # as new_game_key makes them
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lobby, "new_game_key", lambda: key)
        folder = tmp_path_factory.mktemp("newcomer")
        with running_service(folder, whatsapp_pair_rate=0.0, game_target=2) as running:
            yield running


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, "phone") as opened:
        yield opened


class Screens:
    """Each message as the phone shows it, saved in order: `<person>-<nn>-<what>.png`,
    and its text beside it (`.txt`: the picture of a message taller than the phone has
    its top hidden under the chat's header)."""

    def __init__(self, page: Page, folder: Path, user: str) -> None:
        self.page, self.folder, self.user = page, folder, user
        self.count = 0

    def save(self, message: WaChatMessage, what: str) -> None:
        self.count += 1
        name = self.folder / f"{self.user}-{self.count:02d}-{what}"
        found = shown(self.page, message)
        expect(found).to_have_attribute("data-status", "read")  # its last redraw: read
        found.screenshot(path=str(name.with_suffix(".png")))
        offered = "\n".join(f"[{title}]" for _id, title in choices(message))
        name.with_suffix(".txt").write_text(f"{found.inner_text()}\n{offered}\n")


def shots_folder(tmp_path: Path) -> Path:
    found = os.environ.get("BURRO_SHOTS")
    folder = Path(found) if found else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def hand_line(text: str, tr: Translator) -> list[str]:
    """The cards a message says the reader holds (its "Your cards:" line)."""
    lines = lines_saying(tr.gettext("Your cards: {cards}"), text)
    assert len(lines) == 1, f"no hand in:\n{text}"
    return lines[0]["cards"].split(" · ")


def others_cards(room: Room, seat: int, tr: Translator) -> list[str]:
    """The names of the cards in the other players' hands now."""
    game = room.game
    assert isinstance(game, GameState)
    rules = table_games.rules_of(room.settings)
    spanish = spanish_suits(rules.deck, rules.suit_style)
    codec = game.table.codec
    return [
        card_name(code, spanish, tr)
        for other, held in enumerate(game.hand.hands)
        if other != seat
        for code in codec.codes(held)
    ]


def check_secret(text: str, room: Room, seat: int, tr: Translator) -> None:
    """No card held by another is named (cards played are on the table: not theirs)."""
    for name in others_cards(room, seat, tr):
        assert not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text), (name, text)


def tap(page: Page, message: WaChatMessage, ident: str, screens: Screens) -> None:
    """Tap the reply button with this id; or open the list, see its sheet fit the phone
    (saved), and tap the row."""
    if message.buttons:
        act(page, message, ident)
        return
    shown(page, message).locator(".wa-list-open").click()
    sheet = page.locator("#wa-sheet-backdrop")
    expect(sheet).to_have_attribute("data-wamid", message.id)
    row = sheet.locator(f".wa-row[data-id={json.dumps(ident)}]")
    expect(row).to_be_visible()
    check_fits(page)  # every row's title whole
    screens.count += 1
    page.screenshot(path=str(screens.folder / f"{screens.user}-{screens.count:02d}-list.png"))
    row.click()
    expect(sheet).to_be_hidden()


@pytest.mark.parametrize("user", sorted(PEOPLE))
def test_a_newcomers_first_two_minutes_at_a_phones_width(
    hook: Hook, phone: Page, user: str, tmp_path: Path
) -> None:
    lang, word = PEOPLE[user]
    tr, chat = Translator(lang), Chat(hook.emu.whatsapp, user)
    screens = Screens(phone, shots_folder(tmp_path), user)
    open_whatsapp(phone, hook.emu.url, user)

    phone.locator("#wa-input").fill(word)
    phone.locator("#wa-input").press("Enter")
    expect(phone.locator(".wa-msg.mine", has_text=word)).to_be_visible()
    titles = [tr.gettext(c) for c in CHOICES]
    greeting = chat.wait("the greeting", lambda m: m.button_titles == titles, 0)
    check_prompt(phone, greeting)
    game_line = tr.gettext(GREETING).splitlines()[0]  # the game in a line
    expect(shown(phone, greeting).locator(".wa-text")).to_contain_text(game_line)
    for title in titles:  # one a row: each whole, tappable
        expect(shown(phone, greeting).get_by_role("button", name=title)).to_be_enabled()
    check_fits(phone)
    screens.save(greeting, "greeting")
    player = player_of(hook, user)
    assert hook.store().room_in_chat(player, None) is None  # nothing dealt before a choice

    act(phone, greeting, greeting.buttons[0].id)  # "Play now"
    prompt = chat.newest_prompt(greeting.seq)
    room = hook.room(player)
    seat = room.seat_of(player)
    assert isinstance(room.game, GameState) and seat is not None
    assert all(who != seat for who, _ in room.game.hand.actions), "done for them unseen"
    held = hand_line(prompt.text, tr)  # the hand they were dealt, before any move of theirs
    assert len(held) == len(room.game.table.codec.codes(room.game.hand.hands[seat]))

    tapped: set[str] = set()  # what the moves were tapped in: reply buttons, a list
    done_at = None  # the move after which something was first done for them
    hand_no = room.game.hand_no  # the hand of the last prompt read
    for move in range(MOVES):
        check_prompt(phone, prompt)
        check_fits(phone)
        if room.game.hand_no == 1:  # later, an earlier hand's cards may be held again
            check_secret(prompt.text, room, seat, tr)
        told = told_for(prompt.text, tr)
        played, drawn = told.played, told.drawn
        if room.game.hand_no == hand_no:  # a hand's own draws, each card named
            assert len(drawn) == told.drawn_count, f"drawn for them, unnamed: {prompt.text}"
        screens.save(prompt, "done-for-them" if played or drawn else "turn")
        for card in played if room.game.hand_no == hand_no else ():
            # one they were shown holding or drawing, told in their words
            assert card in held + drawn, f"{card} played for them, never shown: {held}"
            expect(shown(phone, prompt).locator(".wa-text")).to_contain_text(card)
        held, hand_no = hand_line(prompt.text, tr), room.game.hand_no
        assert not set(drawn) - set(held) - set(played), (drawn, held)
        if (played or drawn) and done_at is None:
            done_at = move
        if done_at is not None and move >= done_at + AFTER:
            break
        tap(phone, prompt, pick(prompt), screens)
        tapped.add("list" if prompt.rows else "buttons")
        prompt = chat.newest_prompt(prompt.seq)
        room = hook.room(player)
        assert isinstance(room.game, GameState)
    assert done_at is not None, f"nothing was done for {user} in {MOVES} moves"
    assert tapped == {"list", "buttons"}, f"only {tapped} tapped: a deal with both, please"
    assert choices(prompt), "after what was done for them, what to do next is offered"
    assert hook.worker is not None
    hook.worker.check()


FORCED_KEY = 7  # a deal whose newcomer has cards drawn and played for them before a look


def test_a_newcomer_whose_first_cards_are_forced_sees_them_first(
    hook: Hook, phone: Page, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Avó (pt_PT) is dealt a hand whose first turn is forced: her first screen is the
    hand she was dealt with that one move offered, nothing done for her yet; once she
    taps it, what the game then does for her (more cards drawn, the one card she can
    play) is told on her next screen, every card named, as the hand's record has it."""
    key = FORCED_KEY | (1 << (KEY_BITS - 1))
    monkeypatch.setattr(lobby, "new_game_key", lambda: key)
    user, tr = "Avó", Translator("pt_PT")
    chat, screens = Chat(hook.emu.whatsapp, user), Screens(phone, shots_folder(tmp_path), user)
    open_whatsapp(phone, hook.emu.url, user)
    phone.locator("#wa-input").fill("olá")
    phone.locator("#wa-input").press("Enter")
    greeting = chat.wait("the greeting", lambda m: len(m.buttons) == len(CHOICES), 0)
    act(phone, greeting, greeting.buttons[0].id)  # "Play now"
    first = chat.newest_prompt(greeting.seq)
    check_prompt(phone, first)
    check_fits(phone)
    screens.save(first, "first-look")
    player = player_of(hook, user)
    room = hook.room(player)
    seat = room.seat_of(player)
    assert isinstance(room.game, GameState) and seat is not None
    assert all(who != seat for who, _ in room.game.hand.actions), "done for her unseen"
    held = hand_line(first.text, tr)
    assert len(held) == len(room.game.table.codec.codes(room.game.hand.hands[seat]))
    (only,) = choices(first)  # her one move, offered, not made for her
    tap(phone, first, only[0], screens)
    prompt = chat.newest_prompt(first.seq)
    check_prompt(phone, prompt)
    screens.save(prompt, "done-for-her")
    room = hook.room(player)
    assert isinstance(room.game, GameState)
    check_secret(prompt.text, room, seat, tr)
    game = room.game
    mine = [decode(a, game.table.codec) for w, a in game.hand.actions if w == seat]
    assert len(mine) > 1, "this deal plays on for her after her first move"
    rules = table_games.rules_of(room.settings)
    spanish = spanish_suits(rules.deck, rules.suit_style)
    forced = [card_name(m.removeprefix("play:"), spanish, tr) for m in mine[1:] if "play:" in m]
    told = told_for(prompt.text, tr)
    assert set(told.played) == set(forced), f"not told as the record has it:\n{prompt.text}"
    assert told.drawn_count == sum(1 for m in mine if m.startswith("draw")), prompt.text
    assert len(told.drawn) == told.drawn_count  # every card drawn for her named
    bubble = shown(phone, prompt).locator(".wa-text")
    for card in told.played:
        expect(bubble).to_contain_text(tr.gettext(PLAYED[1], card=card))
