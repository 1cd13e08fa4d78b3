"""A local WhatsApp Business Cloud API, beside the local Telegram and served by the same
app: the Graph endpoints a business calls, Meta's limits and errors, signed webhook
delivery, a cast of WhatsApp users, and a control API and driver for tests.

See emulator/whatsapp/README.md.
"""

from emulator.whatsapp.config import GRANDPARENTS, WaUserSpec, WhatsAppConfig, fast
from emulator.whatsapp.driver import WaButton, WaChatMessage, WaRow, WhatsAppDriver, WhatsAppError

__all__ = [
    "GRANDPARENTS",
    "WaButton",
    "WaChatMessage",
    "WaRow",
    "WaUserSpec",
    "WhatsAppConfig",
    "WhatsAppDriver",
    "WhatsAppError",
    "fast",
]
