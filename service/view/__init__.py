"""The web view of a table (#39): who may open it (`access`, with `ed25519` for
Telegram's signature); service.infra.view_links wires the checks to the settings. The
page (`page`: page.html, page.css, page.js), its words (`texts`) and its live updates
(`live`); service.view_routes serves them in `burro serve`."""
