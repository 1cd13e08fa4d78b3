"""The table's view (issue #39) in headless Chromium, opened from the local chats as
people open it, with the product in real processes (cli.stack, `view=True` as `burro
local` runs it: serve, a worker, Redis) on the local Telegram and WhatsApp.

- A Telegram family (Ana, Ben, Carla) plays a Spanish Burro in their group to its end in
  the view: each opens it from the group table's "🖼" direct link in the web chat (a
  Mini App window at a phone's width), and every move is a tap on a raised card (else a
  move's button) in the mover's view; every view follows each move, the group's table in
  the chat follows too, and no view ever shows a card still in another player's hand.
- Abuela plays a one-to-one game against bots on WhatsApp to its end in the view, opened
  from the chat's call-to-action link, with the chat at a phone's width following.
- A launch whose initData was changed, or signed too long ago, and a link changed or
  expired, are each refused with the page's words, and show no table.
- A view cut off from its updates still shows a move that is gone: its tap is refused
  as stale, with a stale button's words, and nothing is played.
- serve restarts while two views are open (a phone's and a desktop's): they say the
  connection is lost, come back by themselves, and follow the next move, made in the
  chat."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import pytest

from cli.stack import LOCAL_VIEW_SECRET, TOKEN, Stack
from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage
from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from engine.follow_suit.game import GameState, to_move
from engine.registry import find_game
from service.access.checks import Refusal, ViewGrant, init_data_hash, sign_link
from service.i18n import Translator
from service.infra.view_links import known_link_key
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter
from service.view.texts import PAGE, REFUSED
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, browser, open_chat, page_at  # noqa: F401  (a fixture)
from tests.service.inproc import local_emulator
from tests.service.play import action_button, client_of, game_buttons, names_in, room_in, store_of

pytestmark = [NEEDS_CHROMIUM, pytest.mark.e2e]  # a browser and the product in processes
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Page, Route, expect

FAMILY = ("Ana", "Ben", "Carla")  # the emulator's: es, pt_BR, en
LANGS = {"Ana": "es", "Ben": "pt_BR", "Carla": "en"}
GROUP = "Family"
GROUP_ID = -1001000000001
ABUELA = "Abuela"
CARLA_ID = 100003
CLOCK = re.compile(r"\d:\d\d")  # a time of day in a message
STALE = "The table changed meanwhile: look again, then choose."
BACK = 80_000  # ms a view may take to come back: serve's start, then its next attempt
WAIT = 30_000  # ms a view may take to follow a move (real processes, a loaded machine)


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with local_emulator() as emulator:
        yield emulator


@pytest.fixture(scope="module")
def stack(emu: RunningEmulator, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    folder: Path = tmp_path_factory.mktemp("view")
    options = {"flood_limits": False, "bot_delay": 0.0, "persist": False, "view": True}
    env = {"BURRO_GAME_TARGET": "1"}  # one hand: a whole game in a test's time
    with Stack(folder, emulator_url=emu.api_url, env=env, **options) as running:  # type: ignore[arg-type]
        yield running


@pytest.fixture
def chat(browser: Browser) -> Iterator[Page]:  # noqa: F811
    """The web chat at a desktop's width (the views it opens come at a phone's)."""
    with page_at(browser, "desktop", timeout_ms=WAIT) as opened:
        yield opened


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, "phone", timeout_ms=WAIT) as opened:
        yield opened


# ----- a Telegram group's game, played in the views --------------------------------------


def test_a_family_plays_their_group_game_to_its_end_in_the_view(
    emu: RunningEmulator, stack: Stack, chat: Page
) -> None:
    open_group_table(chat, emu, stack)
    table = group_table(emu)
    views = {user: open_view_from_group(chat, emu, user, table) for user in FAMILY}
    for view in views.values():
        assert view.evaluate("window.innerWidth") == 390  # a Mini App at a phone's size
    moves = 0
    while (current := room_in(stack, GROUP_ID)).status == "playing":
        who = mover(current)
        for user, view in views.items():
            expect_turn(view, current, who)
            check_secrecy(view, current, user)
        tap_a_move(views[who], current)
        emu.wait_for(lambda: room_in(stack, GROUP_ID).version > current.version or None)
        moves += 1
        if moves % 8 == 1:  # the group's table in the chat follows the game
            chat_follows(chat, emu)
    assert moves >= len(FAMILY)
    for user, view in views.items():  # each says the game is over, in its player's language
        expect(view.locator("#end")).to_have_text(words(LANGS[user], PAGE["over"]), timeout=WAIT)
    emu.wait_for(lambda: rematch_offered(emu), timeout=30, what="the final table")
    chat_follows(chat, emu)


def open_group_table(chat: Page, emu: RunningEmulator, stack: Stack) -> None:
    """Ana writes /burro in the group, Ben and Carla join there, Ana starts."""
    emu.send_message("Ana", GROUP, "/burro spanish")
    for user in FAMILY[1:]:
        lobby = emu.wait_for_message(GROUP, lambda m: action_button(m, "J") is not None)
        emu.tap(user, lobby, label_of(lobby, "J"))
        emu.wait_for(partial(seated, stack, user), what=f"{user} seated")
    lobby = emu.wait_for_message(GROUP, lambda m: action_button(m, "S") is not None)
    emu.tap("Ana", lobby, label_of(lobby, "S"))
    emu.wait_for(lambda: room_in(stack, GROUP_ID).status == "playing" or None, what="the start")


def words(lang: str, text: str) -> str:
    return Translator(lang).gettext(text)


def label_of(message: ChatMessage, token: str) -> str:
    data = action_button(message, token)
    return next(b.text for row in message.buttons for b in row if b.value == data)


def seated(stack: Stack, user: str) -> bool | None:
    room = room_in(stack, GROUP_ID)
    return any(s.name.startswith(user) for s in room.seats) or None


def group_table(emu: RunningEmulator) -> ChatMessage:
    """The group's table with its "🖼" link to the view."""
    return emu.wait_for_message(GROUP, lambda m: any("🖼" in t for t in m.button_texts))


def open_view_from_group(chat: Page, emu: RunningEmulator, user: str, table: ChatMessage) -> Page:
    """As `user`, the table's 🖼 link tapped in the group: the view, opened for them."""
    open_chat(chat, emu, user, GROUP)
    link = chat.locator(f'[data-message-id="{table.message_id}"] .kb-btn', has_text="🖼")
    with chat.expect_popup() as opening:
        link.click()
    view = opening.value
    view.set_default_timeout(WAIT)
    expect(view.locator("#table [role=status]")).not_to_have_text("")  # drawn
    return view


def mover(current: Room) -> str:
    assert isinstance(current.game, GameState)
    seat = to_move(current.game)
    assert seat is not None
    return current.seats[seat].name.split()[0]


def expect_turn(view: Page, current: Room, who: str) -> None:
    """The view shows this moment: the mover marked ▶, and its reader's hand."""
    expect(view.locator("#table .p a.A")).to_contain_text(who, timeout=WAIT)
    assert isinstance(current.game, GameState)
    seat = next(n for n, s in enumerate(current.seats) if s.name.split()[0] == who)
    size = len(find_game(current.settings.preset)[0].hand(current.game, seat))
    acting = view.locator("#table .p a.A")  # the mover's card count, as all see it
    expect(acting).to_contain_text(re.compile(rf"(^|\s){size}(\s|$)"))


def tap_a_move(view: Page, current: Room) -> None:
    """The mover taps a raised card near its top left corner (the fanned cards overlap:
    that corner is the card's own), else their first move (a draw, a pass)."""
    assert isinstance(current.game, GameState)
    cards = view.locator("#table button.c[data-t]")
    moves = view.locator("#table button.b[data-t]")
    expect(cards.or_(moves).first).to_be_visible(timeout=WAIT)
    if cards.count():
        cards.first.click(position={"x": 4, "y": 6})
    else:
        moves.first.click()


def chat_follows(chat: Page, emu: RunningEmulator) -> None:
    """The web chat shows the group's newest message as the bot last wrote it (an edit
    coming meanwhile: the newer text): each of its lines but those with a time, which
    the page shows in the reader's time zone."""
    open_chat(chat, emu, "Ana", GROUP)
    for _ in range(3):
        newest = emu.last_message(GROUP)
        assert newest is not None
        shown = chat.locator(f'[data-message-id="{newest.message_id}"] .text')
        lines = [line for line in newest.text.splitlines() if line and not CLOCK.search(line)]
        try:
            for line in lines:
                expect(shown).to_contain_text(line, timeout=10_000)
            return
        except AssertionError:
            if emu.last_message(GROUP) == newest:
                raise


def rematch_offered(emu: RunningEmulator) -> bool:
    return any("🔁" in " ".join(m.button_texts) for m in emu.messages_in(GROUP))


def check_secrecy(view: Page, current: Room, viewer: str) -> None:
    """The view shows no card still in another player's hand, in any language."""
    assert isinstance(current.game, GameState)
    game = find_game(current.settings.preset)[0]
    hidden = {
        FollowSuitPainter(current, lang).card(code)
        for seat, info in enumerate(current.seats)
        if not info.name.startswith(viewer)
        for code in game.hand(current.game, seat)
        for lang in LANGS.values()
    }
    shown = view.locator("body").inner_text()
    labels = " ".join(
        view.locator("#table [aria-label]").evaluate_all("(e) => e.map((x) => x.ariaLabel)")
    )
    titles = " ".join(view.locator("#table title").all_text_contents())
    found = names_in(f"{shown} {labels} {titles}", hidden)
    assert not found, f"{viewer}'s view shows {found}"


# ----- WhatsApp: a one-to-one game in the view -------------------------------------------


def test_abuela_plays_a_whatsapp_game_to_its_end_in_the_view(
    emu: RunningEmulator, stack: Stack, phone: Page
) -> None:
    wa = emu.whatsapp
    open_whatsapp(phone, emu.url, ABUELA)
    offer = abuela_link(wa, stack)
    with phone.expect_popup() as opening:
        phone.locator(f'.wa-msg[data-wamid="{offer.id}"] .wa-cta').click()
    view = opening.value
    view.set_default_timeout(WAIT)
    room_id = link_grant(offer.cta.url if offer.cta else "").room_id
    moves = 0
    while (current := wa.wait_for(lambda: her_turn_or_end(stack, room_id))).status == "playing":
        expect_turn(view, current, ABUELA)
        check_secrecy(view, current, ABUELA)
        before = wa.messages(ABUELA)[-1].seq
        tap_a_move(view, current)
        wa.wait_for(lambda: room_of(stack, room_id).version > current.version or None)
        # her chat follows: a word or her next turn comes after the move
        wa.wait_for(partial(newer_than, wa, before), timeout=30)
        moves += 1
    assert moves >= 1  # a one-hand game: its length is the deal's (two moves, at times)
    expect(view.locator("#end")).to_have_text(words("es", PAGE["over"]), timeout=WAIT)
    last = wa.messages(ABUELA)[-1]
    expect(phone.locator(f'.wa-msg[data-wamid="{last.id}"]')).to_be_visible(timeout=WAIT)


def abuela_link(wa: WhatsAppDriver, stack: Stack, live: bool = True) -> WaChatMessage:
    """The chat's newest link to a table of Abuela's (`live`: still in play), else a
    new game's."""
    for message in reversed(wa.messages(ABUELA)):
        if message.cta is not None:
            room = room_of(stack, link_grant(message.cta.url).room_id)
            if not live or room.status == "playing":
                return message
            break
    after = wa.send(ABUELA, "nueva spanish").seq
    return wa.wait_for(
        lambda: next((m for m in wa.messages(ABUELA) if m.cta and m.seq > after), None),
        timeout=60,  # after her turn and its words, paced by WhatsApp's per-person rate
        what="the view's link",
    )


def newer_than(wa: WhatsAppDriver, seq: int) -> bool | None:
    return wa.messages(ABUELA)[-1].seq > seq or None


def her_turn_or_end(stack: Stack, room_id: str) -> Room | None:
    """The room once it is Abuela's turn or the game is over (the bots move at once)."""
    room = room_of(stack, room_id)
    return room if room.status != "playing" or mover(room) == ABUELA else None


def open_whatsapp(page: Page, url: str, user: str) -> None:
    """The web chat, `user` chosen in the user picker (a WhatsApp one)."""
    page.goto(f"{url}/")
    expect(page.locator("body")).to_have_attribute("data-wa-live", "true", timeout=WAIT)
    tab = page.locator(f'#users .user-tab[data-wa="true"][data-user="{user}"]')
    tab.click()
    expect(page.locator("#wa-chat")).to_be_visible(timeout=WAIT)


def link_grant(url: str) -> ViewGrant:
    """What a view link carries (its token after `#l=`), read without checking it."""
    token = dict(parse_qsl(urlsplit(url).fragment))["l"]
    person, room_id, issued, lasts, _mac = token.split(".")
    start = int(issued, 16)
    return ViewGrant(int(person, 16), room_id, start, start + int(lasts, 16))


def room_of(stack: Stack, room_id: str) -> Room:
    found = store_of(stack).load(room_id)
    assert found is not None
    return found


# ----- refusals -----------------------------------------------------------------------------


def test_a_changed_or_old_launch_and_a_changed_or_expired_link_are_refused(
    emu: RunningEmulator, stack: Stack, phone: Page
) -> None:
    launch = emu.open_mini_app("Ana", start_param="k3j9x0qa", app_url=stack.view_url)
    fields = dict(parse_qsl(launch["init_data"], keep_blank_values=True))
    forged = fields | {"user": fields["user"].replace("100001", "100002")}  # Ben's id
    old = fields | {"auth_date": str(int(fields["auth_date"]) - 2 * 3600)}
    old["hash"] = init_data_hash({k: v for k, v in old.items() if k != "hash"}, TOKEN)
    base = launch["url"].split("#")[0]
    for changed, reason in ((forged, Refusal.FORGED), (old, Refusal.TOO_OLD)):
        fragment = urlencode({"tgWebAppData": urlencode(changed)})
        refused(phone, f"{base}#{fragment}", words("es", REFUSED[reason]))

    offer = abuela_link(emu.whatsapp, stack, live=False)
    assert offer.cta is not None
    url = offer.cta.url
    grant = link_grant(url)
    token = dict(parse_qsl(urlsplit(url).fragment))["l"]
    altered = token[:-1] + ("A" if token[-1] != "A" else "B")
    base = url.split("#")[0]
    refused(phone, f"{base}#l={altered}", words("en", REFUSED[Refusal.FORGED]))
    key = known_link_key(client_of(stack), grant.person)
    assert key is not None
    now = int(time.time())
    expired = ViewGrant(grant.person, grant.room_id, now - 2 * 3600, now - 3600)
    stale = sign_link(LOCAL_VIEW_SECRET.encode(), key, expired)
    refused(phone, f"{base}#l={stale}", words("en", REFUSED[Refusal.EXPIRED]))


def refused(page: Page, url: str, said: str) -> None:
    """The page at `url` says `said` and draws no table."""
    page.goto("about:blank")  # a new load, not a jump within the page before
    page.goto(url)
    expect(page.locator("#end")).to_have_text(said, timeout=WAIT)
    expect(page.locator("#table [data-t]")).to_have_count(0, timeout=WAIT)
    expect(page.locator("#table .p")).to_have_count(0, timeout=WAIT)


# ----- a stale tap ------------------------------------------------------------------------


def test_a_tap_in_a_view_left_behind_is_refused_as_stale(
    emu: RunningEmulator,
    stack: Stack,
    phone: Page,
    browser: Browser,  # noqa: F811
) -> None:
    room = waits_for_her(stack, carla_far_from_the_end(emu, stack))
    launch = emu.open_mini_app("Carla", start_param=room.id, app_url=stack.view_url)
    held: list[Route] = []  # its stream is asked for and never answered: no update comes
    phone.route("**/view/events*", lambda route: held.append(route))
    phone.goto(launch["url"])
    expect(phone.locator("#table .h .c")).to_have_count(hand_size(room, 0), timeout=WAIT)
    move_in_the_chat(emu, stack)  # Carla moves on in the chat
    emu.wait_for(lambda: newer_room(stack, room))
    tap_a_move(phone, room)  # in the drawing left behind
    expect(phone.locator("#status")).to_have_text(words("en", STALE), timeout=WAIT)


def waits_for_her(stack: Stack, room: Room) -> Room:
    """The room with no move played for Carla: the bots' replies to her move then stop
    at her next turn. (A move of hers with one choice would be played at once, and a
    run of them, late in a hand, can end the game before her stale tap.)"""

    def no_forced_moves(fresh: Room) -> Outcome:
        fresh.settings.auto_forced = False
        return Outcome(changed=True)

    updated = store_of(stack).update(room.id, no_forced_moves)
    assert updated is not None
    return updated[0]


# ----- serve restarts ---------------------------------------------------------------------


def test_open_views_come_back_after_serve_restarts(
    emu: RunningEmulator,
    stack: Stack,
    phone: Page,
    browser: Browser,  # noqa: F811
) -> None:
    room = carla_plays_a_game(emu, stack)
    launch = emu.open_mini_app("Carla", start_param=room.id, app_url=stack.view_url)
    with page_at(browser, "desktop", timeout_ms=WAIT) as desktop:
        views = (phone, desktop)
        for view in views:
            view.goto(launch["url"])
            expect(view.locator("#status")).to_have_text(words("en", PAGE["live"]), timeout=WAIT)
            expect(view.locator("#table .h .c")).to_have_count(hand_size(room, 0), timeout=WAIT)
        stack.kill("serve")
        for view in views:
            expect(view.locator("#status")).to_have_text(words("en", PAGE["lost"]), timeout=WAIT)
        stack.start_serve()
        for view in views:  # back by themselves, within the page's longest wait (30 s ± 25 %)
            expect(view.locator("#status")).to_have_text(words("en", PAGE["live"]), timeout=BACK)
        move_in_the_chat(emu, stack)
        after = emu.wait_for(lambda: newer_room(stack, room))
        assert after.game != room.game  # her move (a play, a draw: it may leave as many cards)
        for view in views:  # and they follow it (and whatever the bots did next)
            follows(view, stack, room.id)


def follows(view: Page, stack: Stack, room_id: str) -> None:
    """Wait until the view shows Carla's hand as the room now holds it: the bots move at
    once after her, and a forced draw of hers may follow, so the room is read anew."""
    deadline = time.monotonic() + WAIT / 1000
    while (shown := view.locator("#table .h .c").count()) != hand_size(room_of(stack, room_id), 0):
        assert time.monotonic() < deadline, f"the view shows {shown} cards, not the room's"
        view.wait_for_timeout(200)  # the page's own clock: a repaint may be on its way


def carla_plays_a_game(emu: RunningEmulator, stack: Stack) -> Room:
    """Carla's one-to-one game against bots (a new one unless hers is still in play),
    once it is her turn."""
    running = store_of(stack).room_in_chat(CARLA_ID, None)
    if running is None or running.status != "playing":
        emu.send_message("Carla", "Carla", "/play spanish")
        lobby = emu.wait_for_message("Carla", lambda m: action_button(m, "S") is not None)
        emu.tap("Carla", lobby, label_of(lobby, "S"))
    emu.wait_for(lambda: her_move(emu, stack), what="Carla's turn")
    return room_in(stack, CARLA_ID)


def carla_far_from_the_end(emu: RunningEmulator, stack: Stack) -> Room:
    """Carla's game once every hand holds three cards or more: with no move played for
    her (`waits_for_her`), her next move and the bots' replies cannot end it (a game near
    its end is played out in the chat first, and a new one begun)."""
    room = carla_plays_a_game(emu, stack)
    while min(hand_size(room, seat) for seat in range(len(room.seats))) < 3:
        move_in_the_chat(emu, stack)
        emu.wait_for(partial(newer_room, stack, room), what="Carla's move applied")
        room = carla_plays_a_game(emu, stack)
    return room


def her_move(emu: RunningEmulator, stack: Stack) -> tuple[ChatMessage, str] | None:
    """Carla's newest hand once it offers this turn's moves (a widget, or text with
    buttons: the chat draws as it can), and her first move in it."""
    room = room_in(stack, CARLA_ID)
    if room.status != "playing":
        return None
    phase = f".{room.phase_version}."
    for message in reversed(emu.messages_in("Carla")):
        if "widget" in message.raw:
            data = json.loads(message.raw["widget"]["chat_data"])
            taps = [t for _code, t in data["h"] if t] + [a[1] for a in data["a"]]
            press = str(data["k"]) + str(taps[0]) if taps else ""
            return (message, press) if phase in press else None
        moves = [b for b in game_buttons(message) if phase in str(b.value)]
        if moves:
            return message, moves[0].text
    return None


def move_in_the_chat(emu: RunningEmulator, stack: Stack) -> None:
    """Carla's first move, tapped in her hand in the chat."""
    message, press = emu.wait_for(lambda: her_move(emu, stack), what="Carla's turn")
    if "widget" in message.raw:
        emu.widget_answer(emu.widget_request("Carla", message, press))
    else:
        emu.tap("Carla", message, press)


def newer_room(stack: Stack, room: Room) -> Room | None:
    found = room_of(stack, room.id)
    return found if found.version > room.version else None


def hand_size(room: Room, seat: int) -> int:
    assert isinstance(room.game, GameState)
    return len(find_game(room.settings.preset)[0].hand(room.game, seat))
