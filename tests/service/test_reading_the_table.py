"""The table reads at a glance (issue #14): cards named as the deck names them, in the
hand's order on text and buttons, Spanish suits for the Spanish presets, every mark
explained, counts in the right number, and no button label cut off on a phone."""

from __future__ import annotations

import functools
import random
import re

import pytest

from engine.cuartetos import GameState as PassingGame
from engine.cuartetos import legal_actions as passing_legal
from engine.cuartetos import player_view as passing_view
from engine.cuartetos import to_move as passing_to_move
from engine.follow_suit.game import GameState, legal_actions, to_move
from engine.follow_suit.rules import PRESETS, Rules
from engine.follow_suit.views import player_view, public_view
from service.desk.commands import export_caption
from service.i18n import LANGUAGES, Translator
from service.table import games as table_games
from service.table import lobby, play
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from service.ui.cuartetos import CALL_LEGEND, CuartetosPainter
from service.ui.cuartetos import LEGEND as PASSING_LEGEND
from service.ui.follow_suit import LEGEND, FollowSuitPainter, rules_text
from service.ui.games import PRESET_NAMES, games_list
from service.ui.intents import Move, Press
from service.ui.screens import (
    MAX_ROW_BUTTONS,
    ROW_WIDTH,
    Button,
    Screen,
    label_width,
    winners_text,
)

ANA, BEN, CARLA = Actor(1, "Ana", "es"), Actor(2, "Ben", "pt_BR"), Actor(3, "Carla", "en")
SETTINGS: tuple[str, ...] = ("hand", "target", "empty", "end", "timeout", "ontimeout")
SETTINGS += ("pace", "remind", "suits", "lang", "bot", "quiet", "tz")


def new_room(preset: str, private: bool = False, **options: object) -> Room:
    settings = RoomSettings(preset=preset, options=dict(options))
    room = lobby.create_room(-5, None, ANA, 0.0, private=private, settings=settings)
    if not private:
        lobby.join(room, BEN)
        lobby.join(room, CARLA)
    lobby.add_bot(room, ANA)
    lobby.add_bot(room, ANA)
    return room


def painter(room: Room, lang: str) -> FollowSuitPainter | CuartetosPainter:
    if room.settings.preset == "cuartetos":
        return CuartetosPainter(room, lang)
    return FollowSuitPainter(room, lang)


def play_on(room: Room, steps: int, seed: int = 1) -> list[Room]:
    """The room after each of up to `steps` random moves (copies), the start included."""
    rnd, now, seen = random.Random(seed), 1.0, [room.model_copy(deep=True)]
    for _ in range(steps):
        game = room.game
        if isinstance(game, PassingGame):
            if game.over:
                break
            now += 1.0
            waiting = passing_to_move(game)
            if waiting:
                chooser = rnd.choice(waiting)
                action = rnd.choice(passing_legal(game, chooser))
                play.act(room, chooser, action, now, 0.0)
            else:
                play.expire(room, now + 1000.0, 0.0)
        else:
            assert isinstance(game, GameState)
            seat = to_move(game)
            if seat is None:
                break
            play.act(room, seat, rnd.choice(legal_actions(game, seat)), 0.0, 0.0)
        seen.append(room.model_copy(deep=True))
    return seen


def too_wide(screen: Screen) -> list[tuple[str, int]]:
    """Labels wider than their share of a phone's row, with the row's size."""
    bad = []
    for row in screen.rows:
        share = ROW_WIDTH // len(row)
        bad += [(b.label, len(row)) for b in row if label_width(b.label) > share]
        if len(row) > MAX_ROW_BUTTONS:
            bad.append(("a row of", len(row)))
    return bad


# ----- buttons fit a phone -------------------------------------------------------------


def test_a_label_is_as_wide_as_a_phone_shows_it() -> None:
    assert label_width("10♥") == 4  # a suit symbol shows as an emoji
    assert label_width("⚙️ Ajustes") == 10  # the variation selector takes no room
    assert label_width("Caballo de espadas") == 18
    assert label_width("🫳 ¡BURRO!") == 10


@pytest.mark.parametrize("preset", [*PRESETS, "cuartetos"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_button_label_is_cut_off_on_a_phone(preset: str, lang: str) -> None:
    for style in ("spanish", "french"):
        for private in (False, True):
            room = new_room(preset, private, suit_style=style)
            bad = too_wide(painter(room, lang).lobby())
            for key in SETTINGS:
                for _ in range(8):  # round every value of the setting
                    lobby.change_setting(room, ANA, key)
                    bad += too_wide(painter(room, lang).settings())
            for state in phone_game(preset, style, private):
                shown = painter(state, lang)
                bad += too_wide(shown.table())
                bad += [w for seat in range(len(state.seats)) for w in too_wide(shown.hand(seat))]
            assert not bad, (style, private, sorted(set(bad)))


@functools.cache
def phone_game(preset: str, style: str, private: bool) -> tuple[Room, ...]:
    """The states of a game set up through every setting, as the test above goes: played
    once for every language (the labels depend on the language, the play does not)."""
    room = new_room(preset, private, suit_style=style)
    for key in SETTINGS:
        for _ in range(8):
            lobby.change_setting(room, ANA, key)
    lobby.start(room, ANA, 0.0)
    return tuple(play_on(room, 120))


def plays(button: Button) -> bool:
    """Whether a button plays a card."""
    intent = button.intent
    return (
        isinstance(intent, Press)
        and isinstance(intent.what, Move)
        and intent.what.action.startswith("play:")
    )


def card_rows(shown: FollowSuitPainter, seat: int) -> list[list[str]]:
    return [[b.label for b in row] for row in shown.hand(seat).rows if plays(row[0])]


def test_long_card_names_take_fewer_buttons_a_row() -> None:
    room = new_room("spanish")
    lobby.start(room, ANA, 0.0)
    rows = [
        row
        for state in play_on(room, 60)
        for seat in range(len(state.seats))
        for row in card_rows(FollowSuitPainter(state, "es"), seat)
    ]
    assert rows and all(len(row) <= 3 for row in rows)  # never the French cards' five
    assert all(len(row) == 1 for row in rows if any(label_width(x) > 16 for x in row))
    assert any(len(row) == 2 for row in rows)  # "7 de oros" and "As de oros" share one


def test_short_french_cards_of_a_suit_share_a_row() -> None:
    room = new_room("cangkul")  # seven cards each
    lobby.start(room, ANA, 0.0)
    shared = False
    for state in play_on(room, 60):
        assert isinstance(state.game, GameState)
        for seat in range(len(state.seats)):
            view, painter = player_view(state.game, seat), FollowSuitPainter(state, "en")
            rows = card_rows(painter, seat)
            playable = [c for c in view.hand if f"play:{c}" in view.legal and c[-1] in "SHDC"]
            for suit in {row[0][-1] for row in rows}:
                of_suit = [row for row in rows if row[0][-1] == suit]
                same = [c for c in playable if painter.card(c)[-1] == suit]
                # A suit's cards on rows of their own, as many a row as show whole
                assert all(all(label[-1] == suit for label in row) for row in of_suit)
                assert sum(len(row) for row in of_suit) == len(same)
                assert all(len(row) <= MAX_ROW_BUTTONS for row in of_suit)
                shared = shared or any(len(row) > 1 for row in of_suit)
    assert shared


# ----- cards: names, order, suits ------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "ace", "knight"),
    [
        ("es", "As de oros", "Caballo de espadas"),
        ("en", "Ace of coins", "Knight of swords"),
        ("pt_BR", "Ás de ouros", "Cavalo de espadas"),
        ("pt_PT", "Ás de ouros", "Cavalo de espadas"),
        ("id", "As koin", "Kuda pedang"),
    ],
)
def test_cards_are_named_as_the_deck_names_them(lang: str, ace: str, knight: str) -> None:
    spanish = FollowSuitPainter(new_room("spanish"), lang)
    assert (spanish.card("AD"), spanish.card("QS"), spanish.card("KH").split()[0]) == (
        ace,
        knight,
        Translator(lang).gettext("Rey"),
    )
    assert spanish.cards(("AD", "7D", "QS")) == f"{ace} · {spanish.card('7D')} · {knight}"
    french = FollowSuitPainter(new_room("brazilian"), lang)
    assert (french.card("AS"), french.card("10H"), french.cards(("KC", "2C"))) == (
        "A♠",
        "10♥",
        "K♣ · 2♣",
    )


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("spanish", {}),
        ("brazilian", {"low_ace": True}),
        ("portuguese", {}),
        (
            "cangkul",
            {"rank_order": ["K", "A", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]},
        ),
    ],
)
def test_card_buttons_follow_the_hand_text(preset: str, options: dict[str, object]) -> None:
    room = new_room(preset, False, **options)
    lobby.start(room, ANA, 0.0)
    rules = table_games.rules_of(room.settings)
    assert isinstance(rules, Rules)
    checked = 0
    for state in play_on(room, 150, seed=3):
        assert isinstance(state.game, GameState)
        for seat in range(len(state.seats)):
            view = player_view(state.game, seat)
            hand = [c for c in view.hand if c != "JK"]
            place = {rank: i for i, rank in enumerate(rules.ranks)}
            assert hand == sorted(hand, key=lambda c: ("SHDC".index(c[-1]), place[c[:-1]]))
            shown = FollowSuitPainter(state, "es")
            playable = [shown.card(c) for c in view.hand if f"play:{c}" in view.legal]
            screen = shown.hand(seat)  # drawn once: its rows, then its text
            rows = [row for row in screen.rows if plays(row[0])]
            cards = [b for row in rows for b in row if b.label in playable]
            assert [b.label for b in cards] == playable
            text = screen.text
            assert shown.cards(view.hand) in text
            for row in rows:  # a suit's cards on rows of their own
                suits = {c[-1] for c in view.hand if shown.card(c) in {b.label for b in row}}
                assert len(suits) <= 1
            checked += len(cards)
    assert checked > 50


def test_spanish_presets_show_spanish_suits_and_the_button_switches() -> None:
    for preset in [*PRESETS, "cuartetos"]:
        style = table_games.rules_of(RoomSettings(preset=preset)).suit_style
        assert style == ("spanish" if preset in ("spanish", "spanish48", "cuartetos") else "french")
    room = new_room("spanish")
    assert FollowSuitPainter(room, "es").card("AD") == "As de oros"
    lobby.change_setting(room, ANA, "suits")
    assert FollowSuitPainter(room, "es").card("AD") == "A♦"
    lobby.change_setting(room, ANA, "suits")
    assert FollowSuitPainter(room, "es").card("AD") == "As de oros"
    lobby.change_setting(room, ANA, "preset")  # spanish48: Spanish suits too
    assert FollowSuitPainter(room, "es").card("9D") == "9 de oros"
    lobby.change_setting(room, ANA, "preset")  # brazilian: its own French suits
    assert FollowSuitPainter(room, "es").card("AD") == "A♦"


def test_a_stored_room_keeps_the_suits_it_was_played_with() -> None:
    """A room from before: its game (and the rematch) keep their French cards."""
    room = new_room("spanish", suit_style="french")
    lobby.start(room, ANA, 0.0)
    stored = json_round_trip(room)
    stored.settings.options.pop("suit_style")  # settings as an older version kept them
    assert FollowSuitPainter(stored, "es").card("AD") == "A♦"  # the game keeps its rules
    stored.status = "over"
    result = lobby.rematch(stored, ANA, 0.0)
    assert isinstance(result, tuple)
    assert FollowSuitPainter(result[0], "es").card("AD") == "A♦"
    fresh = new_room("spanish")  # a new table of the preset: Spanish suits
    assert FollowSuitPainter(fresh, "es").card("AD") == "As de oros"


def json_round_trip(room: Room) -> Room:
    return Room.model_validate_json(room.model_dump_json())


# ----- /rules, /help, /export --------------------------------------------------------


@pytest.mark.parametrize(
    ("preset", "options", "lang", "order"),
    [
        ("spanish", {}, "es", "Rey, Caballo, Sota, 7, 6, 5, 4, 3, 2, As"),
        ("spanish", {}, "en", "King, Knight, Jack, 7, 6, 5, 4, 3, 2, Ace"),
        ("spanish48", {}, "pt_BR", "Rei, Cavalo, Valete, 9, 8, 7, 6, 5, 4, 3, 2, Ás"),
        ("portuguese", {}, "pt_PT", "K (Rei), J (Valete), Q (Dama), 7, 6, 5, 4, 3, 2, A (Ás)"),
        ("brazilian", {"low_ace": True}, "pt_BR", "K (Rei), Q (Dama), J (Valete), 10, 9"),
        ("cangkul", {}, "id", "A (As), K (Raja), Q (Ratu), J (Jack), 10"),
    ],
)
def test_rules_list_the_ranks_of_the_tables_own_deck(
    preset: str, options: dict[str, object], lang: str, order: str
) -> None:
    rules = table_games.rules_of(RoomSettings(preset=preset, options=options))
    assert isinstance(rules, Rules)
    text = rules_text(rules, Translator(lang))
    assert order in text.splitlines()[-1]
    if not options:  # /rules <game> with no table reads the same
        assert games.rules_text(table_games.rules_for(preset), Translator(lang)) == text


def test_passing_rules_list_the_ranks_in_play() -> None:
    text = games.rules_text(table_games.rules_for("cuartetos"), Translator("es"))
    assert "As, Rey, Caballo, Sota, 7, 6, 5, 4" in text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_games_are_listed_by_their_names_in_the_readers_language(lang: str) -> None:
    tr = Translator(lang)
    lines = games_list(tr).splitlines()
    assert len(lines) == len(PRESET_NAMES)
    for line, (preset, name) in zip(lines, PRESET_NAMES.items(), strict=True):
        assert line.startswith(f"• {tr.gettext(name)}") and line.endswith(f": {preset}")
    if lang == "es":
        assert "• Burro español: spanish" in lines


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_export_says_what_the_file_is_and_footnotes_the_replay(lang: str) -> None:
    tr = Translator(lang)
    first, footnote = export_caption(tr, 3).split("\n\n")
    assert "3" in first and "replay" not in first
    assert "burro replay" in footnote
    assert first == tr.gettext(
        "🗂 Hand {n}, move by move: the cards dealt and everything played. "
        "A record of the hand to keep, or to share with someone.",
        n=3,
    )
    if lang != "en":
        assert first != export_caption(Translator("en"), 3).split("\n\n")[0]


# ----- marks and counts --------------------------------------------------------------


@pytest.mark.parametrize("preset", ["spanish", "burro_em_pe", "cuartetos"])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_mark_on_the_table_is_explained_on_it(preset: str, lang: str) -> None:
    room = new_room(preset)
    lobby.start(room, ANA, 0.0)
    legend = PASSING_LEGEND if (room.settings.preset == "cuartetos") else LEGEND
    tr = Translator(lang)
    for state in play_on(room, 80):
        text = painter(state, lang).table().text
        calling = isinstance(state.game, PassingGame) and state.game.hand.call is not None
        shown = CALL_LEGEND if calling else legend  # ⏳ in a call: yet to respond
        seat_lines = [line for line in text.splitlines() if re.match(r"^\S+ \w.*: ", line)]
        marks = {mark for mark in shown for line in seat_lines if mark in line}
        assert "🎴" in marks and "🤖" in marks
        last = text.splitlines()[-1]
        for mark in marks:
            assert tr.gettext(shown[mark]) in last, (mark, last)
        assert last.count("🎴") == 1


@pytest.mark.parametrize(
    ("lang", "one", "two"),
    [
        ("en", "Winner: Ana.", "Winners: Ana, Ben."),
        ("es", "Gana: Ana.", "Ganan: Ana, Ben."),
        ("pt_BR", "Vence: Ana.", "Vencem: Ana, Ben."),
        ("pt_PT", "Ganha: Ana.", "Ganham: Ana, Ben."),
        ("id", "Pemenang: Ana.", "Pemenang: Ana, Ben."),
    ],
)
def test_one_winner_is_one_winner(lang: str, one: str, two: str) -> None:
    tr = Translator(lang)
    assert (winners_text(tr, 1, "Ana"), winners_text(tr, 2, "Ana, Ben")) == (one, two)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_game_over_counts_its_winners_and_burros(lang: str) -> None:
    room = new_room("spanish", private=True, target=1)  # Ana and two bots, one hand
    lobby.start(room, ANA, 0.0)
    last = play_on(room, 2000, seed=5)[-1]
    assert isinstance(last.game, GameState) and last.game.over
    view = public_view(last.game)
    tr, shown = Translator(lang), FollowSuitPainter(last, lang)
    names = ", ".join(last.seats[s].name for s in view.winners)
    assert len(view.winners) == 2 and len(view.losers) == 1
    text = shown.table().text
    assert winners_text(tr, 2, names) in text
    assert tr.ngettext("Winner: {names}.", "Winners: {names}.", 2, names=names) in text
    burro = last.seats[view.losers[0]].name
    singular = tr.ngettext(
        "🏁 Game over: {names} is the burro! 🫏",
        "🏁 Game over: {names} are the burros! 🫏",
        1,
        names=burro,
    )
    assert singular in text


def test_a_table_the_game_cannot_seat_is_told_why_without_ids() -> None:
    room = new_room("brazilian")  # Ana, Ben, Carla and two bots
    for _ in range(3):
        lobby.add_bot(room, ANA)
    room.settings.options["hand_size"] = 7  # 8 × 7 cards: more than 52
    refused = lobby.start(room, ANA, 0.0)
    assert refused.popup is not None and room.status == "lobby"
    text = Translator("es").gettext(refused.popup.message, **dict(refused.popup.values))
    assert text.startswith("8 jugadores con 7 cartas") and "french52" not in text
    lobby.change_setting(room, ANA, "preset")  # portuguese: 2 to 7 players
    refused = lobby.start(room, ANA, 0.0)
    assert refused.popup is not None
    text = Translator("en").gettext(refused.popup.message, **dict(refused.popup.values))
    assert text == "This game is for 2 to 7 players; the table has 8."


@pytest.mark.parametrize("lang", ["es", "id"])
def test_passing_cards_come_in_the_hands_order_a_rank_a_row(lang: str) -> None:
    room = new_room("cuartetos")
    lobby.start(room, ANA, 0.0)
    checked = 0
    for state in play_on(room, 120, seed=4):
        assert isinstance(state.game, PassingGame)
        for seat in range(len(state.seats)):
            view = passing_view(state.game, seat)
            shown = CuartetosPainter(state, lang)
            passable = [c for c in view.hand if f"pass:{c}" in view.legal]
            named = {shown.card(c): c for c in passable}
            rows = [[b.label for b in row if b.label in named] for row in shown.hand(seat).rows]
            rows = [row for row in rows if row]
            assert [label for row in rows for label in row] == [shown.card(c) for c in passable]
            assert all(len({named[label][:-1] for label in row}) == 1 for row in rows)
            assert shown.cards(view.hand) in shown.hand(seat).text
            checked += len(passable)
    assert checked > 20
