"""Where a chat message and its buttons are in the web chat's page (Playwright locators)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from emulator.telegram.driver import ChatMessage

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


def message_in_page(page: Page, message: ChatMessage) -> Locator:
    key = message.ephemeral_message_id
    return page.locator(f'[data-message-id="{f"e{key}" if key else message.message_id}"]')


def button_in_page(page: Page, message: ChatMessage, data: str) -> Locator:
    """The message's callback button `data` as the page draws it: found only once the
    page shows that very button (a tap on an older drawing would be refused)."""
    return message_in_page(page, message).locator(f'.kb-btn[data-callback="{data}"]')
