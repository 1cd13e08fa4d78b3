"""Developer tools: `python -m tools.i18n` keeps the translation catalogs in step."""
