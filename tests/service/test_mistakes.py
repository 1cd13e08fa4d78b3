"""Mistakes answered precisely: a move typed that is no button of the person's prompt
is refused with its reason, in their language, and the live choices come with it.

The desk over fakeredis (no worker: the bots' jobs wait), a game against bots whose
state is walked to the shape each test needs."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from itertools import count
from typing import Any

import fakeredis
import pytest
from pydantic import SecretStr

from engine.kernel.errors import IllegalAction, MustFollowSuit
from service.desk import prompts
from service.desk.asks import CommandAsk, Place, PressAsk, Reply, Request, Sender, TypedMoveAsk
from service.desk.desk import Desk
from service.i18n import Translator
from service.infra import keys
from service.infra.store import Store
from service.platforms.links import ServiceLinks
from service.platforms.whatsapp.manual import WhatsAppManual
from service.services import Services
from service.settings import Settings
from service.table import targets
from service.table.games import game_of, rules_of
from service.table.identity import TELEGRAM
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui import tokens
from service.ui.intents import Command, Move, Press
from service.ui.screens import SPANISH_SUITS, card_name

PLAYER = 501
SEED = 15  # a game whose walk meets every shape below
State = Any
Shape = Callable[[State, int], bool]
# Each language's words for: not held, follow (copas: 7 · As), the empty stock, a card
# to play; the seat's own hand in the walked states below.
SAID = {
    "es": (
        "No tienes esa carta: Rey de copas.",
        "Tienes que asistir a copas: 7 · As.",
        "El mazo está vacío: pasa.",
        "Tienes una carta que jugar.",
    ),
    "pt_BR": (
        "Você não tem essa carta: Rei de copas.",
        "Você precisa seguir o naipe de copas: 7 · Ás.",
        "O monte está vazio: passe.",
        "Você tem uma carta para jogar.",
    ),
    "pt_PT": (
        "Não tens essa carta: Rei de copas.",
        "Tens de assistir a copas: 7 · Ás.",
        "O monte está vazio: passa.",
        "Tens uma carta para jogar.",
    ),
    "en": (
        "You don't have the King of cups.",
        "You must follow cups: 7 · Ace.",
        "The stock is empty: pass.",
        "You have a card to play.",
    ),
    "id": (
        "Kamu tidak memegang kartu itu: Raja cawan.",
        "Kamu harus mengikuti cawan: 7 · As.",
        "Tumpukan sudah habis: lewat.",
        "Kamu punya kartu untuk dimainkan.",
    ),
}


def services() -> Services:
    settings = Settings(
        telegram_token=SecretStr("123456:mistakes"),
        webhook_secret=SecretStr("mistakes-secret"),
        rate_limits=False,
        bot_delay=0.0,
    )
    clock = count(1_700_000_000)
    return Services(settings, Store(fakeredis.FakeRedis(), 3600, 3600), lambda: next(clock))


class Table:
    """One person's game against bots at the desk, in their language."""

    def __init__(self, lang: str, preset: str = "spanish") -> None:
        self.svc = services()
        self.desk = Desk(self.svc, WhatsAppManual(), ServiceLinks(self.svc))
        self.lang, self.marks = lang, count(1)
        self.svc.store.set_user_language(PLAYER, lang)
        self.ask(CommandAsk("play", (preset,)))

    def ask(self, ask: Any, platform: str = "whatsapp") -> Reply:
        sender = Sender(PLAYER, "Abuela", self.lang, platform=platform)
        edits = platform != "whatsapp"  # WhatsApp cannot edit a message: each is new
        request = Request(f"m{next(self.marks)}", sender, Place(PLAYER), ask, edits=edits)
        handled = asyncio.run(self.desk.handle(request))
        assert handled.outcome == "ok", handled
        return handled.reply

    @property
    def room(self) -> Room:
        room = self.svc.store.room_in_chat(PLAYER, None)
        assert room is not None
        return room

    @property
    def seat(self) -> int:
        seat = self.room.seat_of(PLAYER)
        assert seat is not None
        return seat

    def walk_to(self, shape: Shape) -> State:
        """Deal the game of SEED and play on (the first, then other legal moves) until
        the person's turn has the shape; the room is left there, a new phase."""
        room = self.room
        g, seat = game_of(room.settings.preset), self.seat
        rules, seats = rules_of(room.settings), len(room.seats)
        state = g.new_game(rules, seats, SEED, 0.0, seats - 1)  # the same game every time
        for step in range(2000):
            to_act = g.to_act(state)
            assert to_act and g.result(state) is None, "no such turn in this game"
            if to_act[0] == seat and shape(state, seat):
                break
            legal = g.legal_actions(state, to_act[0])
            state, _events = g.apply(state, to_act[0], legal[step * 7 % len(legal)], 0.0)

        def arranged(fresh: Room) -> Outcome:
            fresh.game = state
            fresh.version += 1
            fresh.phase_version = fresh.version
            return Outcome(changed=True)

        self.svc.store.update(room.id, arranged)
        return state

    def typed(self, move: str) -> Reply:
        return self.ask(TypedMoveAsk(self.room.id, move))


def must_follow(state: State, seat: int) -> bool:
    """The seat holds the led suit and another one: the other is refused."""
    g = game_of("spanish")
    legal = g.legal_actions(state, seat)
    return bool(plays(legal)) and off_suit(state, seat) is not None


def off_suit(state: State, seat: int) -> str | None:
    """A card the seat holds that the led suit forbids, if any."""
    g = game_of("spanish")
    for card in g.hand(state, seat):
        try:
            g.apply(state, seat, f"play:{card}", 0.0)
        except MustFollowSuit:
            return str(card)
        except IllegalAction:
            return None
    return None


def only_pass(state: State, seat: int) -> bool:
    return list(game_of("spanish").legal_actions(state, seat)) == ["pass"]


def leading(state: State, seat: int) -> bool:
    legal = game_of("spanish").legal_actions(state, seat)
    return len(plays(legal)) == len(game_of("spanish").hand(state, seat)) > 1


def plays(legal: list[str]) -> list[str]:
    return [a for a in legal if a.startswith("play:")]


def buttons(reply: Reply) -> list[str]:
    """The moves a reply offers as its buttons (the tip beside them aside)."""
    moves = []
    for line in reply.lines:
        for row in line.choices:
            for choice in row:
                press = tokens.press(choice.ask)
                assert press is not None
                if press.what == Command("tip"):
                    continue
                assert isinstance(press.what, Move)
                moves.append(press.what.action)
    return sorted(moves)


def text(reply: Reply) -> str:
    assert len(reply.lines) == 1, reply
    return reply.lines[0].text


def hold_walk(table: Table, shape: Shape, card: str) -> State:
    """Walk to `shape` where the person does not hold `card` (seeds differ by table)."""
    g = game_of("spanish")
    return table.walk_to(lambda s, seat: shape(s, seat) and card not in g.hand(s, seat))


@pytest.mark.parametrize("lang", sorted(SAID))
def test_a_card_not_held_is_refused_and_nothing_else_is_said(lang: str) -> None:
    table = Table(lang)
    state = hold_walk(table, leading, "KH")
    reply = table.typed("card:KH")
    assert text(reply) == SAID[lang][0]
    g, seat = game_of("spanish"), table.seat
    assert buttons(reply) == sorted(g.legal_actions(state, seat))[:10] or not buttons(reply)
    assert table.room.game == state  # nothing was played


@pytest.mark.parametrize("lang", sorted(SAID))
def test_a_held_card_of_another_suit_names_the_suit_and_the_cards_to_follow(lang: str) -> None:
    table = Table(lang)
    g = game_of("spanish")
    state = table.walk_to(
        lambda s, seat: (
            must_follow(s, seat)
            and sorted(plays(g.legal_actions(s, seat))) == ["play:7H", "play:AH"]
        )
    )
    seat = table.seat
    wrong = off_suit(state, seat)
    reply = table.typed(f"card:{wrong}")
    assert text(reply) == SAID[lang][1]
    assert buttons(reply) == ["play:7H", "play:AH"]  # the live choices, to tap


@pytest.mark.parametrize("lang", sorted(SAID))
def test_drawing_from_an_empty_stock_is_told_to_pass(lang: str) -> None:
    table = Table(lang)
    table.walk_to(only_pass)
    reply = table.typed("draw")
    assert text(reply) == SAID[lang][2]
    assert buttons(reply) == ["pass"]


@pytest.mark.parametrize("lang", sorted(SAID))
def test_drawing_with_a_card_to_play_is_told_so(lang: str) -> None:
    table = Table(lang)
    state = table.walk_to(leading)
    for word in ("draw", "pass"):
        reply = table.typed(word)
        assert text(reply) == SAID[lang][3]
        assert buttons(reply)  # the cards to play, to tap
    assert table.room.game == state


def test_a_typed_move_legal_after_all_is_played() -> None:
    table = Table("es")
    state = table.walk_to(leading)
    seat = table.seat
    card = game_of("spanish").hand(state, seat)[0]
    table.typed(f"card:{card}")
    assert table.room.game != state  # played as its button would have


def test_not_your_turn_is_said_without_a_word_of_another_hand() -> None:
    table = Table("en")
    room = table.room
    g, seat = game_of("spanish"), table.seat
    state = table.walk_to(lambda s, me: True)
    # a bot's turn now: the person types a card a bot holds
    after, _events = g.apply(state, seat, g.legal_actions(state, seat)[0], 0.0)
    other = g.to_act(after)[0]
    assert other != seat

    def arranged(fresh: Room) -> Outcome:
        fresh.game = after
        fresh.version += 1
        fresh.phase_version = fresh.version
        return Outcome(changed=True)

    table.svc.store.update(room.id, arranged)
    theirs = g.hand(after, other)[0]
    reply = table.typed(f"card:{theirs}")
    assert text(reply) == "It is not your turn."
    assert buttons(reply) == []


def test_an_old_button_tapped_on_whatsapp_offers_the_live_choices() -> None:
    """Said once per old prompt, with the live moves as its buttons (issue #37), whether
    the current prompt is just above or buried under later messages."""
    table = Table("es")
    state = table.walk_to(leading)
    room, redis = table.room, table.svc.store.redis
    old = Press(room.id, room.phase_version - 1, Move("draw"))
    said = "Ese botón es de un turno anterior: no se jugó nada."
    reply = table.ask(PressAsk(old, tapped=True, prompt="wamid.old"))
    live = sorted(game_of("spanish").legal_actions(state, table.seat))
    assert text(reply) == said  # the live prompt is just above: its moves, again
    assert buttons(reply) == live or (len(live) > 10 and not buttons(reply))
    assert table.ask(PressAsk(old, tapped=True, prompt="wamid.old")) == Reply()  # once
    redis.hset(keys.msgs_key(room.id), targets.TABLE, 7)  # the prompt, then 2 more
    redis.set(keys.wa_seq_key(PLAYER), 9)
    reply = table.ask(PressAsk(old, tapped=True, prompt="wamid.older"))
    assert text(reply) == said
    assert buttons(reply) == live or (len(live) > 10 and not buttons(reply))


def test_a_card_of_another_hand_is_refused_as_any_card_not_held() -> None:
    """At the person's turn, a bot's card and a card nobody holds get the same answer:
    nothing says where a card is."""
    table = Table("en")
    state = table.walk_to(leading)
    g, seat = game_of("spanish"), table.seat
    held = {c for s in range(len(table.room.seats)) for c in g.hand(state, s)}
    theirs = next(c for s in range(len(table.room.seats)) if s != seat for c in g.hand(state, s))
    nobodys = next(f"{r}{s}" for s in "SHDC" for r in "A234567JQK" if f"{r}{s}" not in held)
    replies = [table.typed(f"card:{card}") for card in (theirs, nobodys)]
    assert [text(r).split(" the ")[0] for r in replies] == ["You don't have"] * 2
    assert buttons(replies[0]) == buttons(replies[1])


NOT_HELD = {
    "es": "No tienes esa carta: {card}.",
    "pt_BR": "Você não tem essa carta: {card}.",
    "pt_PT": "Não tens essa carta: {card}.",
    "en": "You don't have the {card}.",
    "id": "Kamu tidak memegang kartu itu: {card}.",
}


@pytest.mark.parametrize("lang", sorted(NOT_HELD))
def test_cuartetos_a_card_to_pass_not_held_is_refused(lang: str) -> None:
    """Everyone chooses a card to pass: one typed that is another's is not held, and
    the cards to pass (and the calls) are offered."""
    table = Table(lang, "cuartetos")
    room = table.room
    g = game_of(room.settings.preset)
    seats = range(len(room.seats))
    theirs = next(c for s in seats if s != table.seat for c in g.hand(room.game, s))
    reply = table.typed(f"card:{theirs}")
    assert text(reply) == NOT_HELD[lang].format(card=card_name(theirs, True, Translator(lang)))
    mine = g.hand(room.game, table.seat)
    assert {f"pass:{c}" for c in mine} <= set(buttons(reply))
    assert table.room.game == room.game


@pytest.mark.parametrize(
    ("lang", "said"), [("es", "No tienes {suit}: roba."), ("en", "You have no {suit}: draw.")]
)
def test_a_card_of_another_suit_when_void_is_told_to_draw(lang: str, said: str) -> None:
    table = Table(lang)
    g = game_of("spanish")
    state = table.walk_to(lambda s, seat: g.legal_actions(s, seat) == ["draw"])
    card = g.hand(state, table.seat)[0]
    with pytest.raises(MustFollowSuit) as refused:
        g.apply(state, table.seat, f"play:{card}", 0.0)
    suit = Translator(lang).gettext(SPANISH_SUITS[refused.value.suit])
    reply = table.typed(f"card:{card}")
    assert text(reply) == said.format(suit=suit)
    assert buttons(reply) == ["draw"]


def test_an_old_button_tapped_on_telegram_points_to_the_live_moves() -> None:
    """Telegram keeps one live message per hand, edited in place: an old button's
    popup says so, and that message offers the live moves."""
    table = Table("es")
    state = table.walk_to(leading)
    room = table.room
    old = Press(room.id, room.phase_version - 1, Move("draw"))
    reply = table.ask(PressAsk(old, tapped=True), platform=TELEGRAM)
    assert reply.popup == "Este botón está desactualizado: usa el mensaje más reciente."
    assert table.room.game == state
    screen = prompts.screen_for(room, PLAYER, table.svc)
    assert screen is not None
    shown = [
        b.intent.what.action
        for row in screen.rows
        for b in row
        if isinstance(b.intent, Press) and isinstance(b.intent.what, Move)
    ]
    assert sorted(shown) == sorted(game_of("spanish").legal_actions(state, table.seat))


def test_a_card_of_another_deck_is_not_held_either() -> None:
    table = Table("es")
    table.walk_to(leading)
    reply = table.typed("card:9D")  # the Spanish deck of forty has no 8s and 9s
    assert text(reply) == "No tienes esa carta: 9 de oros."
