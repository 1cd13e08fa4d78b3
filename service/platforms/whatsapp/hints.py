"""A one-time hint under a person's first prompt: how to play with family.

A greeting starts a game against bots at once, so nothing else tells a newcomer that a
family's table exists. The hint comes once per person, as the footer of the first
prompt after they started a game (an interactive message's footer: at most 60
characters, cloud-api/reference/messages#interactive-object); that it is due, then
shown, is kept in their `user:<id>` hash, as long as we keep the person.
"""

from __future__ import annotations

from typing import Any

import redis

from service.i18n import Translator, _
from service.infra import trips
from service.platforms.whatsapp import window
from service.platforms.whatsapp.render import short

FOOTER = 60  # Meta's limit on an interactive message's footer
HINT = _("👪 With family? Write 'family' to open a table.")
# Take the hint if it is due: it is then shown, never again.
_TAKE = """
if redis.call('HGET', KEYS[1], 'hint') == 'due' then
  redis.call('HSET', KEYS[1], 'hint', 'shown')
  return 1
end
return 0
"""


def offer(client: redis.Redis, player: int) -> None:
    """Make the hint due on the person's next prompt, if they never had it."""
    client.hsetnx(window.user_key(player), "hint", "due")


def with_hint(
    client: redis.Redis, player: int, lang: str, content: dict[str, Any]
) -> dict[str, Any]:
    """The message with the hint as its footer if it is due and the message can carry
    one (an interactive message without a footer); the hint is then taken."""
    interactive = content.get("interactive")
    if content.get("type") != "interactive" or not interactive or "footer" in interactive:
        return content
    if not trips.evaluate(client, _TAKE, [window.user_key(player)]):
        return content
    footer = {"text": short(Translator(lang).gettext(HINT), FOOTER)}
    return content | {"interactive": interactive | {"footer": footer}}
