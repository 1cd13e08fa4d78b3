"""Telegram's words for the desk (service.desk.ports.Manual): the welcome, help and
answers that name its slash commands."""

from __future__ import annotations

from service.desk.asks import Line
from service.i18n import Translator, _

WELCOME = _(
    "🫏 Hi! I run games of Burro, the donkey card game.\n"
    "• In a group: add me and send /burro to open a table.\n"
    "• Here: send /play to play against bots.\n"
    "Your cards will appear here during group games. /help for more."
)
HELP = _(
    "🫏 Burro commands\n"
    "/burro [game] — open a table in a group\n"
    "/play [game] — play against bots here in private\n"
    "/rules [game] — the rules, short\n"
    "/stats — games, wins and burros\n"
    "/export [hand] — a finished hand to keep or share, as a file\n"
    "/cancel — end the open game (its creator or an admin)\n"
    "/language — choose your language"
)
CHATTER_COOLDOWN = 600  # seconds between two answers to plain private messages


GREETING = _(
    "🫏 Hi! I run games of Burro, the donkey card game: get rid of your cards by "
    "following the suit led; the last one left holding cards is the burro.\n"
    "Play here against bots, or with your family: add me to your group and send "
    "/burro there. Your cards for group games come to this chat; /start brings you "
    "back here."
)


class TelegramManual:
    """The texts that name Telegram's commands."""

    chatter_cooldown = CHATTER_COOLDOWN

    def greeting(self, tr: Translator, zone: str) -> str:
        return tr.gettext(GREETING)  # times: Telegram shows them in the reader's own zone

    def welcome(self, tr: Translator) -> Line:
        return Line(tr.gettext(WELCOME))

    def help(self, tr: Translator, games: str) -> Line:
        parts = [
            tr.gettext(HELP),
            tr.gettext(_("/look — your cards as pictures or as text")),
            tr.gettext(_("/privacy — what I keep about you; /forget — delete it")),
            "",
            tr.gettext(_("Games (the word to write after /burro, /play or /rules):")),
            games,
        ]
        return Line("\n".join(parts))

    def chatter(self, tr: Translator, playing: bool) -> Line:
        text = _("🫏 I understand commands only: send /play to play against bots, or /help.")
        return Line(tr.gettext(text))

    app = "Telegram"

    def forget_word(self, tr: Translator) -> str:
        return "/forget"

    def kept(self, tr: Translator) -> str:
        return tr.gettext(_("• Never your phone number: Telegram does not give it to me."))

    def where_forget(self, tr: Translator) -> str:
        return tr.gettext(_("Send /forget to me in a private chat."))

    def forgotten(self, tr: Translator) -> str:
        return tr.gettext(_("Done: I have forgotten you. Send /start if you come back."))
