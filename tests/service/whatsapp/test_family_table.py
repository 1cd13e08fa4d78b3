"""A family's table opened from a WhatsApp chat: no group shows it, each player plays in
their own chat (WhatsApp or Telegram), the table in each WhatsApp prompt."""

from __future__ import annotations

import re

from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from tests.service.group_play import ending_at
from tests.service.inproc import Hook
from tests.service.play import room_in
from tests.service.whatsapp.play import act, outgoing
from tests.service.whatsapp.test_mixed_table import LINK, play_to_the_end


def test_a_family_table_opened_on_whatsapp(hook: Hook) -> None:
    """Abuela opens a family table from her WhatsApp chat and gets the links to share:
    Vovó joins by WhatsApp, Ana by Telegram's deep link; a bot fills a seat; all play to
    the end, the table shown in each WhatsApp prompt (there is no group to show it)."""
    emu, wa = hook.emu, hook.emu.whatsapp
    before = len(outgoing(wa, "Abuela"))
    wa.send("Abuela", "familia")
    told = wa.wait_for(
        lambda: next((m for m in outgoing(wa, "Abuela")[before:] if "wa.me" in m.text), None),
        what="the links to share",
    )
    found = LINK.search(told.text)
    assert found is not None
    code = re.sub(r"^\S+%20", "", found[2])
    assert f"t.me/burro_bot?start=j{code}" in told.text
    wa.send("Vovó", f"entrar {code}")
    emu.start("Ana", f"j{code}")
    host = player_id(hook, "Abuela")
    emu.wait_for(lambda: len(room_in(hook, host).seats) == 3 or None, what="three seated")
    # the table in her chat tells its deadlines in her time (her number's country)
    assert room_in(hook, host).settings.timezone == hook.store().user(host)["zone"]
    wa.send("Vovó", "oi")  # a greeting at a table waiting to start: no game of her own
    wa.wait_for(
        lambda: any("suas cartas vão chegar aqui" in m.text for m in outgoing(wa, "Vovó")),
        what="Vovó told her cards come when it starts",
    )
    assert hook.store().room_in_chat(player_id(hook, "Vovó"), None) is None
    lobby = lobby_offering(wa, "Abuela", "🤖 Añadir bot", 0)
    act(wa, "Abuela", lobby, "🤖 Añadir bot")
    emu.wait_for(lambda: len(room_in(hook, host).seats) == 4 or None, what="the bot seated")
    hook.store().update(room_in(hook, host).id, ending_at(2))
    act(wa, "Abuela", lobby_offering(wa, "Abuela", "▶️ Empezar", lobby.seq), "▶️ Empezar")
    decisions = play_to_the_end(hook, host)
    assert decisions["whatsapp"] > 0 and decisions["telegram"] > 0


def player_id(hook: Hook, name: str) -> int:
    found = hook.redis.get(f"wa:id:{hook.emu.whatsapp.user(name)['user_id']}")
    assert found is not None
    return int(found)


def lobby_offering(wa: WhatsAppDriver, user: str, title: str, after: int) -> WaChatMessage:
    def found() -> WaChatMessage | None:
        offers = [m for m in outgoing(wa, user) if m.seq > after and title in titles(m)]
        return offers[-1] if offers else None

    return wa.wait_for(found, timeout=20, what=f"a message offering {title}")


def titles(message: WaChatMessage) -> list[str]:
    return [b.title for b in message.buttons] + [r.title for r in message.rows]
