"""The Telegram adapter: Telegram updates in, screens out as Bot API calls."""
