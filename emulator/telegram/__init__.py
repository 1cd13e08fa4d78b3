"""The local Telegram: the Bot API (`/bot<token>/<method>`, file downloads), the world
of users, bots, chats and messages, what users do, webhook delivery, Telegram's checks
and parse modes, flood limits, the control API under `/_emulator/` and its driver.

See emulator/README.md.
"""
