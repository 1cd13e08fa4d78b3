"""Widgets (Bot API 10.4) in the local Telegram: sent, their state edited and their
requests answered through the real python-telegram-bot (`do_api_request`, as the
service calls methods PTB does not know), checked against widgets.md's limits."""

from __future__ import annotations

import os
import time
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from telegram import Update
from telegram.ext import Application, CommandHandler, ContextTypes, TypeHandler

from emulator import RunningEmulator, ServerThread
from emulator.common import tls
from emulator.telegram import widgets
from emulator.telegram.driver import EmulatorError, WidgetAnswer
from tests.emulator.conftest import TOKEN, BotApiClient, Receiver

pytestmark = pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")

SECRET = "widget-secret"
ANA = 100001
BEN = 100002
# A widget: a counter the bot keeps; a tap asks the bot to count one more.
COUNTER = """<!DOCTYPE html><html><head><style>body{font:14px sans-serif}</style></head>
<body><button id="tap">Tap</button><p id="state"></p><p id="answer"></p><p id="net"></p>
<script>
const W = window.TelegramWidget;
const show = (s) => { document.getElementById("state").textContent = s.chat_data; };
show(W.getState());
W.onStateChange(show);
document.getElementById("tap").onclick = () => W.request("tap").then(
  (r) => { document.getElementById("answer").textContent = r.result; },
  (e) => { document.getElementById("answer").textContent = "refused: " + e.message; });
const leaks = [];
const tried = (what) => (e) => { leaks.push(what + " blocked"); net(); };
const net = () => { document.getElementById("net").textContent = leaks.sort().join(", "); };
const spy = document.documentElement.dataset.spy || "SPY";
fetch(spy + "/fetch").then(() => { leaks.push("fetch went"); net(); }, tried("fetch"));
const img = new Image();
img.onerror = tried("image");
img.onload = () => { leaks.push("image went"); net(); };
img.src = spy + "/image";
try {
  const ws = new WebSocket(spy.replace("http", "ws") + "/ws");
  ws.onerror = tried("websocket");
} catch (e) { tried("websocket")(e); }
W.ready && W.ready();
</script></body></html>"""


@dataclass
class WidgetBot:
    """What the widget bot saw: the widget_query updates, as they came."""

    queries: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)  # message id -> taps counted
    silent: bool = False  # leave requests unanswered


def widget_html(spy: str) -> str:
    return COUNTER.replace('dataset.spy || "SPY"', f'dataset.spy || "{spy}"')


def build_bot(
    api_url: str, record: WidgetBot, html: str
) -> Application[Any, Any, Any, Any, Any, Any]:
    application = (
        Application.builder().token(TOKEN).base_url(f"{api_url}/bot").updater(None).build()
    )

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None
        await context.bot.do_api_request(
            "sendWidget",
            {
                "chat_id": update.effective_chat.id,
                "html": html,
                "height": 160,
                "chat_data": "count=0",
                "caption": "Counter",
                "allow_queries": True,
            },
        )

    async def widget_query(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.api_kwargs.get("widget_query")
        if not isinstance(query, dict):
            return
        record.queries.append(query)
        if record.silent:
            return
        message_id = int(query["message_id"])
        count = record.counts[message_id] = record.counts.get(message_id, 0) + 1
        await context.bot.do_api_request(
            "editMessageWidgetData",
            {
                "chat_id": query["chat"]["id"],
                "message_id": message_id,
                "chat_data": f"count={count}",
            },
        )
        await context.bot.do_api_request(
            "answerWidgetQuery", {"widget_query_id": query["id"], "data": f"ok {count}"}
        )

    application.add_handler(CommandHandler("start", start))
    application.add_handler(TypeHandler(Update, widget_query))
    return application


@contextmanager
def running_widget_bot(api_url: str, html: str = COUNTER) -> Iterator[WidgetBot]:
    """The bot, served by webhook (`allowed_updates` lists widget_query, as it must)."""
    record = WidgetBot()
    application = build_bot(api_url, record, html)
    url: list[str] = []

    async def hook(request: Request) -> Response:
        if request.headers.get("X-Telegram-Bot-Api-Secret-Token") != SECRET:
            return Response(status_code=403)
        await application.process_update(Update.de_json(await request.json(), application.bot))
        return Response()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await application.initialize()
        await application.bot.set_webhook(
            url[0], secret_token=SECRET, allowed_updates=["message", "widget_query"]
        )
        yield
        await application.shutdown()

    server = ServerThread(
        Starlette(routes=[Route("/hook", hook, methods=["POST"])], lifespan=lifespan)
    )
    url.append(f"{server.url}/hook")
    with server:
        yield record


@pytest.fixture
def widget_bot(emu: RunningEmulator) -> Iterator[WidgetBot]:
    with running_widget_bot(emu.api_url) as record:
        emu.wait_for(lambda: emu.webhook_info()["url"], what="the bot's setWebhook")
        yield record


def sent_widget(emu: RunningEmulator, user: str = "Ana") -> Any:
    emu.start(user)
    return emu.wait_for_message(user, lambda m: emu.widget(m) is not None)


def test_a_widget_is_sent_and_its_taps_reach_the_bot(
    emu: RunningEmulator, widget_bot: WidgetBot
) -> None:
    message = sent_widget(emu)
    widget = emu.widget(message)
    assert widget == {"html": COUNTER, "height": 160, "chat_data": "count=0"}
    assert message.text == "Counter"
    assert message.raw["has_protected_content"] is True  # production protects widgets
    since = emu.last_seq()

    answer = emu.widget_query("Ana", message, "tap")

    assert answer == WidgetAnswer(answer.query_id, "ok 1")
    (query,) = widget_bot.queries
    assert query == {
        "id": answer.query_id,
        "from": query["from"],
        "chat_instance": query["chat_instance"],
        "type": {"type": "data"},
        "data": "tap",
        "chat": {**query["chat"], "id": ANA, "type": "private"},
        "message_id": message.message_id,
    }  # and no chat_data: the bot keeps its own state
    assert query["from"]["id"] == ANA
    shown = emu.message("Ana", message.message_id)
    assert emu.widget(shown) == {**widget, "chat_data": "count=1"}
    assert not shown.edited  # the state changed, not the message
    assert emu.notifications("Ana", since=since) == []  # and nobody was told
    methods = [call["method"] for call in emu.calls(since=since)]
    assert methods == ["editMessageWidgetData", "answerWidgetQuery"]


@pytest.fixture
def raw(api: BotApiClient, emu: RunningEmulator) -> BotApiClient:
    emu.start("Ana")  # the bot may write to Ana
    return api


def test_the_html_must_fit_telegrams_sizes(raw: BotApiClient) -> None:
    assert raw.error("sendWidget", chat_id=ANA, html="") == (
        400,
        'Bad Request: parameter "html" is required',
    )
    too_long = "a" * (widgets.MAX_HTML + 1)
    assert raw.error("sendWidget", chat_id=ANA, html=too_long)[1].endswith("WIDGET_HTML_TOO_LONG")
    raw.ok("sendWidget", chat_id=ANA, html="a" * widgets.MAX_HTML)  # compresses well
    # Under 32768 bytes but not under 4096 once compressed: noise does not compress.
    noise = os.urandom(6000).hex()  # 12000 bytes
    assert len(zlib.compress(noise.encode(), 9)) > widgets.MAX_COMPRESSED
    assert raw.error("sendWidget", chat_id=ANA, html=noise)[1].endswith("WIDGET_HTML_TOO_BIG")
    assert raw.error("sendWidget", chat_id=ANA, html="<p>", height=0)[1].endswith(
        "WIDGET_SIZE_INVALID"
    )


def test_the_state_fits_1024_bytes_and_edits_keep_clear_or_refuse(raw: BotApiClient) -> None:
    most = "é" * 512  # 1024 bytes
    for name in ("public_data", "chat_data"):
        assert raw.error("sendWidget", chat_id=ANA, html="<p>", **{name: most + "x"})[1].endswith(
            "WIDGET_DATA_TOO_LONG"
        )
    sent = raw.ok("sendWidget", chat_id=ANA, html="<p>", public_data="p", chat_data=most)
    assert sent["widget"] == {"html": "<p>", "public_data": "p", "chat_data": most}
    where = {"chat_id": ANA, "message_id": sent["message_id"]}

    assert raw.ok("editMessageWidgetData", **where, chat_data="") is True  # "" clears
    code, said = raw.error("editMessageWidgetData", **where, public_data="p")  # the same
    assert (code, said.startswith("Bad Request: message is not modified")) == (400, True)
    assert raw.error("editMessageWidgetData", **where, public_data=most + "x")[1].endswith(
        "WIDGET_DATA_TOO_LONG"
    )
    text = raw.ok("sendMessage", chat_id=ANA, text="no widget here")
    assert raw.error("editMessageWidgetData", chat_id=ANA, message_id=text["message_id"]) == (
        400,
        f"Bad Request: {widgets.NO_WIDGET}",
    )


def test_widgets_go_to_private_chats_only_in_production(raw: BotApiClient) -> None:
    assert raw.error("sendWidget", chat_id=-1001000000001, html="<p>") == (
        400,
        f"Bad Request: {widgets.PRIVATE_ONLY}",
    )


@pytest.mark.parametrize("emu", [{"widgets_in_groups": True}], indirect=True)
def test_the_test_server_takes_widgets_in_groups(raw: BotApiClient, emu: RunningEmulator) -> None:
    sent = raw.ok("sendWidget", chat_id=-1001000000001, html="<p>", allow_queries=True)
    assert "has_protected_content" not in sent  # not protected unless asked, here
    message = emu.message("Family", sent["message_id"])
    query_id = emu.widget_request("Ben", message, "hi")
    assert isinstance(query_id, str)


@pytest.mark.parametrize("emu", [{"bot_api": "10.1"}], indirect=True)
def test_an_older_bot_api_has_no_widgets(raw: BotApiClient) -> None:
    assert raw.error("sendWidget", chat_id=ANA, html="<p>") == (404, "Not Found")


def test_a_widget_asks_within_telegrams_limits(raw: BotApiClient, emu: RunningEmulator) -> None:
    mute = raw.ok("sendWidget", chat_id=ANA, html="<p>")
    with pytest.raises(EmulatorError, match="allow_queries"):
        emu.widget_request("Ana", emu.message("Ana", mute["message_id"]), "x")
    sent = raw.ok("sendWidget", chat_id=ANA, html="<p>", allow_queries=True)
    message = emu.message("Ana", sent["message_id"])
    for data in ("", "x" * 65):
        with pytest.raises(EmulatorError, match="1-64 bytes"):
            emu.widget_request("Ana", message, data)
    with pytest.raises(EmulatorError, match="does not see"):
        emu.widget_request("Ben", message, "x")  # not Ben's chat
    asked = [emu.widget_request("Ana", message, "x" * 64) for _ in range(5)]
    with pytest.raises(EmulatorError, match="too many widget requests"):
        emu.widget_request("Ana", message, "one more")
    updates = [u["widget_query"] for u in emu.updates() if "widget_query" in u]
    assert [u["id"] for u in updates] == asked  # five reached the bot, the sixth did not

    first = str(asked[0])
    assert raw.error("answerWidgetQuery", widget_query_id=first, data="y" * 1025)[1].endswith(
        "WIDGET_DATA_TOO_LONG"
    )
    assert raw.ok("answerWidgetQuery", widget_query_id=first, data="y" * 1024) is True
    assert raw.error("answerWidgetQuery", widget_query_id=first)[1].startswith(
        "Bad Request: query is too old"
    )  # answered once
    assert emu.widget_answer(first) == WidgetAnswer(first, "y" * 1024)
    assert emu.widget(emu.message("Ana", sent["message_id"])) == {"html": "<p>"}  # unchanged


@pytest.mark.parametrize("emu", [{"answer_timeout": 0.2}], indirect=True)
def test_an_answer_after_the_window_is_refused(raw: BotApiClient, emu: RunningEmulator) -> None:
    sent = raw.ok("sendWidget", chat_id=ANA, html="<p>", allow_queries=True)
    query_id = emu.widget_request("Ana", emu.message("Ana", sent["message_id"]), "x")
    time.sleep(0.3)  # past the (shortened) 15-second window
    assert raw.error("answerWidgetQuery", widget_query_id=query_id)[1].startswith(
        "Bad Request: query is too old"
    )


def test_a_bot_that_lists_its_updates_must_list_widget_query(
    raw: BotApiClient, emu: RunningEmulator, receiver: tuple[Receiver, str]
) -> None:
    hook, url = receiver
    raw.ok("setWebhook", url=url, allowed_updates=["message", "callback_query"])
    sent = raw.ok("sendWidget", chat_id=ANA, html="<p>", allow_queries=True)
    emu.widget_request("Ana", emu.message("Ana", sent["message_id"]), "x")
    emu.send_message("Ana", "Ana", "after the tap")
    emu.wait_for(
        lambda: any(u.get("message", {}).get("text") == "after the tap" for u in hook.updates),
        what="the message sent after the tap",
    )
    assert all("widget_query" not in update for update in hook.updates)


def test_the_frame_runs_the_widget_with_no_network(raw: BotApiClient, emu: RunningEmulator) -> None:
    html = "<html><head><title>w</title></head><body>hi</body></html>"
    sent = raw.ok("sendWidget", chat_id=ANA, html=html, chat_data="</script>")
    with httpx.Client(trust_env=False, verify=tls.context()) as http:
        response = http.get(
            f"{emu.url}/_emulator/widget_frame",
            params={"chat_id": ANA, "scope": sent["from"]["id"], "message_id": sent["message_id"]},
        )
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'none'" in policy
    assert "sandbox allow-scripts" in policy
    page = response.text
    # the API's script first in the head, the state in it unable to close it
    assert page.startswith("<html><head><script>window.__burroWidgetState = ")
    assert "\\u003c/script>" in page and page.endswith(
        "<title>w</title></head><body>hi</body></html>"
    )


def test_a_shared_widget_shows_one_public_state_everywhere(
    raw: BotApiClient, emu: RunningEmulator
) -> None:
    emu.start("Ben")
    first = raw.ok(
        "sendWidget",
        chat_id=ANA,
        html="<p>",
        public_data="table 1",
        chat_data="ana",
        is_shared=True,
        allow_queries=True,
    )
    widget_id = first["widget"]["id"]
    second = raw.ok("sendSharedWidget", chat_id=BEN, widget_id=widget_id, chat_data="ben")
    assert second["widget"] == {
        "html": "<p>",
        "id": widget_id,
        "public_data": "table 1",
        "chat_data": "ben",
    }

    def shown() -> list[tuple[str, str]]:
        pairs = (("Ana", first), ("Ben", second))
        found = [emu.message(user, sent["message_id"]) for user, sent in pairs]
        return [(w["public_data"], w["chat_data"]) for w in map(emu.widget, found) if w]

    assert raw.ok("editSharedWidgetData", widget_id=widget_id, public_data="table 2") is True
    assert shown() == [("table 2", "ana"), ("table 2", "ben")]
    ben = {"chat_id": BEN, "message_id": second["message_id"]}
    assert raw.error("editMessageWidgetData", **ben, public_data="table 3") == (
        429,
        "Too Many Requests: retry after 1",
    )  # a shared widget's public data: at most once a second
    assert raw.ok("editMessageWidgetData", **ben, chat_data="ben 2") is True  # its own
    emu.wait_for(
        lambda: raw.call("editMessageWidgetData", **ben, public_data="table 3")["ok"] or None,
        what="a second gone by",
    )
    assert shown() == [("table 3", "ana"), ("table 3", "ben 2")]

    assert raw.error("editSharedWidgetData", widget_id=widget_id, public_data="x", cache_time=4)[
        1
    ].endswith("CACHE_TIME_INVALID")
    assert raw.error("sendSharedWidget", chat_id=BEN, widget_id="sw-nope")[1].endswith(
        "WIDGET_ID_INVALID"
    )
    emu.widget_request("Ben", emu.message("Ben", second["message_id"]), "x")
    asked = [u["widget_query"] for u in emu.updates() if "widget_query" in u]
    assert asked[-1]["widget_id"] == widget_id
