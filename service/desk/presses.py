"""A press of a room's button, on any platform: the change it asks of the table (or a
refusal at once), who may make it, and how it is answered."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from engine.kernel.cards import SUIT_SYMBOLS
from service.desk import opening, prompts, reading, showing, tipping
from service.desk.asks import Choice, PressAsk, Reply, TypedMoveAsk
from service.desk.use import Use
from service.i18n import Translator, _
from service.infra import hints, keys
from service.services import Services
from service.table import lobby, play, refusals, targets
from service.table.games import rules_of, table_of
from service.table.lobby import Actor
from service.table.outcome import Outcome
from service.table.refusals import Mistake
from service.table.room import Room
from service.ui import games, tokens
from service.ui.intents import Command, CommandName, Move, Option, Press
from service.ui.screens import CARD_SEPARATOR, SPANISH_SUITS, Button, rank_name, spanish_suits

Change = Callable[[Room], Outcome]
# The live choices a refusal carries as its own buttons at most (a WhatsApp list holds
# ten rows); a prompt with more is posted again instead, if it is buried.
MAX_CHOICES = 10
DRAWS = ("draw", "draw:left", "draw:right", "pass")
NOT_HELD = ("not_in_hand", "unknown_card")  # a card of another deck is not held either
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
        if use.request.personal:
            return await joined_from_group(use, room, ask)
        # The bot cannot write to someone who never opened its private chat: send them
        # there first; the link seats them (commands.start).
        return Reply(url=use.links.private(room.id, join=True))
    if is_command(press, "rematch"):
        made = opening.rematch(use.svc, room, actor, use.request.mark, use.request.edits)
        return replace(use.popup(made.popup), quiet=made.changed)
    if is_command(press, "rules"):
        return rules_posted(use, room)
    if is_command(press, "story"):  # read only: nothing of the room changes
        return reading.told(use, room, pressed=ask.tapped)
    if is_command(press, "hand"):
        return await showing.pressed(use, room)
    if is_command(press, "tip"):  # read only, as the story; drawn for a phase, as a move
        if press.version != room.phase_version:
            return refused(use, room, Outcome().say(play.STALE), ask)
        return tipping.told(use, room, pressed=ask.tapped)
    if isinstance(press.what, Move):  # a costly first press is explained instead
        first = hints.explained_first(use.store, room, actor.user_id, press.what.action)
        if first is not None:
            return refused(use, room, first, ask)
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


async def joined_from_group(use: Use, room: Room, ask: PressAsk) -> Reply:
    """A member who never opened the bot's private chat joins from the group, where the
    platform can show them their cards alone (service.desk.showing): seated, and noted
    as one the bot cannot write to, so that nothing goes to a chat they never opened."""
    actor = use.actor

    def change(fresh: Room) -> Outcome:
        outcome = lobby.join(fresh, actor)
        if outcome.changed and actor.user_id not in fresh.blocked:
            fresh.blocked = [*fresh.blocked, actor.user_id]
        return outcome

    result = await use.store.aupdate(room.id, change, use.request.mark, loaded=room)
    if result is None:
        return Reply()
    fresh, outcome = result
    if not outcome.changed:
        return refused(use, fresh, outcome, ask)
    said = _("You are in. Once the game starts, tap “🃏 My cards” here: only you see them.")
    return Reply(popup=use.text(said), alert=True)


def rules_posted(use: Use, room: Room) -> Reply:
    """The table's rules as a line to its chat, at most once per `rules_cooldown` (no
    flooding a group); a second press is told they are just above."""
    place = use.request.place
    recent = keys.rules_cooldown_key(place.chat or 0, place.topic)
    if not use.store.first_in(recent, use.svc.settings.rules_cooldown):
        return Reply(popup=use.text(_("The rules are just above.")), alert=True)
    return Reply.say(games.painter(room, use.actor.lang).rules_text())


def refused(use: Use, room: Room, outcome: Outcome, ask: PressAsk) -> Reply:
    """Why a press did nothing. An old button's refusal offers the live choices again
    where every old prompt stays in the chat (`ask.prompt`), said once per old prompt
    (`stale_prompt`); elsewhere (Telegram) its popup points to the newest message."""
    popup = outcome.popup
    if popup is None or popup.message != play.STALE:
        return use.popup(popup)
    if ask.prompt is None:  # the live choices are the hand's one message, edited: a
        return use.popup(popup)  # keyboard of them below would be out of date next move
    if not first_stale(use.svc, ask.prompt):
        return Reply()
    said = use.text(_("That button is from an earlier turn: nothing was played."))
    return live_choices(use, room, said)


def has_choices(reply: Reply) -> bool:
    return any(line.choices for line in reply.lines)


def stale_prompt(svc: Services, room: Room, player: int, prompt: str) -> bool:
    """A tap on an old prompt: whether to say so (once per old prompt); the current
    prompt is posted again if messages came after it in the person's chat."""
    if not first_stale(svc, prompt):
        return False
    repost_if_buried(svc, room, player)
    return True


def first_stale(svc: Services, prompt: str) -> bool:
    """Whether this is the first tap on the old prompt `prompt` (said once)."""
    store = svc.store
    return bool(store.redis.set(keys.wa_stale_key(prompt), 1, nx=True, ex=svc.settings.dedupe_ttl))


def repost_if_buried(svc: Services, room: Room, player: int) -> None:
    """The person's current prompt posted again if messages came after it."""
    if buried(svc, room, player):
        target = prompt_target(room, player)
        svc.store.update(room.id, lambda r: Outcome(changed=True, sync={target + ":new"}))


def buried(svc: Services, room: Room, player: int) -> bool:
    """Whether messages came after the person's current prompt in their chat (WhatsApp
    counts them: a Telegram chat has no such count)."""
    redis = svc.store.redis
    shown = redis.hget(keys.msgs_key(room.id), prompt_target(room, player))
    latest = redis.get(keys.wa_seq_key(player))
    return shown is not None and latest is not None and int(shown) < int(latest)


def prompt_target(room: Room, player: int) -> str:
    return targets.TABLE if room.private else targets.hand(player)


def live_choices(use: Use, room: Room, said: str, repost: bool = True) -> Reply:
    """A refusal said with the person's live choices: their current prompt's moves as
    its buttons, or (too many for one reply) the prompt posted again if buried (and
    `repost`)."""
    screen = prompts.screen_for(room, use.player, use.svc)
    rows = tuple(
        row for row in (tuple(move_choices(r)) for r in (screen.rows if screen else ())) if row
    )
    if 0 < sum(len(row) for row in rows) <= MAX_CHOICES:
        return Reply.say(said, *rows)
    if repost:
        repost_if_buried(use.svc, room, use.player)
    return Reply.say(said)


def move_choices(row: tuple[Button, ...]) -> list[Choice]:
    """A prompt's row as choices: its moves only (and its tip, which goes with them)."""
    return [
        Choice(b.label, tokens.text(b.intent))
        for b in row
        if isinstance(b.intent, Press)
        and (isinstance(b.intent.what, Move) or b.intent.what == Command("tip"))
    ]


# ----- a move typed that is no button ------------------------------------------------


async def typed_move(use: Use, ask: TypedMoveAsk) -> Reply:
    """A typed move that was no button of the prompt: played if it is legal now after
    all, else refused precisely, with the live choices."""
    room = use.store.load(ask.room)
    if room is None:
        return use.say(_("This game is over."))
    found = refusals.typed(room, use.player, ask.move, use.svc.now())
    if isinstance(found, str):
        press = Press(room.id, room.phase_version, Move(found))
        return await pressed(use, PressAsk(press, tapped=False))
    return live_choices(use, room, mistake_text(use, room, ask.move, found))


def mistake_text(use: Use, room: Room, wanted: str, mistake: Mistake) -> str:
    """Why a typed move cannot be played, in the person's words: the card named as
    their cards show it, the suit to follow with their cards of it."""
    painter = games.painter(room, use.actor.lang)
    tr, plays = painter.tr, mistake.plays
    if mistake.code in NOT_HELD and mistake.card:
        return tr.gettext(_("You don't have the {card}."), card=painter.card(mistake.card))
    if mistake.card and mistake.suit:  # held, but the led suit must be followed
        spanish = spanish_room(room)
        suit = suit_name(mistake.suit, spanish, tr)
        if plays:
            cards = CARD_SEPARATOR.join(rank_of(c, spanish, tr) for c in plays)
            return tr.gettext(_("You must follow {suit}: {cards}."), suit=suit, cards=cards)
        if any(a.startswith("draw") for a in mistake.legal):
            return tr.gettext(_("You have no {suit}: draw."), suit=suit)
    if wanted in DRAWS and plays:
        return tr.gettext(_("You have a card to play."))
    if mistake.legal == ("pass",):
        return tr.gettext(_("The stock is empty: pass."))
    texts = table_of(room.settings.preset).refusals
    return tr.gettext(texts.get(mistake.code, _("That move is not allowed now.")))


def spanish_room(room: Room) -> bool:
    deck = room.game.rules.deck if room.game is not None else ""
    return spanish_suits(deck, rules_of(room.settings).suit_style) if deck else False


def suit_name(suit: str, spanish: bool, tr: Translator) -> str:
    return tr.gettext(SPANISH_SUITS[suit]) if spanish else SUIT_SYMBOLS[suit]


def rank_of(card: str, spanish: bool, tr: Translator) -> str:
    """A card by its rank only, where its suit is said already (`Caballo`, `Q♥`)."""
    rank = rank_name(card[:-1], spanish, tr)
    return rank if spanish else rank + SUIT_SYMBOLS[card[-1]]


def out_of_date(use: Use) -> Reply:
    """The answer to a press of a player whose move of this phase is queued already."""
    return Reply(popup=use.text(play.STALE))
