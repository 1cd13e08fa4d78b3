"""Three relatives who never opened the bot play a whole game from their family group
alone, in the web chat (headless Chromium) at a phone's width and at a desktop's, with
BotFather's defaults (no inline mode) and ephemeral messages on (issue #38).

Ana writes /burro in the group; Ben and Carla tap Join there, no link to follow; Ana
starts. Each turn is played in the page as its player: "🃏 My cards" on the table shows
them their hand (an ephemeral message, theirs alone), a card's button in it plays; the
hand stays up to date after that. A turn that comes after a pause is said in the group,
naming its player (a text_mention that notified them). No page ever shows a card still
in another player's hand. Ben, his app switched offline, misses the hand he asked for,
and gets it again from the table's button once back online. The game's end shows in the
group, and nobody ever had a private chat with the bot."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from emulator.telegram.driver import ChatMessage, EmulatorError
from engine.follow_suit.game import GameState, to_move
from engine.registry import find_game
from service.infra.keys import live_key
from service.platforms.telegram import botfather
from service.table.room import Room
from service.ui.follow_suit import FollowSuitPainter
from tests.emulator.page_parts import button_in_page, message_in_page
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, open_chat, page_at  # noqa: F401  (a fixture)
from tests.service.inproc import GROUP, Hook, running_service
from tests.service.play import BOT_ID, action_button, game_buttons, names_in

pytestmark = [NEEDS_CHROMIUM, pytest.mark.e2e]  # a browser in its own processes
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Locator, Page, expect

PLAYERS = ("Ana", "Ben", "Carla")  # the emulator's: es, pt_BR, en
LANGS = ("es", "pt_BR", "en")
OFFLINE = "Ben"  # misses a hand once
PAUSED_TURNS = 3  # the first turns come after a pause: each is said with a mention


@pytest.fixture
def hook(tmp_path: Path) -> Iterator[Hook]:
    """The product in this process, BotFather's defaults, a game to one hand's end."""
    with running_service(tmp_path, bot_settings={}, game_target=1) as running:
        botfather.record_ephemeral(running.redis, True)  # as serve's probe finds it
        yield running


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    # the offline switch's fetch may fail while the app is off: the page says nothing
    with page_at(browser, request.param, script_errors=True) as opened:
        yield opened


def test_three_relatives_play_a_whole_game_from_the_group(hook: Hook, page: Page) -> None:
    open_table(page, hook)
    turns, called = play_out(page, hook)
    assert called and turns >= len(PLAYERS)
    hook.emu.wait_for(lambda: rematch_offered(hook), timeout=30, what="the final table")
    settle(hook)  # the hands in the group go once the game is over: the table shows
    for user in PLAYERS:  # each of them sees the game's end, in the group
        as_user(page, hook, user)
        rematch = page.locator(".msg .kb-btn", has_text="🔁").last
        expect(rematch).to_be_visible(timeout=20_000)
    for user in PLAYERS:
        assert not private_messages(hook, user), f"{user} got a private message"


def open_table(page: Page, hook: Hook) -> None:
    """Ana writes /burro in the group, Ben and Carla join there, Ana starts."""
    open_chat(page, hook.emu, PLAYERS[0], "Family")
    page.locator("#input").fill("/burro spanish")
    page.locator("#input").press("Enter")
    for user in PLAYERS[1:]:
        as_user(page, hook, user)
        press(page, hook, user, "J")  # no link to follow: seated from the group
        hook.emu.wait_for(partial(seated, hook, user), what=f"{user} seated")
    as_user(page, hook, PLAYERS[0])
    press(page, hook, PLAYERS[0], "S")
    hook.emu.wait_for(lambda: room(hook).status == "playing" or None, what="the start")
    table_with(hook, "H")  # the game's table, then what else the start sent
    settle(hook)  # before any pause


def play_out(page: Page, hook: Hook) -> tuple[int, int]:
    """Every turn played in the page by its player, the first ones after a pause (the
    next player then called by name), Ben's first after missing a hand; the turns played
    and the calls checked."""
    turns, called, missed = 0, 0, False
    while (current := room(hook)).status == "playing":
        who, paused = mover(current), turns < PAUSED_TURNS
        if paused:
            pause(hook)
        as_user(page, hook, who)
        check_secrecy(page, hook, current, who)
        if who == OFFLINE and not missed:
            miss_a_hand(page, hook, who)
            missed = True
        newest = hook.emu.last_message(GROUP)
        play_a_card(page, hook, who, current)
        after = room(hook)
        if paused and after.status == "playing" and mover(after) != who:
            as_user(page, hook, mover(after))  # their turn, after a pause: said by name
            check_called(page, hook, mover(after), newest.message_id if newest else 0)
            called += 1
        turns += 1
    assert missed, f"{OFFLINE} never played"
    return turns, called


# ----- the room and its players ----------------------------------------------------------


def room(hook: Hook) -> Room:
    found = hook.store().room_in_chat(GROUP, None)
    assert found is not None
    return found


def seated(hook: Hook, user: str) -> bool | None:
    return any(s.name.startswith(user) for s in room(hook).seats) or None


def mover(current: Room) -> str:
    assert isinstance(current.game, GameState)
    seat = to_move(current.game)
    assert seat is not None
    return current.seats[seat].name.split()[0]


def pause(hook: Hook) -> None:
    """Time passes past the live window: nobody is in live play any more."""
    assert hook.worker is not None and hook.clock is not None
    hook.worker.reach(hook.clock() + hook.settings.live_window + 60)
    settle(hook)


def settle(hook: Hook) -> None:
    """Wait until the jobs queued so far have run."""
    assert hook.worker is not None
    hook.worker.settle()


def rematch_offered(hook: Hook) -> bool:
    """Whether the group shows the final table, its rematch button on it."""
    return any("🔁" in " ".join(m.button_texts) for m in hook.emu.messages_in(GROUP))


def private_messages(hook: Hook, user: str) -> list[ChatMessage]:
    try:
        return [m for m in hook.emu.messages_in(user) if m.sender_id == BOT_ID]
    except EmulatorError:  # no private chat at all
        return []


# ----- the page, as one of them ----------------------------------------------------------


def as_user(page: Page, hook: Hook, user: str) -> None:
    """The page shows the group as `user`'s app does: their tab chosen, and once the
    chat is read again for them, their ephemeral messages and no one else's."""
    page.locator(f'.user-tab[data-user="{user}"]').click()
    expect(page.locator(f'.user-tab[data-user="{user}"]')).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.locator("#chat-title")).to_have_text("Family")
    theirs = [f"e{m.ephemeral_message_id}" for m in hook.emu.ephemeral_messages(user, GROUP)]
    expect(page.locator(".msg.ephemeral")).to_have_count(len(theirs))
    for key in theirs:
        expect(page.locator(f'.msg.ephemeral[data-message-id="{key}"]')).to_have_count(1)


def press(page: Page, hook: Hook, user: str, token: str) -> None:
    """Tap, in the page, the newest group message's button for a compact action (J join,
    S start, H my cards), whatever its label's language."""
    message = table_with(hook, token)
    data = action_button(message, token)
    assert data is not None
    tap(page, hook, user, button_in_page(page, message, data))


def tap(page: Page, hook: Hook, user: str, button: Locator) -> None:
    """Tap a button in the page as `user` would, and wait for the bot's answer: an
    alert is read and closed, as a person closes it."""
    answered = len(hook.emu.callback_answers(user))
    button.click()
    answers = hook.emu.wait_for(
        lambda: (found := hook.emu.callback_answers(user))[answered:] and found,
        what=f"the answer to {user}'s tap",
    )
    if answers[-1].show_alert:
        expect(page.locator("#alert-text")).to_have_text(answers[-1].text or "")
        page.locator("#alert-ok").click()
        expect(page.locator("#alert-backdrop")).to_be_hidden()


def table_with(hook: Hook, token: str) -> ChatMessage:
    """The newest group message with a button for `token`."""
    return hook.emu.wait_for_message(
        GROUP, lambda m: not m.deleted and action_button(m, token) is not None, timeout=20
    )


def hand_of(hook: Hook, user: str, current: Room) -> ChatMessage | None:
    """`user`'s hand as their app shows it in the group, if it offers this phase's moves."""
    phase = f"{current.id}.{current.phase_version}."
    for message in reversed(hook.emu.ephemeral_messages(user, GROUP)):
        moves = game_buttons(message)
        if moves and str(moves[0].value).startswith(phase):
            return message
    return None


def play_a_card(page: Page, hook: Hook, user: str, current: Room) -> None:
    """Their hand (asked for on the table when it is not shown), a move tapped in it."""
    if hand_of(hook, user, current) is None:
        press(page, hook, user, "H")
    hand = hook.emu.wait_for(lambda: hand_of(hook, user, current), what=f"{user}'s hand")
    assert hand.receiver_id == next(s.user_id for s in current.seats if s.name.startswith(user))
    phase = f"{current.id}.{current.phase_version}."
    moves = [b for b in game_buttons(hand) if str(b.value).startswith(phase)]
    cards = [b for b in moves if str(b.value).split(".")[2].startswith("p")]
    expect(message_in_page(page, hand)).to_have_class(re.compile(r"\bephemeral\b"))
    tap(page, hook, user, button_in_page(page, hand, str((cards or moves)[0].value)))
    hook.emu.wait_for(lambda: room(hook).version > current.version or None, what=f"{user}'s move")
    assert hook.worker is not None
    hook.worker.settle()


def miss_a_hand(page: Page, hook: Hook, user: str) -> None:
    """Offline, `user` asks for their hand: it is sent, and never arrives; back online,
    the table's button brings it."""
    emu = hook.emu
    page.locator("#my-online").uncheck()
    emu.wait_for(lambda: not online(hook, user), what=f"{user} offline")
    seq = emu.last_seq()
    press(page, hook, user, "H")
    emu.wait_for(lambda: sent_ephemeral(hook, user, seq), what=f"a hand sent to {user}")
    assert emu.ephemeral_messages(user, GROUP) == []
    expect(page.locator(".msg.ephemeral")).to_have_count(0)
    page.locator("#my-online").check()
    emu.wait_for(lambda: online(hook, user), what=f"{user} online")


def online(hook: Hook, user: str) -> bool:
    found = next(u for u in hook.emu.state()["users"] if u["first_name"] == user)
    return bool(found["online"])


def sent_ephemeral(hook: Hook, user: str, since: int) -> bool:
    """Whether the bot sent `user` an ephemeral message since `since` (and it was ok)."""
    user_id = 100001 + PLAYERS.index(user)
    for call in hook.emu.calls("sendMessage", since=since):
        params = call["params"].get("ephemeral_message_parameters")
        if call.get("ok") and params is not None:
            receiver = params.get("receiver_user_id") if isinstance(params, dict) else None
            if receiver in (None, user_id):  # a reply to their press names nobody
                return True
    return False


def told_since(hook: Hook, after: int) -> object:
    """What the group was told after message `after`, and what the room knows."""
    current = room(hook)
    said = [
        (m.message_id, m.text[-120:], m.raw.get("entities"))
        for m in hook.emu.messages_in(GROUP, include_deleted=True)
        if m.message_id > after
    ]
    live = hook.redis.hgetall(live_key(current.id))
    return {"said": said, "blocked": current.blocked, "live": live, "mover": mover(current)}


# ----- what pages show -------------------------------------------------------------------


def check_secrecy(page: Page, hook: Hook, current: Room, viewer: str) -> None:
    """Neither the viewer's page nor the group as their app has it shows a card still
    in another player's hand, in any of the players' languages."""
    assert isinstance(current.game, GameState)
    game = find_game(current.settings.preset)[0]
    hidden = {
        FollowSuitPainter(current, lang).card(code)
        for seat, info in enumerate(current.seats)
        if not info.name.startswith(viewer)
        for code in game.hand(current.game, seat)
        for lang in LANGS
    }
    theirs = hook.emu.messages_in(GROUP, user=viewer)
    told = " ".join(m.text + " " + " ".join(m.button_texts) for m in theirs)
    assert not names_in(told, hidden), f"{viewer}'s app has {names_in(told, hidden)}"
    shown = " ".join(page.locator(".msg").all_inner_texts())
    assert not names_in(shown, hidden), f"{viewer}'s page shows {names_in(shown, hidden)}"


def check_called(page: Page, hook: Hook, user: str, after: int) -> None:
    """A group message after `after` names the player whose turn came after a pause,
    and it rang for them; their page shows their name in it."""
    user_id = next(s.user_id for s in room(hook).seats if s.name.startswith(user))

    def names_them(message: ChatMessage) -> bool:
        entities = message.raw.get("entities", [])
        return message.message_id > after and any(
            e["type"] == "text_mention" and e["user"]["id"] == user_id for e in entities
        )

    try:
        called = hook.emu.wait_for_message(GROUP, names_them, timeout=20)
    except TimeoutError:
        raise AssertionError(f"{user} was not called: {told_since(hook, after)}") from None
    assert user_id in called.notified
    name = page.locator(f'[data-message-id="{called.message_id}"] .link', has_text=user)
    expect(name.first).to_be_visible()
