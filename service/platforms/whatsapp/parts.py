"""WhatsApp's own: a prompt too big for one list folds its smallest suits (or its
pages) into rows, and a tap on such a row shows that part of the prompt."""

from __future__ import annotations

from service.desk.asks import Choice, Reply, Sender
from service.desk.presses import MAX_CHOICES, move_choices, stale_prompt
from service.desk.prompts import screen_for
from service.i18n import Translator, _
from service.platforms.whatsapp import render
from service.platforms.whatsapp.answer import Sending
from service.services import Services
from service.ui.intents import Press
from service.ui.screens import Screen


def show(svc: Services, sending: Sending, sender: Sender, pick: render.Pick, prompt: str) -> None:
    """That part of the prompt, if the prompt is current; else the tap is an old
    prompt's, said once as any old prompt's tap is."""
    room = svc.store.load(pick.room)
    screen = None if room is None else screen_for(room, sender.player, svc)
    current = screen is not None and any(
        isinstance(b.intent, Press) and b.intent.version == pick.version
        for row in screen.rows
        for b in row
    )
    lang = svc.user_lang(sender.player, sender.lang_hint)
    if room is None or screen is None or not current:
        if room is not None and stale_prompt(svc, room, sender.player, prompt):
            said = _("That button is from an earlier turn: nothing was played.")
            live = live_rows(screen)
            sending.reply(sender, Reply.say(Translator(lang).gettext(said), *live))
        return
    sending.content(sender, render.render(screen, lang, part=pick.part))


def live_rows(screen: Screen | None) -> tuple[tuple[Choice, ...], ...]:
    """The live prompt's moves, offered again with an old row's refusal (as an old
    button's are: service.desk.presses), if a reply holds them all."""
    rows = tuple(
        row for row in (tuple(move_choices(r)) for r in (screen.rows if screen else ())) if row
    )
    return rows if 0 < sum(len(row) for row in rows) <= MAX_CHOICES else ()
