"""A press of a room's button, on any platform: the change it asks of the table (or a
refusal at once), who may make it, and how it is answered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from service.desk import opening
from service.desk.asks import PressAsk, Reply
from service.desk.use import Use
from service.i18n import _
from service.infra import keys
from service.services import Services
from service.table import lobby, play, targets
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.room import Room
from service.ui import games
from service.ui.intents import Command, CommandName, Move, Option, Press

Change = Callable[[Room], Outcome]
# Presses only the table's creator or a group admin may make (admins need a check):
# settings, start, bots in the lobby, cancel (its confirmation), rematch; and options.
MANAGING: tuple[CommandName, ...] = (
    "settings",
    "settings_done",
    "start",
    "add_bot",
    "remove_bot",
    "cancel",
    "rematch",
)


def is_command(press: Press, *names: CommandName) -> bool:
    return isinstance(press.what, Command) and press.what.name in names


def managing(press: Press) -> bool:
    """Whether only the table's creator (or a group's admin) may make this press."""
    return is_command(press, *MANAGING) or isinstance(press.what, Option)


def change_for(
    room: Room, press: Press, actor: Actor, now: float, bot_delay: float
) -> Change | Outcome:
    """The change a press asks for, or an Outcome that refuses it at once."""
    what = press.what
    if isinstance(what, Move):
        return play.press(room, press.version, actor.user_id, what.action, now, bot_delay)
    simple: dict[CommandName, Change] = {
        "join": lambda r: lobby.join(r, actor),
        "leave": lambda r: lobby.leave(r, actor),
        "add_bot": lambda r: lobby.add_bot(r, actor),
        "remove_bot": lambda r: lobby.remove_bot(r, actor),
        "start": lambda r: lobby.start(r, actor, now, bot_delay),
        "settings": lambda r: lobby.open_settings(r, actor, True),
        "settings_done": lambda r: lobby.open_settings(r, actor, False),
        "rules": lambda r: Outcome(),
        "cancel": lambda r: lobby.cancel(r, actor, now),
        "keep_playing": lambda r: Outcome().say(_("The game goes on.")),
    }
    if isinstance(what, Command) and what.name in simple:
        return simple[what.name]
    if isinstance(what, Option):
        if press.version != room.version:
            return Outcome().say(_("This button is out of date."))
        key = what.key
        return lambda r: lobby.change_setting(r, actor, key)
    return Outcome().say(_("This button is not one of ours."))


# ----- a press, handled ------------------------------------------------------------------


async def pressed(use: Use, ask: PressAsk) -> Reply:
    """A button of a room's screen: checked, committed, and answered with its popup."""
    press = ask.press
    room = use.store.load(press.room)
    if room is None:
        return Reply(popup=use.text(_("This game is over.")))
    if room.status == "cancelled":  # an old button of a cancelled game does nothing now
        return Reply(popup=use.text(_("The game was cancelled.")), alert=ask.tapped)
    actor = await use.as_admin(room) if managing(press) else use.actor
    if is_command(press, "join") and not room.private and not use.reachable:
        # The bot cannot write to someone who never opened its private chat: send them
        # there first; the link seats them (commands.start).
        return Reply(url=use.links.private(room.id, join=True))
    if is_command(press, "rematch"):
        made = opening.rematch(use.svc, room, actor, use.request.mark, use.request.edits)
        return replace(use.popup(made.popup), quiet=made.changed)
    if is_command(press, "rules"):
        return rules_posted(use, room)
    change = change_for(room, press, actor, use.svc.now(), use.svc.settings.bot_delay)
    if isinstance(change, Outcome):  # refused before touching the room
        return refused(use, room, change, ask)
    result = await use.store.aupdate(press.room, change, use.request.mark, loaded=room)
    if result is None:
        return Reply()
    fresh, outcome = result
    if is_command(press, "keep_playing"):  # the question is answered: it goes
        return replace(use.popup(outcome.popup), replaced=True)
    if not outcome.changed:
        return refused(use, fresh, outcome, ask)
    replaced = is_command(press, "cancel")
    return replace(use.popup(outcome.popup), quiet=True, replaced=replaced)


def rules_posted(use: Use, room: Room) -> Reply:
    """The table's rules as a line to its chat, at most once per `rules_cooldown` (no
    flooding a group); a second press is told they are just above."""
    place = use.request.place
    recent = keys.rules_cooldown_key(place.chat or 0, place.topic)
    if not use.store.first_in(recent, use.svc.settings.rules_cooldown):
        return Reply(popup=use.text(_("The rules are just above.")), alert=True)
    return Reply.say(games.painter(room, use.actor.lang).rules_text())


def refused(use: Use, room: Room, outcome: Outcome, ask: PressAsk) -> Reply:
    """Why a press did nothing. Where every old prompt stays in the chat (`ask.prompt`),
    a stale tap is said once per old prompt (`stale_prompt`)."""
    popup = outcome.popup
    if popup is None or popup.message != play.STALE or ask.prompt is None:
        return use.popup(popup)
    if not stale_prompt(use.svc, room, use.player, ask.prompt):
        return Reply()
    return use.say(_("That button is from an earlier turn: nothing was played."))


def stale_prompt(svc: Services, room: Room, player: int, prompt: str) -> bool:
    """A tap on an old prompt: whether to say so (once per old prompt); the current
    prompt is posted again if messages came after it in the person's chat."""
    store = svc.store
    if not store.redis.set(keys.wa_stale_key(prompt), 1, nx=True, ex=svc.settings.dedupe_ttl):
        return False
    target = targets.TABLE if room.private else targets.hand(player)
    shown = store.redis.hget(keys.msgs_key(room.id), target)
    latest = store.redis.get(keys.wa_seq_key(player))
    if shown is not None and latest is not None and int(shown) < int(latest):
        store.update(room.id, lambda r: Outcome(changed=True, sync={target + ":new"}))
    return True


def out_of_date(use: Use) -> Reply:
    """The answer to a press of a player whose move of this phase is queued already."""
    return Reply(popup=use.text(play.STALE))
