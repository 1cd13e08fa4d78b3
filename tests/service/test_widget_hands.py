"""A one-to-one game against a bot whose hand is a widget (Bot API 10.4), played
through the emulator with the product in this process: the first hand is sendWidget, a
move edits its data (no new message, nobody notified), a turn after a pause is a new
notifying widget and the old one goes; a tap in the widget (`widget_query`) plays the
card and is answered, a stale one is refused with a stale button's words, a redelivered
one is applied once; /look switches to text and back. Every widget's data fits 1,024
bytes and shows no card of the other seats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from emulator.server import RunningEmulator
from emulator.telegram.driver import ChatMessage, EmulatorError
from service.infra import metrics
from service.platforms.telegram import widgets
from service.table import play
from service.table.room import Room
from tests.service.inproc import CARLA, Hook, running_service
from tests.service.play import follow_suit_game, game_buttons, presses_applied, room_in

MOVES = 8  # Carla's moves counted for the figures
STALE = "This button is out of date: use the newest message."
# A stand-in for the widget's document (service.cards.widget.WIDGET_HTML, tested with
# the cards): the hand's delivery is tested here, whatever the document draws.
STAND_IN = "<!doctype html><html><head><meta charset='utf-8'></head><body></body></html>"
WIDGET_METHODS = ("sendWidget", "editMessageWidgetData", "editMessageCaption")
MESSAGE_METHODS = ("sendMessage", "editMessageText", "deleteMessage", *WIDGET_METHODS)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hook]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(widgets, "document", lambda: STAND_IN)
        folder = tmp_path_factory.mktemp("widgets")
        with running_service(folder, telegram_widgets=True) as running:
            yield running


@pytest.fixture
def emu(stack: Hook) -> Iterator[RunningEmulator]:
    yield stack.emu
    assert stack.worker is not None
    stack.worker.check()  # no job raised


def seq(emu: RunningEmulator) -> int:
    """The emulator's newest record: what comes after it is new."""
    log = emu.log()
    return int(log[-1]["seq"]) if log else 0


def data_of(message: ChatMessage) -> dict[str, Any]:
    widget = message.raw.get("widget")
    assert widget is not None, f"no widget in {message.text!r}"
    raw = widget["chat_data"]
    assert len(raw.encode()) <= 1024
    found: dict[str, Any] = json.loads(raw)
    return found


def hand_of(emu: RunningEmulator) -> ChatMessage | None:
    """Carla's newest message showing her hand (a widget, or a text with her moves'
    buttons); a word may have come after it."""
    for message in reversed(emu.messages_in("Carla")):
        if "widget" in message.raw or game_buttons(message):
            return message
    return None


def hand_widget(emu: RunningEmulator) -> ChatMessage:
    """Carla's hand, a widget with a move to tap (her turn)."""

    def ready() -> ChatMessage | None:
        hand = hand_of(emu)
        return hand if hand is not None and "widget" in hand.raw and taps(hand) else None

    return emu.wait_for(ready, what="Carla's widget with a move to tap")


def hand_text(emu: RunningEmulator) -> ChatMessage:
    """Carla's hand as text, with a move to tap (her turn)."""

    def ready() -> ChatMessage | None:
        hand = hand_of(emu)
        return hand if hand is not None and "widget" not in hand.raw else None

    return emu.wait_for(ready, what="Carla's hand as text")


def her_move(stack: Hook, emu: RunningEmulator) -> tuple[ChatMessage, str]:
    """Her hand once it is her turn, and a move of hers in it (its press)."""

    def ready() -> tuple[ChatMessage, str] | None:
        version = room_in(stack, CARLA["id"]).phase_version
        hand = hand_of(emu)
        if hand is None:
            return None
        presses = taps(hand) if "widget" in hand.raw else [str(b.value) for b in game_buttons(hand)]
        now = [p for p in presses if f".{version}." in p]
        return (hand, now[0]) if now else None

    return emu.wait_for(ready, what="Carla's turn")


def taps(message: ChatMessage) -> list[str]:
    """The presses the widget's taps send (`k` + each tap): the cards Carla may play,
    then her other moves (draw, pass)."""
    data = data_of(message)
    found = [tap for _code, tap in data["h"] if tap] + [tap for _label, tap, _tone in data["a"]]
    return [str(data["k"]) + str(tap) for tap in found]


def tap_of(message: ChatMessage) -> str:
    """A card of Carla's to play, else her other move."""
    return taps(message)[0]


def ask(emu: RunningEmulator, message: ChatMessage, data: str) -> str:
    """Carla's widget sends `data` (once her app lets it: 5 requests in 5 seconds),
    and the bot's answer."""

    def sent() -> str | None:
        try:
            return emu.widget_request("Carla", message, data)
        except EmulatorError as refused:
            if "too many widget requests" not in str(refused):
                raise
            return None

    query = emu.wait_for(sent, timeout=10, what="the app to let the request go")
    return emu.widget_answer(query).data


def assert_secret(stack: Hook, message: ChatMessage) -> None:
    """The widget shows Carla's own cards and none still hidden in another's hand."""
    data = data_of(message)
    room = room_in(stack, CARLA["id"])
    game = follow_suit_game(room)
    codes = game.table.codec.codes
    shown = {c for c, _tap in data["h"]} | {c for _s, c in data["m"]} | set(data["n"])
    assert {c for c, _tap in data["h"]} == set(codes(game.hand.hands[0]))
    for seat in range(1, len(room.seats)):
        hidden = set(codes(game.hand.hands[seat] & ~game.hand.known[seat]))
        assert not shown & hidden, f"seat {seat}'s {shown & hidden} in Carla's widget"


def far_from_the_hands_end(stack: Hook, emu: RunningEmulator) -> tuple[ChatMessage, Room]:
    """Her widget and the room once every hand holds three cards or more: a hand near
    its end is played on first (its news would come between, and her hand be posted
    again below it). A tap can still end it, her moves forced while she digs for the
    suit (see the test)."""
    while True:
        hand, room = widget_of_the_phase(stack, emu)
        game = follow_suit_game(room)
        if min(game.hand.hands[s].bit_count() for s in range(len(room.seats))) >= 3:
            return hand, room
        ask(emu, hand, tap_of(hand))
        settled(stack, emu, room.version)


def widget_of_the_phase(stack: Hook, emu: RunningEmulator) -> tuple[ChatMessage, Room]:
    """Her widget once it shows the room's phase as it is now, and the room: a sync the
    outbox put off for a second (its target locked a moment) comes after the worker
    settled, and a tap on the widget before it would be out of date."""

    def ready() -> tuple[ChatMessage, Room] | None:
        room = room_in(stack, CARLA["id"])
        hand = hand_of(emu)
        if hand is None or "widget" not in hand.raw or not taps(hand):
            return None
        return (hand, room) if f".{room.phase_version}." in tap_of(hand) else None

    return emu.wait_for(ready, what="Carla's widget showing the room's phase")


def settled(stack: Hook, emu: RunningEmulator, version: int) -> None:
    """Carla's move applied and the bots' answers shown."""
    presses_applied(emu, stack)
    emu.wait_for(lambda: room_in(stack, CARLA["id"]).version != version or None)
    assert stack.worker is not None
    stack.worker.settle()


def test_the_first_hand_is_a_widget_with_the_buttons_and_a_caption(
    stack: Hook, emu: RunningEmulator
) -> None:
    emu.send_message("Carla", "Carla", "/play spanish")
    lobby = emu.wait_for_message("Carla", lambda m: "▶️ Start" in m.button_texts)
    emu.tap("Carla", lobby, "▶️ Start")
    hand = hand_widget(emu)
    sent = [c for c in emu.calls("sendWidget") if c["result"]["message_id"] == hand.message_id]
    assert len(sent) == 1 and sent[0]["params"]["allow_queries"] in (True, "true")
    room = room_in(stack, CARLA["id"])
    caption = hand.text
    assert data_of(hand)["u"] in caption  # the status line
    taps = {str(b.value) for row in hand.buttons for b in row}
    assert tap_of(hand) in taps  # the widget's tap is a button's press
    assert f".{room.phase_version}." in tap_of(hand)
    assert_secret(stack, hand)


def test_a_tap_in_the_widget_plays_and_edits_the_widget_in_place(
    stack: Hook, emu: RunningEmulator
) -> None:
    for _ in range(10):
        hand, room = far_from_the_hands_end(stack, emu)
        before, since = data_of(hand), seq(emu)
        answer = ask(emu, hand, tap_of(hand))
        assert answer == ""  # played: nothing to say, as a button's press
        settled(stack, emu, room.version)
        if follow_suit_game(room_in(stack, CARLA["id"])).hand_no == follow_suit_game(room).hand_no:
            break
        # The hand ended within her tap: the bot's replies and her own forced moves (she
        # draws till she can follow, and plays the card found) played it out, and its
        # news came below her hand. The next hand is tried.
    else:
        raise AssertionError("every tap tried ended its hand")
    now = emu.last_message("Carla")
    assert now is not None and now.message_id == hand.message_id  # edited, not sent anew
    assert data_of(now) != before
    assert_secret(stack, now)
    calls = emu.calls(since=since)
    assert not [c for c in calls if c["method"] in ("sendWidget", "sendMessage")]
    assert [c for c in calls if c["method"] == "editMessageWidgetData"]
    assert not emu.notifications("Carla", since=since)  # an edit rings nobody


def test_a_stale_tap_is_refused_with_a_stale_buttons_words(
    stack: Hook, emu: RunningEmulator
) -> None:
    hand, room = widget_of_the_phase(stack, emu)
    old = tap_of(hand)
    ask(emu, hand, old)
    settled(stack, emu, room.version)
    hand, room = widget_of_the_phase(stack, emu)
    version = room.version
    assert ask(emu, hand, old) == STALE
    assert room_in(stack, CARLA["id"]).version == version


def widget_update(message: ChatMessage, data: str, update_id: int) -> dict[str, Any]:
    """A `widget_query` update as Telegram sends one (widgets.md, section 6)."""
    return {
        "update_id": update_id,
        "widget_query": {
            "id": f"wq{update_id}",
            "from": CARLA,
            "chat_instance": "1",
            "type": {"type": "data"},
            "data": data,
            "chat": {"id": CARLA["id"], "type": "private", "first_name": "Carla"},
            "message_id": message.message_id,
        },
    }


def test_a_redelivered_tap_is_applied_once(stack: Hook, emu: RunningEmulator) -> None:
    hand, room = widget_of_the_phase(stack, emu)
    update = widget_update(hand, tap_of(hand), 7_000_001)
    duplicates = metrics.UPDATES.labels("widget_query", "duplicate")
    presses = metrics.JOBS.labels("press", "ok")
    before, applied = duplicates._value.get(), presses._value.get()
    first, again = stack.send(update), stack.send(update)
    assert duplicates._value.get() == before + 1  # the second is known, not handled again
    expected = {"method": "answerWidgetQuery", "widget_query_id": "wq7000001", "data": ""}
    assert first.status_code == again.status_code == 200
    assert first.json() == again.json() == expected
    settled(stack, emu, room.version)
    assert presses._value.get() == applied + 1  # queued once, applied once


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"data": "not a press"}, "This button is not one of ours."),
        ({"data": "x" * 65}, "This button is not one of ours."),
        ({"type": {"type": "sign_data"}}, "This button is not one of ours."),
        ({"from": {"id": "Carla"}}, "I could not read this tap. Try again, or send /start."),
    ],
)
def test_a_request_that_is_no_press_gets_a_clear_answer(
    stack: Hook, emu: RunningEmulator, query: dict[str, Any], words: str
) -> None:
    hand = hand_widget(emu)
    update = widget_update(hand, "x", 7_100_000 + len(json.dumps(query)))
    update["widget_query"] |= query
    answered = stack.send(update)
    assert answered.status_code == 200
    assert answered.json()["data"] == words


def test_an_update_without_a_query_id_is_left_alone(stack: Hook, emu: RunningEmulator) -> None:
    hand = hand_widget(emu)
    update = widget_update(hand, tap_of(hand), 7_200_001)
    del update["widget_query"]["id"]
    assert stack.send(update).status_code == 200


def test_a_turn_after_a_pause_is_a_new_ringing_widget(
    stack: Hook, emu: RunningEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    worker = stack.worker
    assert worker is not None
    monkeypatch.setattr(stack.settings, "bot_delay", 600.0)  # the bot thinks for ten minutes
    for _ in range(20):  # until a move of hers leaves the bot to play
        old = hand_widget(emu)
        room = room_in(stack, CARLA["id"])
        ask(emu, old, tap_of(old))
        settled(stack, emu, room.version)
        if 0 not in play.waiting_humans(room_in(stack, CARLA["id"])):
            break
    since = seq(emu)

    def her_turn() -> bool | None:
        """Her turn again; till then, the clock on to the bot's next move."""
        if 0 in play.waiting_humans(room_in(stack, CARLA["id"])):
            return True
        worker.skip_ahead(at_most=1200)
        return None

    emu.wait_for(her_turn, what="the bot's moves")
    new = hand_widget(emu)
    assert new.message_id != old.message_id
    emu.wait_for(lambda: emu.message("Carla", old.message_id).deleted or None)  # one live hand
    # Her turn rang: the new hand, or a word just above it (a card played for her, that
    # told her the game goes on: the hand then comes quietly below it, workers.outbox).
    rang = [n["message_id"] for n in emu.notifications("Carla", since=since)]
    assert rang and max(rang) >= new.message_id - 1
    assert_secret(stack, new)


def test_look_text_then_pictures(stack: Hook, emu: RunningEmulator) -> None:
    assert stack.worker is not None
    widget = hand_widget(emu)
    emu.send_message("Carla", "Carla", "/look")
    choice = emu.wait_for_message("Carla", lambda m: "📝 Text" in m.button_texts)
    assert "🖼 Pictures" in choice.button_texts
    assert emu.tap("Carla", choice, "📝 Text").answer is not None
    text = hand_text(emu)
    emu.wait_for(lambda: emu.message("Carla", widget.message_id).deleted or None)
    assert text.text and text.message_id > widget.message_id
    stack.worker.settle()
    emu.tap("Carla", choice, "🖼 Pictures")
    drawn = hand_widget(emu)
    assert drawn.message_id > text.message_id
    emu.wait_for(lambda: emu.message("Carla", text.message_id).deleted or None)


def size(data: object) -> int:
    """A chat_data's bytes (the emulator's log keeps a JSON text parsed)."""
    text = (
        data
        if isinstance(data, str)
        else json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    )
    return len(text.encode())


def count_calls(stack: Hook, emu: RunningEmulator, moves: int) -> dict[str, int]:
    """Bot API calls on Carla's messages over her next `moves` moves (each answered by
    the bot), played by tapping her hand's first playable card."""
    since, played = seq(emu), 0
    while played < moves:
        room = room_in(stack, CARLA["id"])
        if room.status == "over":  # the figures go on in the next game
            final = emu.wait_for_message("Carla", lambda m: "🔁 Play again" in m.button_texts)
            emu.tap("Carla", final, "🔁 Play again")
            emu.wait_for(lambda: room_in(stack, CARLA["id"]).id != room.id or None)  # noqa: B023
            continue
        hand, press = her_move(stack, emu)
        if "widget" in hand.raw:
            ask(emu, hand, press)
        else:
            emu.tap("Carla", hand, press)
        settled(stack, emu, room.version)
        played += 1
    made = [c for c in emu.calls(since=since) if c["method"] in MESSAGE_METHODS]
    calls = [c["method"] for c in made]
    sizes = [size(c["params"]["chat_data"]) for c in made if "chat_data" in c["params"]]
    counted = {method: calls.count(method) for method in sorted(set(calls))}
    return counted | {"moves": played, "largest data": max(sizes, default=0)}


def test_calls_per_move_with_widgets_and_with_text(stack: Hook, emu: RunningEmulator) -> None:
    """The figures: Bot API calls on the hand per move of Carla's (printed with -s)."""
    hand_widget(emu)
    drawn = count_calls(stack, emu, MOVES)
    assert stack.worker is not None
    stack.worker.settle()
    emu.send_message("Carla", "Carla", "/look text")
    hand_text(emu)
    stack.worker.settle()
    written = count_calls(stack, emu, MOVES)
    print(f"\ncalls on the hand, widgets: {drawn}\ncalls on the hand, text: {written}")
    assert drawn["moves"] == written["moves"] == MOVES
    assert "editMessageWidgetData" in drawn and "editMessageText" not in drawn
    assert not set(WIDGET_METHODS) & set(written)
