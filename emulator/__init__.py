"""A local stand-in for Telegram and WhatsApp: a Bot API emulator (`telegram/`) and a
WhatsApp Cloud API emulator (`whatsapp/`) on one server, over the parts both use
(`common/`), with a web chat.

The real python-telegram-bot talks to it over HTTP as it talks to Telegram, the service's
WhatsApp adapter as it talks to Meta; people play through its web page; tests drive it
through `EmulatorDriver` (and its `.whatsapp`, a `WhatsAppDriver`).
"""

from emulator.app import Emulator, create_app
from emulator.common.server import ServerThread
from emulator.config import FAMILY, Cast, EmulatorConfig, GroupSpec, UserSpec, fast_config
from emulator.server import RunningEmulator, running_emulator, serve
from emulator.telegram.driver import (
    Button,
    CallbackAnswer,
    ChatMessage,
    EmulatorDriver,
    EmulatorError,
    InlineAnswer,
    InlineResult,
    TapResult,
)
from emulator.telegram.limits import FloodLimits, Rate, Window

__all__ = [
    "FAMILY",
    "Button",
    "CallbackAnswer",
    "Cast",
    "ChatMessage",
    "Emulator",
    "EmulatorConfig",
    "EmulatorDriver",
    "EmulatorError",
    "FloodLimits",
    "GroupSpec",
    "InlineAnswer",
    "InlineResult",
    "Rate",
    "RunningEmulator",
    "ServerThread",
    "TapResult",
    "UserSpec",
    "Window",
    "create_app",
    "fast_config",
    "running_emulator",
    "serve",
]
