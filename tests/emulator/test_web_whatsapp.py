"""The web chat's WhatsApp view in headless Chromium (Debian's `chromium`, driven by
Playwright), at a desktop's width and a phone's (390 px).

With the whole product in this process (`running_service`: Redis, the webhook app, a
worker and the emulator, its local WhatsApp delivering to /whatsapp/webhook), Abuela
asks for help, sets up a game against the bot ("ajustes": its lobby) and plays it to its
end purely through the page:
each move a tap on a reply button or a row of a list's sheet, each new prompt shown, an
old prompt's buttons still there and tappable (one tapped: the service says it was
from an earlier turn), nothing wider than the phone's screen. The clock control moves
the emulator's clock on a day, and the 24-hour window closes.

With the emulator alone, the business's messages as the Graph API sends them: ticks for
every status (a failed one with its error code), a template's quick replies, a list's
sections and descriptions, a reaction, an offline user."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator import RunningEmulator
from emulator.whatsapp.driver import WaChatMessage, WhatsAppDriver
from service.platforms.whatsapp import render
from service.table import lobby
from service.table.room import KEY_BITS
from tests.emulator.test_web import CHROMIUM, NEEDS_CHROMIUM, VIEWPORTS, browser, page_at  # noqa: F401  (a fixture)
from tests.emulator.whatsapp.conftest import ABUELA, Graph, buttons, listing, text
from tests.service.inproc import Hook, running_service
from tests.service.whatsapp.play import choices, is_final, pick

pytestmark = NEEDS_CHROMIUM
if CHROMIUM.exists():
    from playwright.sync_api import Browser, Locator, Page, expect

USER = "Abuela"
DAY = 24 * 3600
GAME_KEY = 11  # Burro español against one bot: 23 moves


@pytest.fixture(params=sorted(VIEWPORTS))
def page(request: pytest.FixtureRequest, browser: Browser) -> Iterator[Page]:  # noqa: F811
    with page_at(browser, request.param) as opened:
        yield opened


@pytest.fixture
def hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Hook]:
    """The product in this process, its games all dealt from one key: the same game
    every run, one that ends in some 25 steps (any game would do, but a long one takes
    a minute at both widths)."""
    key = GAME_KEY | (1 << (KEY_BITS - 1))  # as new_game_key makes them
    monkeypatch.setattr(lobby, "new_game_key", lambda: key)
    with running_service(tmp_path, whatsapp_pair_rate=0.0, game_target=2) as running:
        yield running


# ----- the page ----------------------------------------------------------------------


def open_whatsapp(page: Page, url: str, user: str) -> None:
    """The web chat, then `user` chosen in the user picker (a WhatsApp one)."""
    page.goto(f"{url}/")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("body")).to_have_attribute("data-wa-live", "true")
    tab = page.locator(f'#users .user-tab[data-wa="true"][data-user="{user}"]')
    expect(tab.locator(".wa-badge")).to_have_text("WA")
    tab.click()
    expect(tab).to_have_attribute("aria-selected", "true")
    expect(page.locator("#wa-chat")).to_be_visible()
    expect(page.locator("#chat")).to_be_hidden()
    expect(page.locator("#wa-title")).to_contain_text("Burro")


def shown(page: Page, message: WaChatMessage | str) -> Locator:
    wamid = message.id if isinstance(message, WaChatMessage) else message
    return page.locator(f".wa-msg[data-wamid={json.dumps(wamid)}]")


def choice(page: Page, message: WaChatMessage, ident: str) -> Locator:
    """What the page offers to tap for one of the message's choices: a reply button, or
    the list's opening button."""
    if message.buttons:
        return shown(page, message).locator(f".wa-reply[data-id={json.dumps(ident)}]")
    return shown(page, message).locator(".wa-list-open")


def act(page: Page, message: WaChatMessage, ident: str) -> None:
    """Tap the reply button, or open the list and choose the row, with this id."""
    choice(page, message, ident).click()
    if message.buttons:
        return
    sheet = page.locator("#wa-sheet-backdrop")
    expect(sheet).to_have_attribute("data-wamid", message.id)  # open, for that message
    sheet.locator(f".wa-row[data-id={json.dumps(ident)}]").click()
    expect(sheet).to_be_hidden()


def ident_of(message: WaChatMessage, title: str) -> str:
    return next(i for i, t in choices(message) if t == title)


def check_prompt(page: Page, message: WaChatMessage) -> None:
    """The page shows the message with what it offers."""
    found = shown(page, message)
    line = message.text.splitlines()[0]  # its longest stretch WhatsApp cannot format
    expect(found.locator(".wa-text")).to_contain_text(
        max(re.split(r"[*_~`]", line), key=len).strip()
    )
    if message.buttons:
        expect(found.locator(".wa-reply")).to_have_count(len(message.buttons))
        expect(found.locator(".wa-reply").last).to_be_visible()
    else:
        expect(found.locator(".wa-list-open")).to_have_text(f"☰ {message.list_button}")
        expect(found.locator(".wa-list-open")).to_be_visible()


def check_fits(page: Page) -> None:
    """Nothing sticks out of the screen sideways (but inside a strip that scrolls), no
    bubble or button is wider than its text allows, and the page does not scroll."""
    found: dict[str, Any] = page.evaluate(
        """() => {
            const width = window.innerWidth;
            const clipped = (el) => {
                for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
                    if (getComputedStyle(p).overflowX !== 'visible') return true;
                }
                return false;
            };
            const out = [];
            for (const el of document.body.querySelectorAll('*')) {
                const box = el.getBoundingClientRect();
                if (!box.width || !box.height) continue;
                if ((box.left < -1 || box.right > width + 1) && !clipped(el)) {
                    out.push(`${el.tagName}#${el.id}.${el.className}: ${box.left}..${box.right}`);
                }
            }
            const cut = [...document.querySelectorAll(
                '.wa-bubble, .wa-reply, .wa-list-open, .wa-row, #wa-messages')]
                .filter((el) => el.scrollWidth > el.clientWidth + 1)
                .map((el) => el.textContent.slice(0, 40));
            return {scroll: document.documentElement.scrollWidth, width, out, cut};
        }"""
    )
    assert found["scroll"] <= found["width"], f"the page scrolls sideways: {found}"
    assert found["out"] == [] and found["cut"] == [], found


def played_cards(message: WaChatMessage) -> list[str]:
    """The choices of a prompt that play a card (not one that opens a suit's cards)."""
    return [i for i, _ in choices(message) if (".p" in i or ".c" in i) and not i.startswith("pick")]


# ----- a game to its end, through the page ---------------------------------------------


class Chat:
    """A user's chat as the emulator has it, read by what changed since the last look
    (`since`): a long game's whole chat, read every few milliseconds, is most of what
    waiting would cost."""

    def __init__(self, wa: WhatsAppDriver, user: str) -> None:
        self.wa, self.user = wa, user
        self.rev = 0
        self.found: dict[str, WaChatMessage] = {}

    def messages(self) -> list[WaChatMessage]:
        for message in self.wa.messages(self.user, since=self.rev):
            self.found[message.id] = message
            self.rev = max(self.rev, message.rev)
        return sorted(self.found.values(), key=lambda m: m.seq)

    def wait(self, what: str, match: Callable[[WaChatMessage], bool], after: int) -> WaChatMessage:
        """The newest message from the business after seq `after`, once one matches."""

        def check() -> WaChatMessage | None:
            shown = [m for m in self.messages() if m.direction == "out" and m.visible]
            return next((m for m in reversed(shown) if m.seq > after and match(m)), None)

        return self.wa.wait_for(check, timeout=20, what=what)

    def newest_prompt(self, after: int) -> WaChatMessage:
        """The newest message that asks something, once it came after seq `after`."""

        def check() -> WaChatMessage | None:
            prompts = [m for m in self.messages() if m.direction == "out" and choices(m)]
            return prompts[-1] if prompts and prompts[-1].seq > after else None

        return self.wa.wait_for(check, timeout=20, what=f"{self.user}'s next prompt")


@pytest.fixture
def pages(browser: Browser) -> Iterator[dict[str, Page]]:  # noqa: F811
    """A desktop's page and a phone's, side by side."""
    contexts = {
        name: browser.new_context(viewport={"width": width, "height": height})
        for name, (width, height) in VIEWPORTS.items()
    }
    errors: list[str] = []
    opened = {}
    for name, context in contexts.items():
        opened[name] = context.new_page()
        opened[name].set_default_timeout(10_000)
        opened[name].on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    for context in contexts.values():
        context.close()
    assert errors == [], f"the page's script failed: {errors}"


def test_a_game_against_the_bot_through_the_page(
    hook: Hook, pages: dict[str, Page], tmp_path: Path
) -> None:
    """One game, Abuela's chat open at both widths at once: each step is taken in one
    page (in turn), and both show what comes of it (the other by its event stream)."""
    wa, chat = hook.emu.whatsapp, Chat(hook.emu.whatsapp, USER)
    phone, desktop = pages["phone"], pages["desktop"]
    turns = [phone, desktop]
    for page in turns:
        open_whatsapp(page, hook.emu.url, USER)

    phone.locator("#wa-input").fill("ayuda")
    phone.locator("#wa-input").press("Enter")
    for page in turns:
        expect(page.locator(".wa-msg.mine", has_text="ayuda")).to_be_visible()
    welcome = chat.wait("the welcome", lambda m: "🎲 Nueva partida" in m.button_titles, 0)
    for page in turns:
        check_prompt(page, welcome)
        expect(shown(page, welcome)).to_have_attribute("data-status", "read")  # the chat is open
        expect(shown(page, welcome).locator(".wa-ticks.read")).to_have_text("✓✓")

    # A game set up first (a greeting deals one against three bots at once: longer)
    desktop.locator("#wa-input").fill("ajustes")
    desktop.locator("#wa-input").press("Enter")
    table = chat.wait("the lobby", lambda m: "▶️ Empezar" in m.row_titles, welcome.seq)
    for page in turns:
        check_prompt(page, table)
    act(phone, table, ident_of(table, "▶️ Empezar"))

    steps, moves, seen = 0, 0, table.seq
    old: WaChatMessage | None = None  # a prompt of an earlier turn
    stale_tapped = False
    while True:
        prompt = chat.newest_prompt(seen)
        page, other = turns[steps % 2], turns[(steps + 1) % 2]
        check_prompt(page, prompt)  # the one to act in; the other shows it too
        expect(choice(other, prompt, choices(prompt)[0][0])).to_be_visible()
        check_fits(phone)
        if old is not None:
            first = choice(page, old, choices(old)[0][0])
            expect(first).to_be_visible()
            expect(first).to_be_enabled()
        if is_final(prompt):
            break
        steps += 1
        if old is None and played_cards(prompt):
            old = prompt
        elif old is not None and moves >= 2 and not stale_tapped:
            stale_tapped = True
            act(page, old, played_cards(old)[0])
            said = chat.wait(
                "the stale tap's answer", lambda m: "turno anterior" in m.text, prompt.seq
            )
            for either in turns:
                expect(shown(either, said)).to_contain_text("turno anterior")
            seen = prompt.seq - 1  # the prompt stands (or comes again, newer)
            continue
        seen = prompt.seq
        picked = pick(prompt)
        act(page, prompt, picked)
        if render.pick_of(picked) is None:
            moves += 1
    assert moves > 3 and stale_tapped
    for name, page in pages.items():
        expect(choice(page, prompt, choices(prompt)[0][0])).to_contain_text("🔁")
        page.screenshot(path=str(tmp_path / f"whatsapp-game-{name}.png"))

    # The clock control: a day on, and the window closed.
    for page in turns:
        expect(page.locator(f'#wa-windows li[data-user="{USER}"]')).to_have_attribute(
            "data-window", "open"
        )
        expect(page.locator("#wa-subtitle")).to_have_attribute("data-window", "open")
    before = wa.now()
    shown_before = int(phone.locator("#wa-now").get_attribute("data-now") or 0)
    phone.locator("#wa-day").click()
    wa.wait_for(lambda: wa.now() >= before + DAY, what="the emulator's clock a day on")
    assert wa.now() < before + DAY + 60
    for page in turns:  # the other page by the stream's clock event
        page.wait_for_function(
            "(t) => Number(document.querySelector('#wa-now').dataset.now) >= t",
            arg=shown_before + DAY,
        )
        expect(page.locator(f'#wa-windows li[data-user="{USER}"]')).to_have_attribute(
            "data-window", "closed"
        )
        expect(page.locator("#wa-subtitle")).to_have_attribute("data-window", "closed")
    assert hook.worker is not None
    hook.worker.check()


# ----- what the business sends, as the page shows it ------------------------------------


def template(wa: WhatsAppDriver, graph: Graph) -> str:
    """A template with a quick reply, sent to Abuela; its wamid."""
    status, answer = graph.post(
        "200000000000001/message_templates",
        {
            "name": "turno_pendiente",
            "language": "es",
            "category": "UTILITY",
            "components": [
                {
                    "type": "BODY",
                    "text": "Hola {{1}}, te toca en la mesa.",
                    "example": {"body_text": [["Abuela"]]},
                },
                {"type": "FOOTER", "text": "Burro"},
                {"type": "BUTTONS", "buttons": [{"type": "QUICK_REPLY", "text": "Jugar"}]},
            ],
        },
    )
    assert status == 200, answer
    wa.wait_for(lambda: any(t["status"] == "APPROVED" for t in wa.templates()), what="approval")
    return graph.ok(
        {
            "type": "template",
            "template": {
                "name": "turno_pendiente",
                "language": {"code": "es"},
                "components": [
                    {"type": "body", "parameters": [{"type": "text", "text": "Abuela"}]},
                    {
                        "type": "button",
                        "sub_type": "quick_reply",
                        "index": "0",
                        "parameters": [{"type": "payload", "payload": "play-now"}],
                    },
                ],
            },
        }
    )


def sectioned_list() -> dict[str, Any]:
    found = listing("Elige una carta", "Sota de copas", "7 de oros", button="Cartas")
    interactive = found["interactive"]
    interactive["header"] = {"type": "text", "text": "Mano 1"}
    interactive["footer"] = {"text": "Burro español"}
    interactive["action"]["sections"] = [
        {
            "title": "Copas",
            "rows": [{"id": "r0", "title": "Sota de copas", "description": "vale 2"}],
        },
        {"title": "Oros", "rows": [{"id": "r1", "title": "7 de oros", "description": "vale 7"}]},
    ]
    return found


def test_what_the_business_sends_as_the_page_shows_it(
    emu: RunningEmulator, page: Page, tmp_path: Path
) -> None:
    wa = emu.whatsapp
    graph = Graph(emu.url)
    try:
        wa.send(USER, "hola")
        greeting = graph.ok(text("*Hola* _Abuela_, ~nada~ aquí"))
        asked = graph.ok(buttons("¿Jugamos?", "Sí", "No"))
        listed = graph.ok(sectioned_list())
        invited = template(wa, graph)
        graph.ok({"type": "reaction", "reaction": {"message_id": greeting, "emoji": "👍"}})
        open_whatsapp(page, emu.url, USER)
        for wamid in (greeting, asked, listed, invited):
            expect(shown(page, wamid)).to_have_attribute("data-status", "read")
        expect(shown(page, greeting).locator(".wa-text b")).to_have_text("Hola")
        expect(shown(page, greeting).locator(".wa-text i")).to_have_text("Abuela")
        expect(shown(page, greeting).locator(".wa-reaction")).to_have_text("👍")

        # the template: its body filled in, its footer, its quick reply
        card = shown(page, invited)
        expect(card.locator(".wa-tag")).to_contain_text("turno_pendiente")
        expect(card.locator(".wa-text")).to_have_text("Hola Abuela, te toca en la mesa.")
        expect(card.locator(".wa-foot")).to_have_text("Burro")
        card.get_by_role("button", name="Jugar").click()
        expect(page.locator(".wa-msg.mine", has_text="Jugar")).to_be_visible()
        wa.wait_for(
            lambda: any(
                m.raw["content"].get("button", {}).get("payload") == "play-now"
                for m in wa.messages(USER)
                if m.direction == "in"
            ),
            what="the quick reply's payload",
        )

        # the list: header, footer, sections with titles, rows with descriptions
        listing_shown = shown(page, listed)
        expect(listing_shown.locator(".wa-head")).to_have_text("Mano 1")
        expect(listing_shown.locator(".wa-foot")).to_have_text("Burro español")
        listing_shown.locator(".wa-list-open").click()
        sheet = page.locator("#wa-sheet")
        expect(sheet.locator(".wa-section")).to_have_text(["Copas", "Oros"])
        expect(sheet.locator('.wa-row[data-id="r1"] .description')).to_have_text("vale 7")
        page.screenshot(path=str(tmp_path / "whatsapp-sheet.png"))
        sheet.locator('.wa-row[data-id="r1"]').click()
        expect(page.locator("#wa-sheet-backdrop")).to_be_hidden()
        expect(page.locator(".wa-msg.mine", has_text="7 de oros")).to_be_visible()

        # an old message's buttons still tap
        shown(page, asked).get_by_role("button", name="No").click()
        expect(page.locator(".wa-msg.mine .wa-text", has_text="No")).to_have_count(1)

        # offline: a message waits, sent (✓); back online it is delivered and read
        page.locator("#wa-online").click()
        expect(page.locator("#wa-online")).to_have_text("○ offline")
        expect(page.locator("#wa-input")).to_be_disabled()
        waiting = graph.ok(text("¿Sigues ahí?"))
        expect(shown(page, waiting)).to_have_attribute("data-status", "sent")
        expect(shown(page, waiting).locator(".wa-ticks")).to_have_text("✓")
        expect(shown(page, waiting)).to_have_class("wa-msg theirs undelivered")
        page.locator("#wa-online").click()
        expect(shown(page, waiting)).to_have_attribute("data-status", "read")

        # a day on: a free-form message fails, 131047, its code shown on the tick
        page.locator("#wa-day").click()
        expect(page.locator("#wa-subtitle")).to_have_attribute("data-window", "closed")
        late = graph.ok(text("¿Otra partida?"))
        failed = shown(page, late)
        expect(failed).to_have_attribute("data-status", "failed")
        expect(failed.locator(".wa-ticks.failed")).to_have_attribute("data-codes", "131047")
        expect(failed.locator(".wa-ticks.failed")).to_have_attribute(
            "title",
            "failed: 131047 Re-engagement message: "
            + wa.message(late).errors[0]["error_data"]["details"],
        )
        failed.locator(".wa-ticks.failed").click()
        expect(page.locator("#toast")).to_contain_text("131047")
        expect(page.locator(".wa-day").last).to_have_text("Today")
        if page.viewport_size is not None and page.viewport_size["width"] <= 400:
            check_fits(page)
        page.screenshot(path=str(tmp_path / "whatsapp-statuses.png"))
    finally:
        graph.close()


def test_the_telegram_users_are_there_still(emu: RunningEmulator, page: Page) -> None:
    """Back from a WhatsApp user to a Telegram one: the Telegram chat, as before."""
    page.goto(f"{emu.url}/?wa={USER}")
    expect(page.locator("body")).to_have_attribute("data-ready", "true")
    expect(page.locator("#wa-chat")).to_be_visible()
    page.locator('#users .user-tab[data-user="Ana"]').click()
    expect(page.locator("#chat")).to_be_visible()
    expect(page.locator("#wa-chat")).to_be_hidden()
    expect(page.locator('#users .user-tab[data-user="Ana"]')).to_have_attribute(
        "aria-selected", "true"
    )
    expect(page.locator('#users .user-tab[data-user="Abuela"]')).to_have_attribute(
        "aria-selected", "false"
    )
    assert ABUELA in str(
        page.locator('#users .user-tab[data-user="Abuela"]').get_attribute("title")
    )
