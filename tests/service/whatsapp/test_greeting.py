"""A WhatsApp person's way into a game, each step one message: a newcomer's greeting is
answered with ours (the game in a line, where the cards come, the zone their times are
shown in) and three choices; "Play now" deals a game against three bots at once (no
lobby: the next message is their turn, with a one-time hint on playing with family);
later greetings deal at once or show the game going on; "play again" is answered by
the next game's first prompt alone, and a hand with more playable cards than a list
holds folds its smallest suits into the one list (a folded suit opened is the only
second message)."""

from __future__ import annotations

from collections import Counter
from functools import partial

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.i18n import Translator
from service.services import Services
from service.table import games as table_games
from service.table import lobby
from service.table.lobby import Actor
from service.table.room import Room, RoomSettings
from service.ui import games
from tests.service.inproc import Hook
from tests.service.whatsapp.play import (
    act,
    choices,
    is_final,
    is_prompt,
    moves,
    newest_prompt,
    next_prompt,
    outgoing,
    play_game,
)
from tests.service.whatsapp.test_render import within_limits
from tests.service.whatsapp.test_whatsapp_game import player_of

HINTS = {
    "Nenek": "👪 Dengan keluarga? Tulis 'keluarga' untuk buka meja.",
    "Grandma": "👪 With family? Write 'family' to open a table.",
}
GREETING_CHOICES = {
    "Nenek": ["🎲 Main sekarang", "👪 Meja keluarga", "❓ Cara main"],
    "Grandma": ["🎲 Play now", "👪 Family table", "❓ How to play"],
}


def first_after(wa: WhatsAppDriver, user: str, seq: int) -> WaChatMessage | None:
    """Our first message to the person after message `seq`, once there is one."""
    found = [m for m in outgoing(wa, user) if m.seq > seq]
    return found[0] if found else None


def prompt_after(hook: Hook, user: str, seq: int) -> WaChatMessage:
    wa = hook.emu.whatsapp
    return wa.wait_for(partial(next_prompt, wa, user, seq, 0, hook.worker), what="a prompt")


def greeted(wa: WhatsAppDriver, user: str, word: str) -> WaChatMessage:
    """A newcomer writes `word` (a greeting): our greeting, once it comes."""
    asked = wa.send(user, word).seq
    return wa.wait_for(partial(first_after, wa, user, asked), what=f"{user}'s greeting")


def play_now(wa: WhatsAppDriver, user: str, word: str) -> int:
    """A newcomer greets, is greeted and taps "Play now": the tap's place (their game's
    messages come after it)."""
    greeting = greeted(wa, user, word)
    return wa.tap(user, greeting, choices(greeting)[0][0]).seq


def test_a_newcomer_is_greeted_then_play_now_deals_against_three_bots(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    greeting = greeted(wa, "Nenek", "halo")
    assert [title for _id, title in choices(greeting)] == GREETING_CHOICES["Nenek"]
    assert "Jakarta" in greeting.text  # her times' zone, from her number's country
    assert hook.store().room_in_chat(player_of(hook, "Nenek"), None) is None  # not yet dealt
    tapped = wa.tap("Nenek", greeting, GREETING_CHOICES["Nenek"][0])
    first = wa.wait_for(partial(first_after, wa, "Nenek", tapped.seq), what="her first turn")
    assert is_prompt(first) and not is_final(first)  # her turn: no lobby, no welcome
    assert first.footer == HINTS["Nenek"]  # how to play with family, in her language
    room = hook.room(player_of(hook, "Nenek"))
    assert room.status == "playing" and room.private
    assert [seat.bot is not None for seat in room.seats] == [False, True, True, True]
    assert room.settings.timezone == "Asia/Jakarta"  # her own table's deadlines: her zone
    # What a newcomer reads before their own first card: our greeting, then their turn
    # (before the greeting: their turn alone, 1; the figure for BENCHMARKS.md).
    read = [m.id for m in outgoing(wa, "Nenek") if m.seq <= first.seq]
    assert read == [greeting.id, first.id]


def test_how_to_play_tells_the_rules_and_a_second_greeting_deals(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    wa.add_user("Abuelo", country="MX", language="es", username="abuelo.mx")
    greeting = greeted(wa, "Abuelo", "hola")
    assert "Ciudad de México" in greeting.text  # Mexico's most populous zone, named
    told = wa.tap("Abuelo", greeting, choices(greeting)[2][0])
    rules = wa.wait_for(partial(first_after, wa, "Abuelo", told.seq), what="the rules")
    spanish = table_games.rules_for(table_games.DEFAULT_PRESET)
    assert rules.text == games.rules_text(spanish, Translator("es"))
    asked = wa.send("Abuelo", "hola").seq  # greeted already: a game at once
    first = prompt_after(hook, "Abuelo", asked)
    assert first.seq == min(m.seq for m in outgoing(wa, "Abuelo") if m.seq > asked)
    assert hook.room(player_of(hook, "Abuelo")).status == "playing"


def test_the_family_hint_comes_once_per_person(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    first = prompt_after(hook, "Grandma", play_now(wa, "Grandma", "hello"))
    assert first.footer == HINTS["Grandma"]
    act(wa, "Grandma", first, moves(first)[0][0])
    second = prompt_after(hook, "Grandma", first.seq)
    again = prompt_after(hook, "Grandma", wa.send("Grandma", "hi").seq)  # her game again
    assert second.footer is None and again.footer is None
    assert choices(again) == choices(second)
    player = player_of(hook, "Grandma")
    assert hook.redis.hget(f"user:{player}", "hint") == b"shown"


def test_play_again_is_answered_by_the_next_games_first_prompt_alone(hook: Hook) -> None:
    wa, worker = hook.emu.whatsapp, hook.worker
    assert worker is not None
    played = play_game(wa, "Vovó", after=play_now(wa, "Vovó", "oi"), worker=worker)
    final = played.final
    assert final is not None
    again = next(ident for ident, title in choices(final) if "🔁" in title)
    act(wa, "Vovó", final, again)
    prompt = prompt_after(hook, "Vovó", final.seq)
    worker.settle()
    wa.wait_idle()
    assert [m.id for m in outgoing(wa, "Vovó") if m.seq > final.seq] == [prompt.id]
    assert not is_final(prompt) and prompt.footer is None  # the hint came with her first


def test_more_playable_cards_than_a_list_holds_fold_the_smallest_suits(hook: Hook) -> None:
    """Abuela leads with eleven cards (Cangkul dealt eleven each): one list of ten rows at
    most, the smallest suits folded a row each; opening one brings its cards, and one of
    them plays."""
    wa = hook.emu.whatsapp
    asked = wa.send("Abuela", "ayuda")  # she is known, her window open
    welcome = wa.wait_for(partial(first_after, wa, "Abuela", asked.seq), what="the welcome")
    player = player_of(hook, "Abuela")
    deal_eleven(hook, player)
    prompt = wa.wait_for(partial(newest_prompt, wa, "Abuela", welcome.seq), what="her turn")
    assert prompt.status != "failed" and 1 <= len(prompt.rows) <= 10
    content = prompt.raw["content"]
    within_limits({"type": "interactive", "interactive": content["interactive"]})
    folded = [row for row in prompt.rows if row.id.startswith("pick:")]
    tip = [row for row in prompt.rows if row.id.endswith(".I")]  # a table with bots offers tips
    cards = [row for row in prompt.rows if row not in folded and row not in tip]
    assert folded and all(row.description for row in folded)
    sizes = [len((row.description or "").split(" · ")) for row in folded]
    kept = Counter(row.id[-1] for row in cards)  # a card's id ends with its suit
    assert len(cards) + sum(sizes) == 11
    assert all(n == 1 or n >= max(sizes) for n in kept.values())  # the smallest folded
    before = hook.room(player).version
    wa.choose("Abuela", prompt, folded[0].id)
    suit = wa.wait_for(partial(newest_prompt, wa, "Abuela", prompt.seq), what="the suit")
    assert all(ident.endswith(folded[0].id.split(":")[1]) for ident, _t in choices(suit))
    act(wa, "Abuela", suit, choices(suit)[0][0])
    wa.wait_for(lambda: hook.room(player).version > before or None, what="her card played")


def deal_eleven(hook: Hook, player: int) -> Room:
    """A game of Cangkul against three bots in her chat, eleven cards each, her lead."""
    svc = Services(hook.settings, hook.store())
    if hook.clock is not None:
        svc.clock = hook.clock
    abuela = Actor(player, "Abuela", "es", platform="whatsapp")
    settings = RoomSettings(preset="cangkul", options={"hand_size": 11})
    room = lobby.create_room(player, None, abuela, svc.now(), private=True, settings=settings)
    for _ in range(3):
        lobby.add_bot(room, abuela)
    outcome = lobby.start(room, abuela, svc.now())
    assert svc.store.create(room, outcome, None)
    return room


def test_a_person_tells_their_time_zone_by_a_word(hook: Hook) -> None:
    """Avó's times are Lisbon's (her number is Portuguese) until she names another."""
    wa = hook.emu.whatsapp
    greeted(wa, "Avó", "olá")
    player = player_of(hook, "Avó")
    assert hook.redis.hget(f"user:{player}", "zone") == b"Europe/Lisbon"
    for said, zone, shown in [
        ("hora", b"Europe/Lisbon", "Lisboa"),
        ("hora Açores", b"Atlantic/Azores", "Açores"),
        ("horário são paulo", b"America/Sao_Paulo", "São Paulo"),
        ("hora Atlântida", b"America/Sao_Paulo", "hora"),  # no such place: how to say it
    ]:
        asked = wa.send("Avó", said).seq
        answer = wa.wait_for(partial(first_after, wa, "Avó", asked), what=f"the answer to {said}")
        assert shown in answer.text and "🕒" in answer.text
        assert hook.redis.hget(f"user:{player}", "zone") == zone
    prompt_after(hook, "Avó", wa.send("Avó", "olá").seq)  # greeted already: dealt at once
    asked = wa.send("Avó", "hora Manaus").seq
    wa.wait_for(partial(first_after, wa, "Avó", asked), what="the answer")
    assert hook.room(player).settings.timezone == "America/Manaus"  # her table's deadlines
