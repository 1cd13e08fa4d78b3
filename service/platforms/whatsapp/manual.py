"""WhatsApp's words for the desk (service.desk.ports.Manual): the welcome and the
answers that name the words a person may write."""

from __future__ import annotations

from service.desk.asks import Choice, Line
from service.i18n import Translator, _

WELCOME = _(
    "🫏 Hi! I run games of Burro, the donkey card game.\n"
    "• New game (or just say hi): you against three bots, here, at once.\n"
    "• Family table: a table for your family, with a link to share.\n"
    "• 'settings': a game against bots that you set up first.\n"
    "• Type your moves or tap them; 'rules' explains the game."
)


class WhatsAppManual:
    """The texts that name WhatsApp's words (service.platforms.whatsapp.words)."""

    chatter_cooldown = 0  # a person who writes is answered: their chat is with us alone

    def welcome(self, tr: Translator) -> Line:
        choices = (
            Choice(tr.gettext(_("🎲 New game")), ask="cmd:new"),
            Choice(tr.gettext(_("👪 Family table")), ask="cmd:family"),
            Choice(tr.gettext(_("🌐 Language")), ask="cmd:language"),
        )
        return Line(tr.gettext(WELCOME), (choices,))

    def help(self, tr: Translator, games: str) -> Line:
        return self.welcome(tr)

    def chatter(self, tr: Translator, playing: bool) -> Line:
        if playing:
            return Line(
                tr.gettext(_("🫏 Tap a button, or type your move (a card such as '7 oros')."))
            )
        return self.welcome(tr)

    def where_forget(self, tr: Translator) -> str:
        return tr.gettext(_("Send /forget to me in a private chat."))
