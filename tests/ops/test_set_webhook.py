"""`burro set-webhook` against the local Telegram: the URL, secret, allowed updates and
max connections arrive as Telegram would keep them; the registered webhook then really
delivers to `serve`; missing settings and refusals are clear errors."""

from __future__ import annotations

import pytest

from cli import set_webhook
from cli.main import main
from cli.stack import SECRET, TOKEN, Stack
from emulator.server import RunningEmulator

ALLOWED = [
    "message",
    "callback_query",
    "inline_query",
    "chosen_inline_result",
    "my_chat_member",
    "widget_query",
]


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, emu: RunningEmulator) -> pytest.MonkeyPatch:
    monkeypatch.setenv("BURRO_TELEGRAM_TOKEN", TOKEN)
    monkeypatch.setenv("BURRO_WEBHOOK_SECRET", SECRET)
    monkeypatch.setenv("BURRO_TELEGRAM_API_URL", emu.api_url)
    monkeypatch.delenv("BURRO_PUBLIC_URL", raising=False)
    monkeypatch.delenv("BURRO_WEBHOOK_MAX_CONNECTIONS", raising=False)
    return monkeypatch


def secret_of(emu: RunningEmulator) -> str | None:
    webhook = emu.emulator.world.find_bot(None).webhook
    return webhook.secret_token if webhook else None


def test_sets_url_secret_allowed_updates_and_connections(
    emu: RunningEmulator, env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env.setenv("BURRO_PUBLIC_URL", "https://burro.example.org/")
    env.setenv("BURRO_WEBHOOK_MAX_CONNECTIONS", "25")
    assert main(["set-webhook"]) == 0
    info = emu.webhook_info()
    assert info["url"] == "https://burro.example.org/telegram/webhook"
    assert info["allowed_updates"] == ALLOWED
    assert info["max_connections"] == 25
    assert secret_of(emu) == SECRET
    printed = capsys.readouterr().out
    assert "burro.example.org/telegram/webhook" in printed and SECRET not in printed
    assert TOKEN not in printed


def test_flags_override_the_settings(emu: RunningEmulator, env: pytest.MonkeyPatch) -> None:
    env.setenv("BURRO_PUBLIC_URL", "https://ignored.example.org")
    assert main(["set-webhook", "--public-url", "https://other.example.org:8443",
                 "--max-connections", "100"]) == 0  # fmt: skip
    info = emu.webhook_info()
    assert info["url"] == "https://other.example.org:8443/telegram/webhook"
    assert info["max_connections"] == 100


def test_delete(emu: RunningEmulator, env: pytest.MonkeyPatch) -> None:
    assert main(["set-webhook", "--public-url", "https://burro.example.org"]) == 0
    assert main(["set-webhook", "--delete"]) == 0
    assert emu.webhook_info()["url"] == ""


def test_missing_settings_are_named(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env.delenv("BURRO_WEBHOOK_SECRET")
    env.setenv("BURRO_WEBHOOK_SECRET", "")
    assert main(["set-webhook"]) == 2
    error = capsys.readouterr().err
    assert "BURRO_WEBHOOK_SECRET" in error and "BURRO_PUBLIC_URL" in error
    assert main(["set-webhook", "--public-url", "https://x.example.org",
                 "--max-connections", "101"]) == 2  # fmt: skip


def test_a_refusal_is_reported_without_the_token(
    env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["set-webhook", "--public-url", "ftp://burro.example.org"]) == 1
    error = capsys.readouterr().err
    assert "refused" in error and "HTTPS URL" in error and TOKEN not in error
    env.setenv("BURRO_TELEGRAM_API_URL", "http://127.0.0.1:9")  # nobody listens there
    assert main(["set-webhook", "--public-url", "https://burro.example.org"]) == 1
    error = capsys.readouterr().err
    assert "no answer" in error and TOKEN.split(":")[1] not in error


def test_webhook_url_keeps_a_full_address() -> None:
    assert set_webhook.webhook_url("https://a.org/telegram/webhook") == (
        "https://a.org/telegram/webhook"
    )
    assert set_webhook.webhook_url("https://a.org/base/") == "https://a.org/base/telegram/webhook"


def test_the_registered_webhook_reaches_serve(
    emu: RunningEmulator, stack: Stack, env: pytest.MonkeyPatch
) -> None:
    """Set by the command (not by the test stack), the webhook delivers updates that
    serve accepts: the secret matches, and the bot answers."""
    assert main(["set-webhook", "--public-url", stack.serve_url]) == 0
    since = emu.last_seq()
    emu.send_message("Ana", "Ana", "/help")
    emu.wait_for(
        lambda: any(d["status"] == 200 for d in emu.deliveries(since=since)) or None,
        what="an update delivered and accepted",
    )
    assert emu.wait_for_call("sendMessage", since=since)["ok"]
