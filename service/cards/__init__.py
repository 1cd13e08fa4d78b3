"""Card faces for both decks, as SVG drawn by code: `faces` (Python, for the web view and
files) and `widget` (the same drawing in JavaScript, for the Telegram widget). See
docs/card-faces.md."""
