"""The web view of a table (#39; docs/mini-app.md), one more front end of `burro serve`:
its routes (`routes`), the page (`page`: page.html, page.css, page.js), its words
(`texts`) and its live updates (`live`). Who may open it is `service.access`'s to say."""
