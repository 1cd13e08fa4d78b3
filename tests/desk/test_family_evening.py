"""The front desk's contract: one family evening (tests/desk/evening.py) posted as
Telegram's Updates and as WhatsApp's notifications.

1. Both platforms' real parsers read every step as the same ask, and a redelivery
   under the same dedupe mark.
2. Against one fake desk, each adapter draws the same replies its own way: what Abuela
   and Nieto see on Telegram (the press's answer in the webhook's HTTP answer, Bot API
   sends) and on WhatsApp (Graph API messages).
3. Against the real desk (over fakeredis), the desk says the same on both platforms.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, cast

import fakeredis
import pytest
from pydantic import SecretStr
from telegram import Bot, Update

from service.desk import prompts
from service.desk.asks import (
    Ask,
    Choice,
    CommandAsk,
    Line,
    Mark,
    PressAsk,
    Reply,
    Request,
    TypedAsk,
)
from service.desk.desk import Desk, Handled
from service.infra import keys
from service.infra.store import Store
from service.platforms.base import Answer
from service.platforms.links import ServiceLinks
from service.platforms.telegram import commands, limits, taps
from service.platforms.telegram.webhook import TelegramWebhook
from service.platforms.whatsapp import people
from service.platforms.whatsapp.inbound import Handler
from service.platforms.whatsapp.message import Inbound
from service.platforms.whatsapp.webhook import parse
from service.services import Services
from service.settings import Settings
from service.table import lobby
from service.table.room import Room, new_game_key
from service.ui.intents import Command, Move, Press
from tests.desk.evening import (
    ABUELA,
    BOT_USERNAME,
    EVENING,
    NIETO,
    PHONE_ID,
    ROOM,
    Act,
    Chooses,
    Person,
    Redelivered,
    Says,
    Step,
    Taps,
    TelegramWire,
    Types,
    WhatsAppWire,
    managing,
)
from tests.desk.fakes import FakeBot, FakeDesk, FakeGraph

START = 1_700_000_000.0


def settings() -> Settings:
    return Settings(
        telegram_token=SecretStr("123456:evening"),
        webhook_secret=SecretStr("evening-secret"),
        whatsapp_token=SecretStr("t"),
        whatsapp_phone_id=PHONE_ID,
        whatsapp_app_secret=SecretStr("s"),
        whatsapp_verify_token=SecretStr("v"),
        whatsapp_number="15550009999",
        whatsapp_pair_rate=0.0,
        rate_limits=False,
        bot_delay=0.0,
    )


@functools.cache
def ptb_bot() -> Bot:
    """The Bot that PTB's reading of an Update is bound to, made once: each one builds
    two HTTP clients, each loading the system's certificates (a tenth of a second)."""
    return Bot("1:x")


@dataclass
class TelegramSide:
    """Our Telegram webhook, its Bot API a fake; each step posted as an Update."""

    hook: TelegramWebhook
    bot: FakeBot
    wire: TelegramWire

    def request(self, step: Step) -> Request:
        """The webhook's reading of the step (a move's tap from its JSON alone), checked
        against every other reading of the same Update."""
        data = self.wire.update(step)
        found = self.hook.incoming(data).request
        assert found is not None, step
        bot = ptb_bot()
        by_ptb = commands.request_of(Update.de_json(data, bot), bot, BOT_USERNAME)
        tap = taps.tap_of(data)
        for other in [by_ptb, taps.request_of(tap) if tap else None]:
            if other is not None:
                assert (other.mark, other.sender, other.place) == (
                    found.mark,
                    found.sender,
                    found.place,
                )
                assert essence(other.ask) == essence(found.ask), step
        return found

    async def post(self, step: Step) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
        """The step handled: the webhook's HTTP answer, and the Bot API calls made."""
        sent = len(self.bot.calls)
        outcome, answer = await self.hook.handle(self.hook.incoming(self.wire.update(step)))
        assert answer.status == 200, outcome
        return answer_of(answer), self.bot.calls[sent:]


@dataclass
class WhatsAppSide:
    """Our WhatsApp handler, the Graph API a fake; each step posted as a notification."""

    handler: Handler
    graph: FakeGraph
    wire: WhatsAppWire

    def message(self, step: Step) -> Inbound:
        notification = parse(self.wire.notification(step), PHONE_ID)
        assert notification is not None and len(notification.messages) == 1, step
        return notification.messages[0]

    def request(self, step: Step) -> tuple[Mark, Ask]:
        """The handler's reading of the step: its dedupe mark and its ask."""
        message = self.message(step)
        player = people.sender_of(self.handler.redis, self.handler.svc.store, message).player
        return keys.wa_update_id(message.wamid), self.handler.ask_of(player, message)

    async def post(self, step: Step) -> list[dict[str, Any]]:
        """The step handled: the messages the person was sent."""
        sent = len(self.graph.sent)
        await self.handler.handle(self.message(step))
        return [content for _address, content in self.graph.sent[sent:]]


def services() -> Services:
    clock = iter(range(int(START), int(START) + 10_000))
    return Services(settings(), Store(fakeredis.FakeRedis(), 3600, 3600), lambda: next(clock))


@pytest.fixture
def telegram(monkeypatch: pytest.MonkeyPatch) -> TelegramSide:
    monkeypatch.setattr(limits, "ENABLED", False)  # the webhook sets it from its settings
    svc = services()
    hook = TelegramWebhook(svc.settings, svc, svc.store.redis, ServiceLinks(svc))
    bot = FakeBot()
    hook.application.bot = cast(Any, bot)
    return TelegramSide(hook, bot, TelegramWire())


@pytest.fixture
def whatsapp() -> WhatsAppSide:
    svc, graph = services(), FakeGraph()
    handler = Handler(svc, svc.store.redis, cast(Any, graph), ServiceLinks(svc))
    return WhatsAppSide(handler, graph, WhatsAppWire())


def essence(ask: Ask) -> object:
    """What an ask asks, on any platform: a press's press (WhatsApp adds the prompt
    the button was on), else the ask itself."""
    return ask.press if isinstance(ask, PressAsk) else ask


def expected(step: Act) -> object:
    """The ask a step is, in the desk's terms."""
    if isinstance(step, Says):
        return CommandAsk(step.command, step.words)
    if isinstance(step, Types):
        return TypedAsk(step.text)
    if isinstance(step, Taps):
        return step.press
    assert isinstance(step, Chooses)
    name, _sep, word = step.data.removeprefix("cmd:").partition(":")
    return CommandAsk(name, (word,) if word else ())  # type: ignore[arg-type]


# ----- 1. the parsers ------------------------------------------------------------------


def test_both_parsers_read_the_evening_as_the_same_asks(
    telegram: TelegramSide, whatsapp: WhatsAppSide
) -> None:
    previous: tuple[Act, Mark, Mark] | None = None
    for step in EVENING:
        tg = telegram.request(step)
        wa_mark, wa_ask = whatsapp.request(step)
        if isinstance(step, Redelivered):  # the same update again: the same mark
            assert previous is not None
            act, tg_mark, wa_first = previous
            assert (tg.mark, wa_mark) == (tg_mark, wa_first)
        else:
            act = step
        assert essence(tg.ask) == essence(wa_ask) == expected(act), act
        assert tg.place.private and tg.sender.player == act.who.telegram_id
        previous = (act, tg.mark, wa_mark)


def test_a_tapped_move_is_read_alike_from_its_json_and_by_ptb(telegram: TelegramSide) -> None:
    data = telegram.wire.update(Taps(NIETO, Press(ROOM, 3, Move("play:7D"))))
    tap = taps.tap_of(data)
    assert tap is not None  # a move's tap takes the fast path
    incoming = telegram.hook.incoming(data)
    assert incoming.update is None and incoming.pressed is not None
    assert incoming.pressed.query_id == data["callback_query"]["id"]
    assert telegram.request(Redelivered()).ask == PressAsk(Press(ROOM, 3, Move("play:7D")))


# ----- 2. one fake desk, drawn by each adapter -----------------------------------------

DONE = "Done: I have forgotten you."
LANGS = ("es", "pt_BR", "pt_PT", "en", "id")
LANGUAGES = tuple((Choice(code, ask=f"cmd:language:{code}"),) for code in LANGS)


STALE = Press(ROOM, 3, Move("play:5D"))  # the evening's tap on an earlier turn


def scripted(ask: Ask) -> Reply:
    """The fake desk's answers: each shape a Reply takes, in the evening."""
    if isinstance(ask, PressAsk):
        return pressed_reply(ask.press)
    if isinstance(ask, TypedAsk):
        return Reply.say("Nieto sits down.")
    assert isinstance(ask, CommandAsk), ask
    link = (Choice("Telegram", url="https://t.me/burro_bot?start=jfamilia1"),)
    forget = (Choice("Yes", ask="cmd:forget_yes"), Choice("No", ask="cmd:forget_no"))
    answers = {
        "family": Reply.say("👪 Share the table", link),
        "language": Reply.say("Choose:", *LANGUAGES) if not ask.args else Reply.say("OK"),
        "stats": Reply.say("Abuela: 1 game"),
        "rules": Reply.say("The rules"),
        "privacy": Reply.say("What I keep"),
        "forget": Reply.say("Forget you?", forget),
        "forget_no": Reply(popup="Nothing was deleted."),
        "forget_yes": Reply(popup=DONE, alert=True, replaced=True, lines=(Line(DONE),)),
    }
    return answers[ask.name]


def pressed_reply(press: Press) -> Reply:
    """A stale tap is refused with an alert; a move is queued (nothing to say); start
    and cancel echo what the screens show, and cancel's question goes."""
    if press == STALE:
        return Reply(popup="Out of date", alert=True)
    if isinstance(press.what, Move):
        return Reply()
    if press.what == Command("cancel"):
        return Reply(popup="Cancelled", quiet=True, replaced=True)
    return Reply(popup="Dealt!", quiet=True)


# What each person sees, step by step: on Telegram the press's answer (riding on the
# webhook's HTTP answer; every press is answered) and the Bot API's calls; on WhatsApp
# the messages sent (a quiet popup only echoes the screens: not said there).
SEEN: list[tuple[list[str], list[str]]] = [
    # Abuela opens the family table: its link as a button / as a line
    (
        ["answered", "message: 👪 Share the table [Telegram→url]"],
        ["text: 👪 Share the table\nTelegram: https://t.me/burro_bot?start=jfamilia1"],
    ),
    (["message: Nieto sits down."], ["text: Nieto sits down."]),
    (["answered: Dealt!"], []),  # start: the screens show it
    (["answered"], []),  # two moves, queued: the spinner stops
    (["answered"], []),
    (["answered: Out of date (alert)"], ["text: Out of date"]),  # the stale tap
    (["answered: Out of date (alert)"], ["text: Out of date"]),  # its redelivery, again
    (
        ["message: Choose: [es | pt_BR | pt_PT | en | id]"],
        ["list: Choose: [es | pt_BR | pt_PT | en | id]"],
    ),
    (["answered", "message: OK"], ["text: OK"]),
    (["message: OK"], ["text: OK"]),
    (["message: Abuela: 1 game"], ["text: Abuela: 1 game"]),
    (["message: The rules"], ["text: The rules"]),
    (["answered: Cancelled", "deleted"], []),  # the question answered: it goes
    (["message: What I keep"], ["text: What I keep"]),
    (["message: Forget you? [Yes | No]"], ["buttons: Forget you? [Yes | No]"]),
    (["answered: Nothing was deleted."], ["text: Nothing was deleted."]),
    (["message: Forget you? [Yes | No]"], ["buttons: Forget you? [Yes | No]"]),
    ([f"answered: {DONE} (alert)", f"edited: {DONE}"], [f"text: {DONE}"]),
]


def test_each_platform_draws_the_desk_s_replies(
    telegram: TelegramSide, whatsapp: WhatsAppSide
) -> None:
    desk = FakeDesk(scripted)
    telegram.hook.desk = cast(Desk, desk)
    whatsapp.handler.desk = cast(Desk, FakeDesk(scripted))

    async def evening() -> None:
        for step, (on_telegram, on_whatsapp) in zip(EVENING, SEEN, strict=True):
            answer, calls = await telegram.post(step)
            assert [*pressed(answer), *map(drawn, calls)] == on_telegram, step
            assert [shown(content) for content in await whatsapp.post(step)] == on_whatsapp, step

    asyncio.run(evening())
    marks = [r.mark for r in desk.requests]
    assert len(marks) == len(EVENING) and len(set(marks)) == len(EVENING) - 1  # one redelivery


def answer_of(answer: Answer) -> dict[str, Any]:
    """The method riding on the webhook's answer, if any."""
    if answer.media_type != "application/json":
        return {}
    found = json.loads(answer.body)
    assert isinstance(found, dict)
    return found


def pressed(answer: dict[str, Any]) -> list[str]:
    """A press's answerCallbackQuery, as the presser sees it."""
    if answer.get("method") != "answerCallbackQuery":
        return []
    text = answer.get("text")
    alert = " (alert)" if answer.get("show_alert") else ""
    link = f" → {answer['url']}" if "url" in answer else ""
    return [f"answered: {text}{alert}{link}" if text else f"answered{link}"]


def drawn(call: tuple[str, dict[str, Any]]) -> str:
    method, params = call
    if method == "deleteMessage":
        return "deleted"
    if method == "editMessageText":
        return f"edited: {params['text']}"
    markup = params.get("reply_markup")
    labels = (
        [b.text + ("→url" if b.url else "") for row in markup.inline_keyboard for b in row]
        if markup
        else []
    )
    return f"message: {params['text']}" + (f" [{' | '.join(labels)}]" if labels else "")


def shown(content: dict[str, Any]) -> str:
    """A WhatsApp message as the person sees it: its text, its buttons or list rows."""
    if content["type"] == "text":
        return f"text: {content['text']['body']}"
    interactive = content["interactive"]
    action, body = interactive["action"], interactive["body"]["text"]
    if interactive["type"] == "button":
        titles = [b["reply"]["title"] for b in action["buttons"]]
        return f"buttons: {body} [{' | '.join(titles)}]"
    titles = [row["title"] for section in action["sections"] for row in section["rows"]]
    return f"list: {body} [{' | '.join(titles)}]"


# ----- 3. the real desk, on both platforms side by side --------------------------------


class Recorder:
    """The real desk, with what it answered each request kept."""

    def __init__(self, desk: Desk) -> None:
        self.desk, self.replies = desk, list[Reply]()

    async def handle(self, request: Request) -> Handled:
        handled = await self.desk.handle(request)
        self.replies.append(handled.reply)
        return handled

    async def handle_own(self, mark: Mark, work: Callable[[], Awaitable[None]]) -> Handled:
        return await self.desk.handle_own(mark, work)


def words_of(reply: Reply) -> tuple[object, ...]:
    """What a reply says: its popup and link, its lines' texts and buttons."""
    lines = tuple((line.text, line.choices) for line in reply.lines)
    return (reply.popup, reply.alert, reply.url, reply.replaced, lines)


def shape_of(reply: Reply) -> tuple[object, ...]:
    """A reply with the platform's own words left out (its Manual's)."""
    asks = tuple(tuple(c.ask for row in line.choices for c in row) for line in reply.lines)
    return (reply.popup is None, reply.alert, reply.replaced, asks)


@dataclass
class Evening:
    """Both platforms' sides, each over its own Redis, playing the same steps."""

    telegram: TelegramSide
    whatsapp: WhatsAppSide

    async def both(self, step: Step) -> tuple[Reply, Reply]:
        await self.telegram.post(step)
        await self.whatsapp.post(step)
        return replies(self.telegram.hook.desk)[-1], replies(self.whatsapp.handler.desk)[-1]

    def room(self) -> Room:
        """The family's table, the same on both platforms (a deal of the same key)."""
        rooms = [side_svc.store.load(ROOM) for side_svc in self.services()]
        assert rooms[0] is not None and rooms[1] is not None
        assert rooms[0].version == rooms[1].version and rooms[0].status == rooms[1].status
        return rooms[0]

    def services(self) -> tuple[Services, Services]:
        return self.telegram.hook.svc, self.whatsapp.handler.svc

    def turn(self) -> tuple[Person, Press]:
        """Who is to move, and the first move their screen offers (on both sides)."""
        tg_svc, wa_svc = self.services()
        for person in (ABUELA, NIETO):
            wa_player = people.find(wa_svc.store.redis, person.bsuid, None)
            assert wa_player is not None
            offered = [
                moves(svc, player)
                for svc, player in [(tg_svc, person.telegram_id), (wa_svc, wa_player)]
            ]
            assert offered[0] == offered[1], person
            if offered[0]:
                return person, offered[0][0]
        raise AssertionError("nobody is to move")

    def label(self, person: Person, press: Press) -> str:
        """The label of a press's button on the person's WhatsApp screen."""
        svc = self.whatsapp.handler.svc
        player, room = people.find(svc.store.redis, person.bsuid, None), svc.store.load(ROOM)
        screen = None if player is None or room is None else prompts.screen_for(room, player, svc)
        assert screen is not None
        return next(b.label for row in screen.rows for b in row if b.intent == press)


def replies(desk: Desk) -> list[Reply]:
    assert isinstance(desk, Recorder)
    return desk.replies


def moves(svc: Services, player: int) -> list[Press]:
    room = svc.store.load(ROOM)
    screen = None if room is None else prompts.screen_for(room, player, svc)
    buttons = [b.intent for row in screen.rows for b in row] if screen else []
    return [p for p in buttons if isinstance(p, Press) and isinstance(p.what, Move)]


@pytest.fixture
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table is the family's, dealt from one key: both platforms' tables alike."""
    key = new_game_key()
    monkeypatch.setattr(lobby, "new_room_id", lambda: ROOM)
    monkeypatch.setattr(lobby, "new_game_key", lambda: key)


@pytest.mark.usefixtures("same_deal")
def test_the_real_desk_says_the_same_on_both_platforms(
    telegram: TelegramSide, whatsapp: WhatsAppSide
) -> None:
    telegram.hook.desk = cast(Desk, Recorder(telegram.hook.desk))
    whatsapp.handler.desk = cast(Desk, Recorder(whatsapp.handler.desk))
    evening = Evening(telegram, whatsapp)
    said: list[tuple[Step, Reply, Reply]] = []

    async def play(step: Step) -> None:
        said.append((step, *await evening.both(step)))

    async def script() -> None:
        await play(Chooses(ABUELA, "cmd:family"))
        await play(Types(NIETO, ROOM))
        lobby_start = managing(evening.room().version, "start")
        await play(Taps(ABUELA, lobby_start))
        assert evening.room().status == "playing"
        mover, first = evening.turn()
        typed = whatsapp.request(Types(mover, evening.label(mover, first)))[1]
        assert typed == PressAsk(first, tapped=False)  # a move typed on WhatsApp: the tap's
        await play(Taps(mover, first))  # queued for a worker: answered at once
        await play(Redelivered())
        await play(Taps(mover, first))  # tapped again this phase: out of date
        await play(Taps(ABUELA, lobby_start))  # the lobby's button, after the start
        await play(Says(NIETO, "language"))
        await play(Chooses(NIETO, "cmd:language:en"))
        await play(Says(NIETO, "stats"))
        await play(Says(ABUELA, "rules"))
        await play(Taps(ABUELA, managing(evening.room().version, "cancel")))
        assert evening.room().status == "cancelled"
        await play(Says(NIETO, "privacy"))
        await play(Says(NIETO, "forget"))
        await play(Chooses(NIETO, "cmd:forget_no"))
        await play(Says(NIETO, "forget"))
        await play(Chooses(NIETO, "cmd:forget_yes"))

    asyncio.run(script())
    for step, on_telegram, on_whatsapp in said:
        if platform_s_own(step):  # the Manual's words: the same reply, its own texts
            assert shape_of(on_telegram) == shape_of(on_whatsapp), step
        else:
            assert words_of(on_telegram) == words_of(on_whatsapp), step
    forgotten = said[-1]
    assert forgotten[1].replaced and forgotten[2].replaced  # the question says it is done


def platform_s_own(step: Step) -> bool:
    """Steps the desk answers in its platform's Manual's words (what a person may write
    and how to come back differ: `/forget` on Telegram, a word on WhatsApp)."""
    privacy = isinstance(step, Says) and step.command == "privacy"
    return privacy or (isinstance(step, Chooses) and step.data == "cmd:forget_yes")
