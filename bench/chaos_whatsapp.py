"""WhatsApp people in the chaos soak (bench/chaos.py): one-to-one games against bots
(every preset, cuartetos too; about half dealt at once by a greeting, the others set up
in their lobby, and a short one's "play again" taken) and seats at Telegram groups'
tables taken by code, played through the local WhatsApp Cloud API while its delivery
doubles, batches and reorders notifications (seeded), and the players re-tap old
prompts, tap twice, type moves instead of tapping, and someone posts notifications
without a valid signature.

The books of a WhatsApp person: every message they sent is marked handled
(`update:wa:<wamid>`); no forged notification was (each got 403); every move of their
seat is one they made, once (a follow-suit game's decisions are replayed by
bench.chaos.check_moves from the same taps; a cuartetos game's seat actions, read from
its records, are each one of the person's taps, none twice); no prompt they acted on
named a card then in another seat's hand; their game ended and their chat was told.
A greeting's game keeps the environment's short turn time: a turn of its person may
time out, and each one that did is the timer's move, counted (`wa_greeting_timeouts`).
A game played again has books of its own (`wa_rematches`).
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import redis

from cli.stack import WHATSAPP
from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver, WhatsAppError
from engine.registry import find_game
from service.desk.presses import is_command
from service.infra import indexes
from service.infra.keys import PENDING_SYNC, chat_key, update_key, wa_id_key, wa_update_id
from service.infra.store import decode_room, room_key, text
from service.platforms.whatsapp import render
from service.table import games as table_games
from service.table.room import Room
from service.ui import games, tokens
from service.ui.intents import Move
from tests.service.play import names_in
from tests.service.whatsapp.play import choices

if TYPE_CHECKING:
    from bench.chaos import Books, Game, Spec

# One-to-one presets in turn (cuartetos first: a short soak plays it).
WA_PRESETS = ("cuartetos", "spanish", "brazilian", "cangkul", "burro_em_pe", "portuguese")
# country -> (the cast's language, phone prefix, "a game to set up" word, "join" word,
# greeting): a greeting deals a game against three bots at once; the settings words
# open its lobby, where the soak chooses its bots and settings
COUNTRIES = {
    "ES": ("es", "34", "ajustes", "unirme", "hola"),
    "BR": ("pt-BR", "55", "configurar", "entrar", "oi"),
    "PT": ("pt-PT", "351", "definições", "entrar", "olá"),
    "ID": ("id", "62", "pengaturan", "gabung", "halo"),
    "US": ("en", "1", "settings", "join", "hi"),
}
PASS_WINDOW = 60.0  # a cuartetos table's time to choose a card, set in the lobby
# Seconds a cuartetos person waits on a tap of theirs that changed nothing before they
# act again in the same phase (WaPlayers.may_act).
RETAP_AFTER = 8.0


@dataclass
class Person:
    """A WhatsApp person of the soak and what they sent."""

    name: str
    country: str
    bsuid: str = ""
    player: int | None = None
    sent: list[str] = field(default_factory=list)  # the wamids of every message they sent
    cache: dict[str, WaChatMessage] = field(default_factory=dict)
    rev: int = 0
    asked_at: float = 0.0  # when they last asked for a game or to join
    opened: dict[int, float] = field(default_factory=dict)  # phase -> a suit opened then
    # cuartetos: the actions they tapped, by room
    passing_taps: dict[str, list[str]] = field(default_factory=dict)

    @property
    def words(self) -> tuple[str, str, str, str, str]:
        return COUNTRIES[self.country]


def wa_names(n: int, count: int, index: int) -> list[str]:
    """The names of game `n`'s WhatsApp people, their country first: the countries in
    turn from the soak's `index`-th WhatsApp person (5 countries, 6 presets: each
    preset is played from every country)."""
    countries = sorted(COUNTRIES)
    return [f"{countries[(index + k) % len(countries)]}-W{n}x{k}" for k in range(count)]


class WaPlayers:
    """Plays the WhatsApp seats of every game, one small step per game per round."""

    def __init__(
        self,
        wa: WhatsAppDriver,
        client: redis.Redis,
        games_: list[Game],
        books: Books,
        serve_urls: list[str],
        seed: int,
    ) -> None:
        self.wa = wa
        self.client = client
        self.books = books
        self.serve_urls = serve_urls
        self.rnd = random.Random(seed + 3)
        self.games = [g for g in games_ if g.spec.wa]
        self.again: list[Game] = []  # games played again, to be played from the next round
        self.people: dict[str, Person] = {}
        self.forged: list[str] = []
        self.http = httpx.Client(timeout=15)
        self.phones = itertools.count(7_000_000)

    # ----- the cast ----------------------------------------------------------------------

    def prepare(self, seed: int) -> None:
        """The soak's people in the local WhatsApp; its delivery chaos on."""
        for game in self.games:
            for name in game.spec.wa:
                country = name.split("-")[0]
                lang, prefix = COUNTRIES[country][:2]
                number = next(self.phones)
                if number % 4 == 0:  # a username-only person (no phone number given us)
                    found = self.wa.add_user(
                        name, country=country, language=lang, username=f"u{number}"
                    )
                else:
                    found = self.wa.add_user(
                        name, country=country, language=lang, phone=f"{prefix}{number}"
                    )
                self.people[name] = Person(name, country, bsuid=found["user_id"])
        self.wa.settings(duplicates=0.15, batch=0.3, reorder=0.2, seed=seed, concurrency=2)

    # ----- reading -----------------------------------------------------------------------

    def player_of(self, person: Person) -> int | None:
        if person.player is None:
            found = self.client.get(wa_id_key(person.bsuid))
            person.player = int(found) if found is not None else None
        return person.player

    def outgoing(self, person: Person) -> list[WaChatMessage]:
        """The person's chat from us, oldest first (only changes are fetched)."""
        for message in self.wa.messages(person.name, since=person.rev):
            person.cache[message.id] = message
            person.rev = max(person.rev, message.rev)
        found = [m for m in person.cache.values() if m.direction == "out" and m.visible]
        return sorted(found, key=lambda m: m.seq)

    def refresh(self, game: Game) -> None:
        """A one-to-one game's room (a group game's is read by bench.chaos.Players)."""
        if game.spec.kind != "wa":
            return
        person = self.people[game.spec.wa[0]]
        if game.room_id is None:
            player = self.player_of(person)
            found = self.client.get(chat_key(player, None)) if player is not None else None
            room_id = text(found) if found is not None else None
            game.room_id = None if room_id == game.follows else room_id
        if game.room_id is not None:
            raw: Any = self.client.get(room_key(game.room_id))
            if raw is not None and raw != game.raw:
                game.raw, game.room = raw, decode_room(raw)

    # ----- one round ---------------------------------------------------------------------

    def step(self) -> int:
        going = 0
        for game in self.games:
            if game.spec.kind == "wa" and game.done:
                continue
            try:
                self.refresh(game)
                if self.advance(game):
                    going += 1
            except (WhatsAppError, httpx.HTTPError, TimeoutError, redis.RedisError):
                self.books.count("wa_player_retries")
                going += 1
            except Exception as error:
                self.books.count("wa_player_errors")
                going += 1
                if self.books.counts["wa_player_errors"] <= 5:
                    print(f"chaos: whatsapp game {game.spec.n}: {error!r}")
        self.games += self.again
        going += len(self.again)
        self.again.clear()
        return going

    def advance(self, game: Game) -> bool:
        """One step of the game's WhatsApp people; whether it is still going."""
        spec, room = game.spec, game.room
        if spec.kind == "wa":
            person = self.people[spec.wa[0]]
            if room is None or (game.room_id is None):
                if time.time() - person.asked_at > 10:  # again if it has not come yet
                    person.asked_at = time.time()
                    if not self.ask(game, person):
                        person.asked_at = 0.0  # nothing to tap yet: look again next round
                return True
            if room.status == "lobby":
                self.lobby(game, room, person)
                return True
            if room.status != "playing":
                game.done = True
                self.books.count(f"{kind_of(game)}_{room.status}")
                if room.status == "over" and spec.again and game.follows is None:
                    self.again.append(type(game)(spec, follows=room.id))  # its next game
                return False
        if room is None or room.status not in ("lobby", "playing"):
            return room is None
        for name in spec.wa:
            person = self.people[name]
            player = self.player_of(person)
            seat = room.seat_of(player) if player is not None else None
            if room.status == "lobby" and spec.kind != "wa" and seat is None:
                if time.time() - person.asked_at > 10:
                    person.asked_at = time.time()
                    self.send(person, f"{person.words[3]} {room.id}")
                    self.books.count("wa_joins_asked")
            elif room.status == "playing" and seat is not None:
                self.play(game, room, person, seat)
        return True

    def ask(self, game: Game, person: Person) -> bool:
        """Ask for the one-to-one game: by a greeting (dealt at once), by the settings
        words (its lobby first), or by the finished game's "play again"; whether asked."""
        if game.follows is not None:
            return self.play_again(person, game.follows)
        if game.spec.greeting:
            self.send(person, f"{person.words[4]} {game.spec.preset}")
            self.books.count("wa_greetings")
        else:
            self.send(person, f"{person.words[2]} {game.spec.preset}")
        return True

    def play_again(self, person: Person, room_id: str) -> bool:
        """Tap "play again" under the finished game's last message, once it came."""
        for message in reversed(self.outgoing(person)):
            for id_, _title in choices(message):
                press = tokens.press(id_)
                if press is not None and press.room == room_id and is_command(press, "rematch"):
                    self.act(person, message, id_)
                    self.books.count("wa_play_again_taps")
                    return True
        return False

    def send(self, person: Person, words: str) -> WaChatMessage:
        said = self.wa.send(person.name, words)
        person.sent.append(said.id)
        return said

    def act(self, person: Person, message: WaChatMessage, choice: str) -> WaChatMessage:
        if message.buttons:
            said = self.wa.tap(person.name, message, choice)
        else:
            said = self.wa.choose(person.name, message, choice)
        person.sent.append(said.id)
        return said

    # ----- the lobby of a one-to-one game ---------------------------------------------

    def lobby(self, game: Game, room: Room, person: Person) -> None:
        """The opener's next tap: a bot, a setting (a page of the settings further on,
        if need be), Start; each once per version of the room."""
        from bench.chaos import lobby_token

        spec = game.spec
        token = lobby_token(spec, room, len(spec.wa) + spec.bots, cuartetos_setting(spec, room))
        wanted = f"{room.id}.{room.version}.{token}"
        outgoing = self.outgoing(person)
        found = [m for m in outgoing if wanted in [i for i, _t in choices(m)]]
        if found:
            self.tap_once(game, person, found[-1], wanted, (room.version, token))
            return
        for message in reversed(outgoing):
            pages = [
                i
                for i, _t in choices(message)
                if (p := render.pick_of(i)) and p.version == room.version and p.part.isdigit()
            ]
            if pages:  # a further page of the settings holds it
                self.tap_once(game, person, message, pages[-1], (room.version, pages[-1]))
                return

    def tap_once(
        self, game: Game, person: Person, message: WaChatMessage, choice: str, key: Any
    ) -> None:
        if time.time() - game.lobby_taps.get(key, 0.0) < 5:
            return
        game.lobby_taps[key] = time.time()
        self.act(person, message, choice)
        self.books.count("wa_lobby_taps")

    # ----- playing --------------------------------------------------------------------

    def play(self, game: Game, room: Room, person: Person, seat: int) -> None:
        assert room.game is not None
        rules = find_game(room.settings.preset)[0]
        phase = room.phase_version
        if seat not in rules.to_act(room.game) or not self.may_act(game, room, person):
            return
        mark = f"{room.id}.{phase}."
        moves: list[tuple[WaChatMessage, str, str, str]] = []  # (message, id, title, action)
        picks: list[tuple[WaChatMessage, str]] = []
        for message in self.outgoing(person):
            for id_, title in choices(message):
                press = tokens.press(id_) if id_.startswith(mark) else None
                if press is not None and isinstance(press.what, Move):
                    moves.append((message, id_, title, press.what.action))
                found = render.pick_of(id_)
                if found is not None and found.room == room.id and found.version == phase:
                    picks.append((message, id_))
        if not moves:
            if picks and time.time() - person.opened.get(phase, 0.0) > 5:
                person.opened[phase] = time.time()  # a suit's cards, as another message
                message, choice = self.rnd.choice(picks)
                self.act(person, message, choice)
                self.books.count("wa_suits_opened")
            return
        message, choice, title, action = self.rnd.choice(moves)
        self.check_prompt(message, room, seat)
        game.wa_phases.setdefault(person.name, {})[phase] = time.time()
        if spec_is_follow(room):
            game.taps[room.version] = (seat, action)
        else:
            person.passing_taps.setdefault(room.id, []).append(action)
        roll, sent = self.rnd.random(), False  # sent: a post of the move surely went out
        try:
            if roll < 0.12 and typable(action, title):
                self.send(person, title)  # typed instead of tapped
                self.books.count("wa_typed_moves")
            else:
                self.act(person, message, choice)
                sent = True
                self.books.count("wa_taps")
                if roll > 0.92:  # and tapped again: refused, or a duplicate
                    self.act(person, message, choice)
                    self.books.count("wa_double_taps")
        except (WhatsAppError, httpx.HTTPError) as error:
            if not sent:
                self.unsent(game, room, person, error)
            raise

    def unsent(self, game: Game, room: Room, person: Person, error: Exception) -> None:
        """The person's move did not go out (refused), or may not have (a timeout: it may
        land all the same, `Game.unsure`): they play the phase again."""
        del game.wa_phases[person.name][room.phase_version]
        if not spec_is_follow(room):
            person.passing_taps[room.id].pop()
            return
        unsure = game.taps.pop(room.version)
        if isinstance(error, httpx.HTTPError):
            game.unsure[room.version] = unsure

    def may_act(self, game: Game, room: Room, person: Person) -> bool:
        """Whether the person acts in the room's phase: not yet, or (cuartetos) they did
        RETAP_AFTER seconds ago and are still to act. A ¡Burro! without four of a kind or
        a fake call is only explained at first, not made (CuartetosTable.explains): a
        person then taps again, where the soak would wait out the pass window (a
        minute). Every tap goes in their books (check_passing)."""
        tapped = game.wa_phases.get(person.name, {}).get(room.phase_version)
        if tapped is None:
            return True
        if spec_is_follow(room) or time.time() - tapped < RETAP_AFTER:
            return False
        self.books.count("wa_retaps")
        return True

    def check_prompt(self, message: WaChatMessage, room: Room, seat: int) -> None:
        """The prompt names no card now in another seat's hand (a follow-suit one's
        cards known to all, e.g. shown on the table, aside)."""
        if room.version != room.phase_version:
            return  # cuartetos: cards passed since the prompt was drawn
        hidden = hidden_labels(room, seat)
        shown = " ".join([message.text, *message.button_titles, *message.row_titles])
        leaked = names_in(shown, hidden)
        self.books.count("wa_prompts_checked")
        if leaked:
            self.books.violation(
                f"room {room.id} v{room.version}: {room.seats[seat].name}'s WhatsApp "
                f"prompt shows {leaked}, held by another seat"
            )

    # ----- mischief ---------------------------------------------------------------------

    def stale_tap(self) -> None:
        """Tap a move or suit of a prompt the game has moved past: refused ("earlier
        turn"), never applied."""
        playing = [g for g in self.games if g.room is not None and g.room.status == "playing"]
        if not playing:
            return
        game = self.rnd.choice(playing)
        assert game.room is not None
        room = game.room
        person = self.people[self.rnd.choice(game.spec.wa)]
        old = []
        for message in self.outgoing(person):
            for id_, _title in choices(message):
                press = tokens.press(id_)
                pick = render.pick_of(id_)
                version = press.version if press else pick.version if pick else None
                moving = pick is not None or (press is not None and isinstance(press.what, Move))
                room_of = press.room if press else pick.room if pick else None
                stale = version is not None and version < room.phase_version
                if moving and room_of == room.id and stale:
                    old.append((message, id_))
        if old:
            message, choice = self.rnd.choice(old)
            self.act(person, message, choice)
            self.books.count("wa_stale_taps")

    def forge(self) -> None:
        """A notification tapping someone's current move, posted without a valid
        signature: it must be answered 403 and change nothing."""
        people = [p for p in self.people.values() if p.player is not None]
        self.books.count("wa_forge_attempts")
        if not people:
            return
        person = self.rnd.choice(people)
        current = [m for m in self.outgoing(person) if choices(m)]
        if not current:
            return
        choice = self.rnd.choice(choices(current[-1]))[0]
        wamid = f"wamid.FORGED{random.getrandbits(64):x}"
        body = notification(person, wamid, choice)
        kind = self.rnd.choice(["none", "wrong_secret", "other_body"])
        headers = {"Content-Type": "application/json"}
        if kind == "wrong_secret":
            headers["X-Hub-Signature-256"] = sign(body, "not-the-app-secret")
        elif kind == "other_body":  # the right secret, but of another body
            secret = WHATSAPP["BURRO_WHATSAPP_APP_SECRET"]
            headers["X-Hub-Signature-256"] = sign(body + b" ", secret)
        target = self.rnd.choice(self.serve_urls)
        try:
            answer = self.http.post(f"{target}/whatsapp/webhook", content=body, headers=headers)
        except httpx.HTTPError:
            self.books.count("wa_forged_unanswered")  # that serve is down right now
            return
        self.forged.append(wamid)
        self.books.count("wa_forged_posts")
        if answer.status_code != 403:
            self.books.violation(f"a forged notification ({kind}) answered {answer.status_code}")

    # ----- the books ----------------------------------------------------------------------

    def check(self, liveness: bool) -> None:
        for game in self.games:
            self.check_game(game, liveness)
        marks = [update_key(wa_update_id(w)) for p in self.people.values() for w in p.sent]
        with self.client.pipeline(transaction=False) as pipe:
            for key in marks:
                pipe.exists(key)
            found = pipe.execute()
        lost = [k for k, f in zip(marks, found, strict=True) if not f]
        self.books.count("wa_messages_sent", len(marks))
        for key in lost[:20]:
            self.books.violation(f"a WhatsApp message never handled: {key}")
        if len(lost) > 20:
            self.books.violation(f"... and {len(lost) - 20} more WhatsApp messages never handled")
        for wamid in self.forged:
            if self.client.exists(update_key(wa_update_id(wamid))):
                self.books.violation(f"a forged notification was handled: {wamid}")
        for delivery in self.wa.deliveries():
            status = delivery.get("status")
            self.books.count(f"wa_webhook_{status or 'unanswered'}")
            if delivery.get("duplicate_of") is not None:
                self.books.count("wa_duplicates_delivered")
            if len(delivery.get("events") or ()) > 1:
                self.books.count("wa_batched_posts")
            if status is not None and status >= 500 and status != 503:
                post = delivery["post"]
                said = (delivery.get("answer") or "")[:120]
                self.books.violation(f"/whatsapp/webhook answered {status} (post {post}: {said!r})")

    def check_game(self, game: Game, liveness: bool) -> None:
        spec = game.spec
        self.refresh(game)  # a game played again: its room, if it came since the last look
        raw = self.client.get(room_key(game.room_id)) if game.room_id else None
        if raw is None:
            if game.follows is not None and not liveness:
                self.books.count("wa_rematches_not_started")  # the soak ended first
            else:
                self.books.violation(f"WhatsApp game {spec.n}: no room")
            return
        room = decode_room(raw)
        if spec.kind != "wa":
            seated = [self.player_of(self.people[n]) for n in spec.wa]
            if not all(room.seat_of(p) is not None for p in seated if p is not None):
                if room.status != "cancelled":
                    self.books.violation(f"game {spec.n} ({room.id}): a WhatsApp person not seated")
                return
            self.books.count("wa_group_games")
            self.books.count(f"wa_group_games_{room.status}")
            if room.status == "playing":
                self.report_stuck(room, self.people[spec.wa[0]])
            return  # its moves and end are checked with the group game (bench.chaos)
        self.check_own(game, room, liveness)

    def check_own(self, game: Game, room: Room, liveness: bool) -> None:
        """A one-to-one game's books (a game played again counted apart)."""
        from bench.chaos import check_moves, untold

        spec, person, kind = game.spec, self.people[game.spec.wa[0]], kind_of(game)
        self.books.count(kind)
        finished = room.status == "over"
        if not finished:
            if room.status == "playing" and not liveness:
                self.books.count(f"{kind}_unfinished_waiting")
                self.report_stuck(room, person)
            else:
                self.books.violation(
                    f"WhatsApp game {spec.n} ({room.id}, {spec.preset}): not finished "
                    f"({room.status}, v{room.version})"
                )
                return
        else:
            self.books.count(f"{kind}_finished")
        if spec_is_follow(room):
            check_moves(game, room, self.books, untold)
        else:
            self.check_passing(room, person)
        if finished:
            self.check_told(room, person)

    def report_stuck(self, room: Room, person: Person) -> None:
        """What an unfinished game waits on (to read in the soak's output)."""
        assert room.game is not None
        waiting = find_game(room.settings.preset)[0].to_act(room.game)
        last = [
            (m.seq, [i for i, _t in choices(m)][:4], m.text[-80:]) for m in self.outgoing(person)
        ]
        print(
            f"chaos: {room.id} ({room.settings.preset}) v{room.version} phase "
            f"{room.phase_version} waits on {waiting}; {person.name} last saw {last}"
        )

    def check_passing(self, room: Room, person: Person) -> None:
        """A cuartetos seat's recorded actions are each one the person tapped, none twice."""
        assert room.game is not None
        rules = find_game(room.settings.preset)[0]
        seat = room.seat_of(person.player or -1)
        if seat is None:
            self.books.violation(f"room {room.id}: {person.name} is not seated")
            return
        done: Counter[str] = Counter()
        hands = len(room.game.past) + 1
        for index in range(hands):
            for action in rules.hand_record(room.game, index)["actions"]:
                if action["seat"] == seat:
                    done[plain(action["action"])] += 1
                elif action["seat"] >= 0 and room.seats[action["seat"]].bot is not None:
                    self.books.count("bot_moves")
        tapped = Counter(plain(a) for a in person.passing_taps.get(room.id, []))
        self.books.count("player_moves_applied", sum(done.values()))
        self.books.count("wa_passing_moves", sum(done.values()))
        extra = done - tapped
        if extra:
            self.books.violation(
                f"room {room.id}: {person.name}'s seat made {dict(extra)} more than they tapped"
            )

    def check_told(self, room: Room, person: Person) -> None:
        """Their chat was told the end (once the outbox caught up)."""
        waiting = indexes.members(self.client, PENDING_SYNC)
        pending = [m for m in waiting if m.startswith(room.id)]
        if pending:
            self.books.count("wa_games_with_messages_still_pending")
            return
        seat = room.seat_of(person.player or -1)
        assert seat is not None
        result = games.painter(room, room.seats[seat].lang).news_lines()[0]
        if not any(result in m.text for m in self.outgoing(person)):
            self.books.violation(f"room {room.id}: {person.name} was never told {result!r}")
        self.books.count("wa_ends_told")


def kind_of(game: Game) -> str:
    """How the books count a one-to-one game: a first game, or one played again."""
    return "wa_rematches" if game.follows is not None else "wa_games"


def cuartetos_setting(spec: Spec, room: Room) -> str | None:
    """What a one-to-one cuartetos table still has to change: one letter loses (a short
    game), the slowest pace (WhatsApp people under chaos are slow)."""
    if spec.preset != "cuartetos":
        return None
    rules: Any = table_games.rules_of(room.settings)
    if spec.short and rules.target != 1:
        return "target"
    if rules.pass_window < PASS_WINDOW:
        return "pace"
    return ""


def spec_is_follow(room: Room) -> bool:
    return room.settings.preset != "cuartetos"


def plain(action: str) -> str:
    """A cuartetos action as tapped (a fake call names this round's word once made)."""
    return "fake" if action.startswith("fake") else action


def typable(action: str, title: str) -> bool:
    """A card a person can type as its button shows it."""
    return action.startswith(("play:", "pass:")) and "…" not in title and title[-1:] != "2"


def hidden_labels(room: Room, seat: int) -> set[str]:
    """How the seat's language names the cards hidden in the other seats' hands."""
    assert room.game is not None
    painter = games.painter(room, room.seats[seat].lang)
    game = find_game(room.settings.preset)[0]
    if spec_is_follow(room):
        state: Any = room.game
        codec = state.table.codec
        masks = [
            state.hand.hands[other] & ~state.hand.known[other]
            for other in range(state.seats)
            if other != seat
        ]
        codes = [c for mask in masks for c in codec.codes(mask)]
    else:
        codes = [c for o in range(len(room.seats)) if o != seat for c in game.hand(room.game, o)]
    return {painter.card(c) for c in codes if c != "JK"}


def sign(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def notification(person: Person, wamid: str, reply_id: str) -> bytes:
    """Meta's notification of a tap on reply `reply_id` by `person`."""
    message: dict[str, Any] = {
        "from_user_id": person.bsuid,
        "id": wamid,
        "timestamp": str(int(time.time())),
        "type": "interactive",
        "interactive": {"type": "button_reply", "button_reply": {"id": reply_id, "title": "x"}},
    }
    value = {
        "messaging_product": "whatsapp",
        "metadata": {
            "display_phone_number": WHATSAPP["BURRO_WHATSAPP_NUMBER"],
            "phone_number_id": WHATSAPP["BURRO_WHATSAPP_PHONE_ID"],
        },
        "contacts": [{"profile": {"name": person.name}, "user_id": person.bsuid}],
        "messages": [message],
    }
    change = {"field": "messages", "value": value}
    entry = {"id": WHATSAPP["BURRO_WHATSAPP_WABA_ID"], "changes": [change]}
    return json.dumps({"object": "whatsapp_business_account", "entry": [entry]}).encode()
