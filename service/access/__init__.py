"""Who may open a table's view (#39; docs/mini-app.md): pure checks, no Redis, no clock.
`checks`: Telegram's signed Mini App launches and the links this server signs;
`ed25519`: Telegram's second signature. service.infra.view_links wires them to the
settings and to each person's link key; service.view serves the view."""
