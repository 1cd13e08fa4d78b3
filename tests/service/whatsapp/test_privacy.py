"""Privacy on WhatsApp, through the desk as on Telegram: a person's typed words ask what
is kept (the notice names WhatsApp and what it keeps: their BSUID and phone) and ask to
be forgotten (confirmed by two reply buttons). Once forgotten, nothing in Redis names
them but what the notice says is kept without them (a finished game's seat, under a
neutral name); writing again, they start anew as a new player."""

from __future__ import annotations

import re
from functools import partial

import pytest

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.i18n import LANGUAGES, Translator
from service.platforms.whatsapp import words
from service.platforms.whatsapp.manual import WhatsAppManual
from service.table.room import Room
from tests.service.group_play import ending_at
from tests.service.inproc import Hook
from tests.service.play import room_in
from tests.service.test_privacy import traces
from tests.service.whatsapp.play import act, choices, newest_prompt, outgoing
from tests.service.whatsapp.test_family_table import lobby_offering, player_id
from tests.service.whatsapp.test_mixed_table import LINK, play_to_the_end

PERSON, HOST = "Abuela", "Vovó"  # Abuela: a BSUID and a phone; Vovó: a username only
YES, NO = "🗑 Sí, olvídame", "No, guárdalo"


def told(wa: WhatsAppDriver, user: str, after: int, words: str) -> WaChatMessage | None:
    """The person's first message from us after message `after` that says `words`."""
    found = [m for m in outgoing(wa, user) if m.seq > after and words in m.text]
    return found[0] if found else None


def said_to(wa: WhatsAppDriver, user: str, text: str, words: str) -> WaChatMessage:
    """The person writes `text`; our answer saying `words`."""
    sent = wa.send(user, text)
    return wa.wait_for(partial(told, wa, user, sent.seq, words), what=f"an answer with {words}")


def family_game_played(hook: Hook) -> Room:
    """Vovó's family table, Abuela and a bot at it, played to its end."""
    wa = hook.emu.whatsapp
    links = said_to(wa, HOST, "familia", "wa.me")
    found = LINK.search(links.text)
    assert found is not None
    code = re.sub(r"^\S+%20", "", found[2])
    host = player_id(hook, HOST)
    wa.send(PERSON, f"unirme {code}")
    wa.wait_for(lambda: len(room_in(hook, host).seats) == 2 or None, what="Abuela seated")
    lobby = lobby_offering(wa, HOST, "🤖 Adicionar bot", 0)
    act(wa, HOST, lobby, "🤖 Adicionar bot")
    wa.wait_for(lambda: len(room_in(hook, host).seats) == 3 or None, what="the bot seated")
    hook.store().update(room_in(hook, host).id, ending_at(2))
    act(wa, HOST, lobby_offering(wa, HOST, "▶️ Começar", lobby.seq), "▶️ Começar")
    play_to_the_end(hook, host)
    return room_in(hook, host)


def naming(hook: Hook, player: int) -> re.Pattern[str]:
    """What names the person: their player id, BSUID, phone and name."""
    person = hook.emu.whatsapp.user(PERSON)
    assert person["wa_id"] and person["user_id"]
    names = [str(player), person["user_id"], person["wa_id"]]
    ids = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![0-9])(?:{ids})(?![0-9])|{PERSON}", re.IGNORECASE)


def test_privacy_and_forgetting_on_whatsapp(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    family = family_game_played(hook)
    player = player_id(hook, PERSON)
    dealt = wa.send(PERSON, "jugar")  # a game of her own against bots, going on
    wa.wait_for(partial(newest_prompt, wa, PERSON, dealt.seq), what="her game's first prompt")

    notice = said_to(wa, PERSON, "privacidad", "Qué guardo de ti").text
    assert "tal como lo muestra WhatsApp" in notice and "Telegram" not in notice
    assert "número de teléfono" in notice and "«olvidar»" in notice
    assert "Tu zona horaria" in notice  # kept in her record (people.py)

    question = said_to(wa, PERSON, "olvidar", "No se puede deshacer")
    assert [title for _id, title in choices(question)] == [YES, NO]
    wa.tap(PERSON, question, NO)
    wa.wait_for(partial(told, wa, PERSON, question.seq, "No se ha borrado nada"), what="kept")
    pattern = naming(hook, player)
    assert hook.store().user(player) and traces(hook.redis, pattern)  # nothing went

    again = said_to(wa, PERSON, "borrar", "No se puede deshacer")
    wa.tap(PERSON, again, YES)
    wa.wait_for(lambda: not hook.redis.exists(f"user:{player}"), what="Abuela forgotten")
    wa.wait_idle()
    assert hook.worker is not None
    hook.worker.settle()
    found = traces(hook.redis, pattern)
    assert found == [], found
    kept = hook.store().load(family.id)  # her finished game, kept without her
    assert kept is not None and player not in kept.humans()
    assert [s.name for s in kept.seats if s.user_id is None and s.bot is None] == ["#2"]

    back = wa.send(PERSON, "hola")  # back: a new player, greeted as a newcomer is
    greeting = wa.wait_for(partial(newest_prompt, wa, PERSON, back.seq), what="a greeting")
    assert choices(greeting)[0][1] == "🎲 Jugar ya"
    assert player_id(hook, PERSON) != player
    assert hook.store().user_stats(player_id(hook, PERSON)).get("games", 0) == 0


def test_the_forgotten_are_told_how_to_come_back(hook: Hook) -> None:
    wa = hook.emu.whatsapp
    question = said_to(wa, "Grandma", "forget me", "This cannot be undone")
    assert [title for _id, title in choices(question)] == ["🗑 Yes, forget me", "No, keep it"]
    wa.tap("Grandma", question, "🗑 Yes, forget me")
    wa.wait_idle()  # the tap is handled, and answered, before its webhook post returns
    assert told(wa, "Grandma", question.seq, "If you write to me again, we start anew")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_word_the_notice_quotes_asks_to_be_forgotten(lang: str) -> None:
    said = WhatsAppManual().forget_word(Translator(lang))
    assert words.command_of(said) == ("forget", "")
