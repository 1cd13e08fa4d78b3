"""The commands a person gives, on any platform: open a table or a game against bots,
join, rules, stats, export, cancel, language, reminders, the look of their cards,
privacy and forgetting, and words we do not read. Each answers in the person's
language; a bad word gets a short hint."""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable

from engine.kernel.errors import RulesError
from service.desk import opening, showing
from service.desk.asks import Attachment, Choice, CommandAsk, Line, Reply, TypedAsk
from service.desk.use import Use
from service.i18n import LANGUAGE_NAMES, LANGUAGES, Translator, _
from service.infra import keys
from service.infra.forget import forget
from service.table import caps, lobby, names, targets, zones
from service.table import games as table_games
from service.table import privacy as privacy_notice
from service.table.names import shown
from service.table.outcome import Outcome, Popup
from service.table.room import LIVE, Room
from service.ui import games
from service.ui.clock import when
from service.ui.games import games_list
from service.ui.intents import Command, Press
from service.ui.screens import stats_lines
from service.ui.tokens import text as press_data

ROOM_CODE = re.compile(r"^[a-z0-9]{8}$")  # a table's code (its room id)
BOTS = 3  # a game against bots dealt at once: a table of four
# A newcomer's choices under our greeting (one a row: a phone's width takes one label).
GREETING_CHOICES = (
    (_("🎲 Play now"), "cmd:play"),
    (_("👪 Family table"), "cmd:family"),
    (_("❓ How to play"), "cmd:rules"),
)
Handler = Callable[[Use, tuple[str, ...]], Awaitable[Reply]]


async def command(use: Use, ask: CommandAsk) -> Reply:
    """Route a command to its use case."""
    place = use.request.place
    if not place.private and place.chat is not None and use.request.message is not None:
        # a message below the table of the game here: the table is posted again at the
        # bottom on its next change (the bot sees no other group messages, in privacy mode)
        use.store.note_message(place.chat, place.topic, use.request.message)
    return await HANDLERS[ask.name](use, ask.args)


def preset_of(args: tuple[str, ...]) -> str | None:
    """The preset the first word names (spanish when none), or None for no game."""
    return table_games.preset_named(args[0]) if args else table_games.DEFAULT_PRESET


def unknown_game(use: Use) -> Reply:
    names = "\n" + games_list(use.tr)
    return use.say(_("Unknown game. Choose one of: {names}"), names=names)


def remember(use: Use) -> None:
    """The person opened their private chat with us: we may write to them there."""
    sender = use.request.sender
    use.store.remember_user(sender.player, sender.name, sender.lang_hint or "", started=True)


# ----- opening tables --------------------------------------------------------------------


async def new(use: Use, args: tuple[str, ...]) -> Reply:
    """Open a table: a lobby in a group; in a private chat, a game against bots."""
    if use.request.place.private:
        return await setup(use, args)
    preset = preset_of(args)
    if preset is None:
        return unknown_game(use)
    existing = use.room_here()
    if existing is not None and existing.status in LIVE:  # its table comes below on its next change
        seated = existing.seat_of(use.player) is not None
        line = use.text(_("A game is already open here. Finish it or /cancel it first."))
        return Reply.say(line, *([cards_button(use, existing)] if seated else []))
    place = use.request.place
    assert place.chat is not None  # a group's command comes from the group
    refusal = caps.refusal(use.store, use.svc.settings, place.chat, use.player)
    if refusal is not None:
        return use.told(Outcome(popup=refusal))
    settings = table_games.new_settings(preset, use.svc.settings, group=True)
    room = lobby.create_room(place.chat, place.topic, use.actor, use.svc.now(), settings=settings)
    here = not use.reachable and use.request.personal  # their cards shown in the group
    if here:
        room.blocked = [use.player]  # nothing goes to a chat they never opened
    created = use.store.create(room, Outcome(changed=True, sync={"table"}), use.request.mark)
    if created and here:
        return use.say(_("Once the game starts, tap “🃏 My cards” here: only you see them."))
    if created and not use.reachable:
        text = use.text(_("Your cards will come to our private chat: open it once."))
        return Reply.say(text, cards_button(use, room))
    return Reply()


def cards_button(use: Use, room: Room) -> tuple[Choice, ...]:
    """A button to the person's private chat with the bot, where their cards are."""
    link = use.links.private(room.id)
    return (Choice(use.text(_("💬 Open my cards")), url=link),) if link else ()


async def setup(use: Use, args: tuple[str, ...]) -> Reply:
    """A game against bots in the private chat, set up with buttons in its lobby."""
    return against_bots(use, args, bots=1, at_once=False)


async def play_now(use: Use, args: tuple[str, ...]) -> Reply:
    """A game against three bots, dealt now: the person's first message is their turn."""
    return against_bots(use, args, bots=BOTS, at_once=True)


def against_bots(use: Use, args: tuple[str, ...], bots: int, at_once: bool) -> Reply:
    if not use.request.place.private:
        return use.say(
            _("Play against bots in a private chat with me; here, use /burro to open a table.")
        )
    preset = preset_of(args)
    if preset is None:
        return unknown_game(use)
    remember(use)
    popup = opening.against_bots(
        use.svc, use.player, use.actor, preset, use.request.mark, bots, at_once
    )
    zone = use.store.user(use.player).get("zone")
    if zone is not None:  # a person whose zone we keep (WhatsApp): their table's deadlines
        own_table_zone(use, zone)
    return use.told(Outcome(popup=popup))


async def hello(use: Use, args: tuple[str, ...]) -> Reply:
    """A greeting: the person's game going on shown again; a newcomer's first one
    answered with ours (a game named deals it at once); else a game dealt at once."""
    room = use.active_room()
    if room is not None:
        return show_game(use, room)
    if not args and not greeted(use):
        return greeting(use)
    return await play_now(use, args)


def greeted(use: Use) -> bool:
    return bool(use.store.user(use.player).get("greeted"))


def greeting(use: Use) -> Reply:
    """Our first words to a newcomer: the game in a line, where their cards will come,
    and the choices (play now against bots, a family's table, how to play), once."""
    use.store.redis.hset(keys.user_key(use.player), "greeted", "1")
    zone = use.store.user(use.player).get("zone") or zones.DEFAULT
    rows = tuple((Choice(use.text(label), ask=ask),) for label, ask in GREETING_CHOICES)
    return Reply.say(use.manual.greeting(use.tr, zone), *rows)


async def resume(use: Use, args: tuple[str, ...]) -> Reply:
    """Back to the game: the table named (a WhatsApp template's, whose turn waited) if
    the person still plays there, else their game going on, shown again; else the
    welcome."""
    named = use.store.load(args[0]) if args else None
    seated = named is not None and named.status in LIVE and named.seat_of(use.player) is not None
    room = named if seated else use.active_room()
    if room is None:
        return Reply(lines=(use.manual.welcome(use.tr),))
    return show_game(use, room)


def show_game(use: Use, room: Room) -> Reply:
    """The person's game going on, shown again as a fresh message: their own chat's
    table (a lobby there too), else their cards at a table elsewhere."""
    if room.chat_id == use.player and (room.private or room.status == "lobby"):
        use.store.update(room.id, opening.repost, use.request.mark)
        return Reply()
    player = use.player
    result = use.store.update(room.id, lambda r: lobby.show_hand(r, player), use.request.mark)
    if result is not None and not result[1].changed:
        return use.told(result[1])
    return Reply()


async def start(use: Use, args: tuple[str, ...]) -> Reply:
    """The private chat opened (a link may carry `j<room>`: join, or `g<room>`: show my
    hand); a group's /start is answered with help."""
    if not use.request.place.private:
        return await help_(use, ())
    remember(use)
    payload = args[0] if args else ""
    room = use.store.load(payload[1:]) if payload[:1] in ("j", "g") else None
    if room is not None and payload[0] == "j":
        return seat(use, room)
    if room is not None:
        player = use.player
        change = lambda r: lobby.show_hand(r, player)  # noqa: E731
        result = use.store.update(room.id, change, use.request.mark)
        return use.told(result[1]) if result is not None else Reply()
    own = use.store.room_in_chat(use.player, None)
    if own is not None and own.status in LIVE:  # their game against bots
        use.store.update(own.id, opening.repost, use.request.mark)
        return Reply()
    if not greeted(use):
        return greeting(use)
    return Reply(lines=(use.manual.welcome(use.tr),))


async def family_table(use: Use, args: tuple[str, ...]) -> Reply:
    """A table for family and friends, opened from the private chat: its lobby, and the
    links to share (each player then plays in their own chat with us). A person in the
    middle of a game against bots is asked first: the family table takes that chat's
    place, so the game ends only if they say so (`!` before the game's word, as the
    question's button sends it); its links are never handed out (they seat nobody)."""
    confirmed = bool(args) and args[0].startswith(CONFIRMED)
    if confirmed:
        args = tuple(a for a in (args[0][len(CONFIRMED) :], *args[1:]) if a)
    preset = preset_of(args)
    if preset is None:
        return unknown_game(use)
    own = opening.game_against_bots(use.svc, use.player)
    if own is not None and own.status == "playing" and not confirmed:
        return family_question(use, preset)
    ended = False
    if own is not None:  # a lobby of one goes without a word
        ended = opening.end_for_family(use.svc, own, use.actor) and own.status == "playing"
    room = opening.family_table(use.svc, use.player, use.actor, preset, use.request.mark)
    if isinstance(room, Popup):
        return use.told(Outcome(popup=room))
    if room.private:  # the chat's game could not give way (ended by a second request)
        return family_question(use, preset)
    told = invitation(use, room)
    if ended:
        told = use.text(_("Your game against the bots has ended.")) + "\n\n" + told
    return Reply.say(told)


def invitation(use: Use, room: Room) -> str:
    """The family table's links to share: for their WhatsApp group and for Telegram,
    or the one link there is (a platform not set up has none)."""
    links = use.links.invitations(room.id, use.actor.lang)
    whatsapp, telegram = links.get("whatsapp"), links.get("telegram")
    if whatsapp and telegram:
        words = _("👪 Send this to your family's WhatsApp group: {link}\nOn Telegram: {telegram}")
        return use.text(words, link=whatsapp, telegram=telegram)
    return use.text(_("👪 Send this link to your family: {link}"), link=whatsapp or telegram)


CONFIRMED = "!"  # before a family table's game word: end the game against bots for it


def family_question(use: Use, preset: str) -> Reply:
    """Asked of a person playing against bots who wants a family table: it opens in
    their chat in the game's place (one table a chat), so they choose."""
    question = _(
        "🎲 You are in the middle of a game against the bots. A family table opens here "
        "in its place: end this game and open the family table now, or keep playing?"
    )
    rows = (
        (Choice(use.text(_("👪 Family table")), ask=f"cmd:family:{CONFIRMED}{preset}"),),
        (Choice(use.text(_("▶️ Keep playing")), ask="cmd:resume"),),
    )
    return Reply.say(use.text(question), *rows)


async def join(use: Use, args: tuple[str, ...]) -> Reply:
    return seat_by_code(use, args[0].strip() if args else "")


NO_TABLE = _("No open table has that code.")


def seat_by_code(use: Use, code: str) -> Reply:
    """Sit at the table a code names."""
    room = use.store.load(code) if code else None
    if room is None or (room.status not in LIVE and not targets.in_own_chat(room)):
        return use.say(NO_TABLE)
    return seat(use, room)


def seat(use: Use, room: Room) -> Reply:
    """Sit at a table its link or code names: welcomed with where it is and where the
    cards will come; a game against bots seats nobody: the person is shown a way on,
    and its owner told."""
    if room.private and room.creator == use.player:  # their own game's link
        return show_game(use, room) if room.status in LIVE else use.say(NO_TABLE)
    if room.private:
        return private_game(use, room)
    actor = use.actor
    result = use.store.update(room.id, lambda r: lobby.join(r, actor), use.request.mark)
    if result is None:
        return Reply()
    fresh, outcome = result
    if outcome.changed:
        return welcome(use, fresh)
    why = lobby.missed(fresh, use.player)
    if why is None or not targets.in_own_chat(fresh):  # a group sees its own table
        return use.told(outcome)
    return too_late(use, fresh, outcome, why)


def too_late(use: Use, room: Room, outcome: Outcome, why: str) -> Reply:
    """A family's table its link could not seat the person at (its game started, was
    full, was over): why, what they can do instead, and a word to its host, who shared
    the link and would otherwise believe it worked."""
    tell_owner(use, room, why)
    popup = outcome.popup
    if why == targets.OVER or popup is None:
        first = use.text(_("This game is over."))
    else:
        first = use.text(popup.message, **dict(popup.values))
    words = _("Ask {host} to send you the link of their next table. Meanwhile:")
    told = f"{first}\n{use.text(words, host=shown(host_of(room)))}"
    return Reply.say(told, *meanwhile(use))


def private_game(use: Use, room: Room) -> Reply:
    """Someone followed a link to another's game against bots (shared before family
    tables had links): what they can do instead, and a word to the game's owner, once."""
    tell_owner(use, room)
    host = host_of(room)
    words = _(
        "🔒 This link is to {host}'s game against the bots, which nobody can join. "
        "Ask {host} to open a family table and send you its link. Meanwhile:"
    )
    return Reply.say(use.text(words, host=shown(host)), *meanwhile(use))


def meanwhile(use: Use) -> tuple[tuple[Choice, ...], ...]:
    """What a person not seated can do instead: play now, or open a family table."""
    return tuple((Choice(use.text(label), ask=ask),) for label, ask in GREETING_CHOICES[:2])


def tell_owner(use: Use, room: Room, why: str = targets.PRIVATE) -> None:
    """Tell a game's owner that the person followed its link, once a day per game (the
    mark names no visitor: nothing of a person is kept for it), through their open
    table in that chat (an ended room is never written again: it would take the chat
    back from the game there now)."""
    visitor = use.player
    told = use.store.room_in_chat(room.chat_id, None)
    if told is None or told.status not in LIVE or told.creator != room.creator:
        return
    if visitor != room.creator and use.store.first_in(
        keys.knock_cooldown_key(room.id), KNOCK_COOLDOWN
    ):
        remember(use)  # the owner is told the visitor's name
        use.store.update(told.id, lambda r: lobby.knocked(r, visitor, why))


KNOCK_COOLDOWN = 24 * 3600


def host_of(room: Room) -> str:
    """Whose table it is, by name (its opener's, else its first person's)."""
    host = room.host()
    return (
        host.name if host is not None else ""
    )  # a visitor's second try within a day is not told again


def welcome(use: Use, room: Room) -> Reply:
    """The welcome at the table just joined: whose table it is, where the table and the
    cards will come, and the way back to the group where there is one."""
    host, name = shown(host_of(room)), shown(use.actor.name)
    seat = room.seat_of(use.player)
    if seat is not None:
        name = shown(room.seats[seat].name)
    if not targets.shows_table(room, use.player):  # no group of theirs shows it
        words = _(
            "👋 Welcome to {host}'s table, {name}! The table and your cards will come "
            "here, in this chat, when the game starts."
        )
        return use.say(words, host=host, name=name)
    words = _(
        "👋 Welcome to {host}'s table, {name}! The table is in the group; your cards "
        "will come here, in this chat, when the game starts."
    )
    if room.name:  # the group's title, as its platform last told it
        words = _(
            "👋 Welcome to {host}'s table, {name}! The table is in the group {group}; "
            "your cards will come here, in this chat, when the game starts."
        )
    link = use.links.group(room)
    back = (Choice(use.text(_("↩️ Back to the group")), url=link),) if link else ()
    told = use.text(words, host=host, name=name, group=f"«{shown(room.name or '')}»")
    return Reply.say(told, *([back] if back else []))


# ----- telling -------------------------------------------------------------------------


async def help_(use: Use, args: tuple[str, ...]) -> Reply:
    return Reply(lines=(use.manual.help(use.tr, games_list(use.tr)),))


async def rules(use: Use, args: tuple[str, ...]) -> Reply:
    """The rules, short: of the game named, else of the game here or the person's."""
    if args:
        preset = preset_of(args)
        if preset is None:
            return unknown_game(use)
        return Reply.say(games.rules_text(table_games.rules_for(preset), use.tr))
    here = use.room_here() if not use.request.place.private else None
    room = here if here is not None and here.status in LIVE else use.active_room()
    return Reply.say(games.rules_text(rules_of(room), use.tr))


def rules_of(room: Room | None) -> object:
    if room is not None:
        try:
            return table_games.rules_of(room.settings)
        except RulesError:
            return table_games.rules_for(room.settings.preset)
    return table_games.rules_for(table_games.DEFAULT_PRESET)


async def stats(use: Use, args: tuple[str, ...]) -> Reply:
    """The person's games, wins and burros; in a group, the group's too."""
    tr = use.tr
    lines = stats_lines(tr, use.actor.name, use.store.user_stats(use.player))
    place = use.request.place
    if not place.private and place.chat is not None:
        lines += group_stats(use, place.chat)
    return Reply.say("\n".join(lines))


def group_stats(use: Use, chat: int) -> list[str]:
    tr, group = use.tr, use.store.chat_stats(chat)
    n = group.get("games", 0)
    lines = [
        tr.ngettext("This group has finished {n} game.", "This group has finished {n} games.", n)
    ]
    burros = sorted(
        ((int(k[6:]), v) for k, v in group.items() if k.startswith("burro:")),
        key=lambda kv: -kv[1],
    )[:5]
    for user_id, count in burros:
        name = shown(names.clean(use.store.user(user_id).get("name", ""), str(user_id)))
        lines.append(
            tr.ngettext(
                "  🫏 {name}: the burro {n} time",
                "  🫏 {name}: the burro {n} times",
                count,
                name=name,
            )
        )
    return lines


async def export(use: Use, args: tuple[str, ...]) -> Reply:
    """A finished hand's record (a running hand would show everyone's cards, so only
    finished hands are exported). While the game goes on, only its players and the
    group's admins may export: a record tells nothing of the hands to come (deals are
    drawn one-way from the room's key), but it is the table's own."""
    room = use.room_here()
    finished = table_games.finished_hands(room) if room else 0
    if room is None or room.game is None or not finished:
        return use.say(_("No finished hand to export yet."))
    if room.status == "playing" and not await may_export(use, room):
        return use.say(_("While the game goes on, only its players (or an admin) can export it."))
    number = int(args[0]) if args and args[0].isdigit() else (-1 if args else finished)
    if not 1 <= number <= finished:
        return use.say(_("Choose a finished hand from 1 to {n}."), n=finished)
    data = json.dumps(table_games.hand_record(room, number - 1), indent=1).encode()
    file = Attachment(f"burro-{room.id}-hand{number}.json", data)
    busy = use.text(_("Many messages here just now: send /export again in a minute."))
    return Reply(lines=(Line(export_caption(use.tr, number), file=file, busy=busy),))


def export_caption(tr: Translator, number: int) -> str:
    """What the exported file is, for a family; the replay command is a footnote."""
    return "\n\n".join(
        [
            tr.gettext(
                _(
                    "🗂 Hand {n}, move by move: the cards dealt and everything played. "
                    "A record of the hand to keep, or to share with someone."
                ),
                n=number,
            ),
            tr.gettext(_("For the curious: the burro replay program plays it back.")),
        ]
    )


async def may_export(use: Use, room: Room) -> bool:
    return room.seat_of(use.player) is not None or (await use.as_admin(room)).admin


# ----- managing --------------------------------------------------------------------------


async def cancel(use: Use, args: tuple[str, ...]) -> Reply:
    """Ask the table's creator (or an admin) whether to end the open game."""
    room = use.room_here()
    if room is None or room.status not in LIVE:
        return use.say(_("There is no open game here."))
    if not (use.player == room.creator or (await use.as_admin(room)).admin):
        return use.say(_("Only the player who opened the table (or an admin) can cancel."))
    yes = Press(room.id, room.version, Command("cancel"))
    no = Press(room.id, room.version, Command("keep_playing"))
    choices = (
        Choice(use.text(_("Yes, cancel the game")), ask=press_data(yes)),
        Choice(use.text(_("No, keep playing")), ask=press_data(no)),
    )
    return Reply.say(use.text(_("Cancel this game for everyone?")), choices)


async def language(use: Use, args: tuple[str, ...]) -> Reply:
    """Speak the language named; without one, the choice of them."""
    if not args:
        rows = tuple(
            (Choice(LANGUAGE_NAMES[lang], ask=f"cmd:language:{lang}"),) for lang in LANGUAGES
        )
        return Reply.say(use.text(_("Choose your language:")), *rows)
    wanted = args[0].replace("-", "_").lower()
    match = next((lang for lang in LANGUAGES if lang.lower() == wanted), None)
    if match is None:
        names = ", ".join(LANGUAGES)
        return use.say(_("Unknown language. Choose one of: {names}"), names=names)
    use.store.set_user_language(use.player, match)
    player = use.player
    for room_id in use.store.rooms_of(player):
        use.store.update(room_id, lambda r: lobby.relabel(r, player, match))
    said = Translator(match).gettext(
        _("I will speak {language} with you."), language=LANGUAGE_NAMES[match]
    )
    return Reply(popup=said) if use.request.message is None else Reply.say(said)


async def hour(use: Use, args: tuple[str, ...]) -> Reply:
    """The person's time zone: told, or set from the words after "hour" (a city, a
    zone, a UTC offset, or the time it is where they are); the table in their own chat
    then shows it too."""
    if not args:
        return zone_told(use, use.store.user(use.player).get("zone") or zones.DEFAULT, False)
    zone = zones.named(" ".join(args), use.svc.now())
    if zone is None:
        # TRANSLATORS: 'hour' is the word a person writes on WhatsApp to set their time
        # zone (service/platforms/whatsapp/words.py: hora, horario, jam ...)
        unknown = _(
            "🕒 I do not know that place. Write 'hour' and your city (as 'hour Lisbon'), "
            "or the time it is where you are (as 'hour 18:30')."
        )
        return use.say(unknown)
    use.store.redis.hset(keys.user_key(use.player), "zone", zone)
    own_table_zone(use, zone)
    return zone_told(use, zone, True)


def own_table_zone(use: Use, zone: str) -> None:
    """The table in the person's own chat shows its deadlines in their zone (a group's
    table keeps the group's)."""
    own = use.store.room_in_chat(use.player, None)
    if own is not None and own.status in LIVE and own.settings.timezone != zone:
        use.store.update(own.id, lambda r: rezone(r, zone))


def zone_told(use: Use, zone: str, changed: bool) -> Reply:
    now = when(use.svc.now(), zone, use.tr)
    if changed:
        return use.say(_("🕒 Done: your time is now {now}."), now=now)
    # TRANSLATORS: 'hour' as above
    told = _(
        "🕒 Your time is {now}. To change it, write 'hour' and your city "
        "(as 'hour Lisbon'), or the time it is where you are (as 'hour 18:30')."
    )
    return use.say(told, now=now)


def rezone(room: Room, zone: str) -> Outcome:
    """The room's deadlines in `zone`: saved, nothing to show again (no version bump:
    its buttons stay good)."""
    room.settings.timezone = zone
    return Outcome(changed=True)


async def quiet(use: Use, args: tuple[str, ...]) -> Reply:
    use.store.redis.hset(keys.user_key(use.player), "quiet", "1")
    return use.say(_("🔕 No more reminders. Write 'remind' to have them again."))


async def loud(use: Use, args: tuple[str, ...]) -> Reply:
    use.store.redis.hdel(keys.user_key(use.player), "quiet")
    return use.say(_("🔔 I will remind you when it is your turn."))


# ----- the look of a hand ----------------------------------------------------------------

# How a person's cards are shown (keys.USER_LOOK): drawn where their chat can draw them
# (Telegram's widgets; the default), or written.
LOOKS = {keys.LOOK_PICTURES: _("🖼 Pictures"), keys.LOOK_TEXT: _("📝 Text")}


async def look(use: Use, args: tuple[str, ...]) -> Reply:
    """The person's cards drawn or written, as named (their game going on shown again
    so); without a word, the choice, in their own chat."""
    chosen = args[0] if args else None
    if chosen not in LOOKS:
        row = tuple(Choice(use.text(text), ask=f"cmd:look:{name}") for name, text in LOOKS.items())
        question = use.text(_("How should I show your cards?"))
        return Reply(lines=(Line(question, (row,)),), private=True)
    use.store.redis.hset(keys.user_key(use.player), keys.USER_LOOK, chosen)
    room = use.active_room()
    if room is not None:
        show_game(use, room)
    said = use.text(
        _("🖼 Your cards will be drawn, where this chat can draw them.")
        if chosen == keys.LOOK_PICTURES
        else _("📝 Your cards will be written as text.")
    )
    return Reply(popup=said) if use.request.message is None else Reply.say(said)


# ----- privacy ---------------------------------------------------------------------------


async def privacy(use: Use, args: tuple[str, ...]) -> Reply:
    """What is kept and for how long, in the words of the person's platform."""
    manual, tr = use.manual, use.tr
    notice = privacy_notice.notice(
        use.svc.settings, tr, manual.app, manual.forget_word(tr), manual.kept(tr)
    )
    return Reply.say(notice)


async def forget_question(use: Use, args: tuple[str, ...]) -> Reply:
    """Ask before forgetting: only in the person's own chat."""
    if not use.request.place.private:
        return Reply.say(use.manual.where_forget(use.tr))
    choices = (
        Choice(use.text(_("🗑 Yes, forget me")), ask="cmd:forget_yes"),
        Choice(use.text(_("No, keep it")), ask="cmd:forget_no"),
    )
    question = _(
        "Delete your settings and statistics, and take your name out of every game I keep? "
        "In games still running, a bot takes your seat. This cannot be undone."
    )
    return Reply.say(use.text(question), choices)


async def forget_yes(use: Use, args: tuple[str, ...]) -> Reply:
    if not use.request.place.private:
        return Reply.say(use.manual.where_forget(use.tr))
    tr = use.tr  # read before it goes
    use.on_forget(use.player)  # the platform's traces first: they are found from the person
    forget(use.store, use.player, use.svc.now())
    done = use.manual.forgotten(tr)
    return Reply(popup=done, alert=True, replaced=True, lines=(Line(done),))


async def forget_no(use: Use, args: tuple[str, ...]) -> Reply:
    return Reply(popup=use.text(_("Nothing was deleted.")))


# ----- words we do not read --------------------------------------------------------------


def typed(use: Use, ask: TypedAsk) -> Reply:
    """Words that are no move and no command: a table's code joins it; else what the
    person can say (to a chatty person at most once per the platform's cooldown)."""
    codes = (w for w in ask.text.split() if ROOM_CODE.match(w))
    code = next((w for w in codes if use.store.load(w) is not None), None)
    if code is not None:
        return seat_by_code(use, code)
    cooldown = use.manual.chatter_cooldown
    if cooldown and not use.store.first_in(keys.chatter_cooldown_key(use.player), cooldown):
        return Reply()
    playing = use.active_room() is not None
    return Reply(lines=(use.manual.chatter(use.tr, playing),))


HANDLERS: dict[str, Handler] = {
    "new": new,
    "play": play_now,
    "setup": setup,
    "hello": hello,
    "resume": resume,
    "start": start,
    "family": family_table,
    "join": join,
    "help": help_,
    "rules": rules,
    "stats": stats,
    "export": export,
    "cancel": cancel,
    "language": language,
    "privacy": privacy,
    "forget": forget_question,
    "forget_yes": forget_yes,
    "forget_no": forget_no,
    "quiet": quiet,
    "loud": loud,
    "hour": hour,
    "look": look,
    "hand": showing.asked,
}
