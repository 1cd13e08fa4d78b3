"""The Telegram adapter: Telegram updates in, screens out as Bot API calls.

Named `tg` so that it never shadows python-telegram-bot's `telegram` package.
"""
