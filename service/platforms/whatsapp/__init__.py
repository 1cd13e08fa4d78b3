"""WhatsApp (the Business Cloud API) as a chat platform of Burro.

WhatsApp has no groups a bot can play in and no messages that can be edited or
deleted, so each player plays in their own chat with the business: one prompt per
decision (what happened since, the table, their hand, the control sized to their legal
moves), taps and typed moves alike. Free-form messages go only within 24 hours of the
person's last message (`window`), a template outside it.

| module | holds |
| --- | --- |
| `people` | a WhatsApp person (business-scoped user id) as a Burro player id, their language |
| `graph` | the Graph API client (messages, templates) and Meta's error codes |
| `render` | a screen as a WhatsApp message: reply buttons, or a list (the smallest suits folded) |
| `words` | typed moves and commands, in every language |
| `window` | the 24-hour customer-service window and the pair-rate pacing |
| `delivery` | the outbox's `Platform`: send, pace, templates outside the window |
| `inbound` | what a message, a tap or a template's quick reply does (a greeting: a game at once) |
| `hints` | the one-time hint on playing with family, under a person's first prompt |
| `webhook` | `GET`/`POST /whatsapp/webhook`: the handshake, signatures, dedupe, order |
| `templates` | the utility templates, per language (`burro whatsapp templates`) |
"""
