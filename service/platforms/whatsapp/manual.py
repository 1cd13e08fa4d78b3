"""WhatsApp's words for the desk (service.desk.ports.Manual): the welcome and the
answers that name the words a person may write."""

from __future__ import annotations

from service.desk.asks import Choice, Line
from service.i18n import Translator, _
from service.table import zones

WELCOME = _(
    "🫏 Hi! I run games of Burro, the donkey card game.\n"
    "• New game (or just say hi): you against three bots, here, at once.\n"
    "• Family table: a table for your family, with a link to share.\n"
    "• 'settings': a game against bots that you set up first.\n"
    "• Type your moves or tap them; 'rules' explains the game."
)


GREETING = _(
    "🫏 Hi! I run games of Burro, the donkey card game: get rid of your cards by "
    "following the suit led; the last one left holding cards is the burro.\n"
    "Your cards come here, in this chat: tap them, or type them. Write 'hi' any time "
    "to come back to your game."
)
# TRANSLATORS: 'hour' is the word a person writes to set their time zone (one of
# service/platforms/whatsapp/words.py: hora, horario, jam ...)
ZONE = _("🕒 I show times in {zone} time: write 'hour' and your city if yours differs.")


class WhatsAppManual:
    """The texts that name WhatsApp's words (service.platforms.whatsapp.words)."""

    chatter_cooldown = 0  # a person who writes is answered: their chat is with us alone

    def greeting(self, tr: Translator, zone: str) -> str:
        # WhatsApp tells no time zone: the one guessed from the person's number is said
        return "\n".join([tr.gettext(GREETING), tr.gettext(ZONE, zone=zones.label(zone))])

    def welcome(self, tr: Translator) -> Line:
        choices = (
            Choice(tr.gettext(_("🎲 New game")), ask="cmd:play"),
            Choice(tr.gettext(_("👪 Family table")), ask="cmd:family"),
            Choice(tr.gettext(_("🌐 Language")), ask="cmd:language"),
        )
        return Line(tr.gettext(WELCOME), (choices,))

    def help(self, tr: Translator, games: str) -> Line:
        welcome = self.welcome(tr)
        privacy = tr.gettext(_("'privacy': what I keep about you; 'forget': delete it."))
        # TRANSLATORS: 'story' is the word that asks for it (service/platforms/whatsapp/
        # words.py: historia, story, cerita)
        story = tr.gettext(_("'story': every move of the hand, where a screen folds them."))
        # TRANSLATORS: 'tip' is the word that asks for it (words.py: pista, dica, saran)
        tip = tr.gettext(_("'tip': a tip for your move, at a table that gives them."))
        return Line(f"{welcome.text}\n{story}\n{tip}\n{privacy}", welcome.choices)

    def chatter(self, tr: Translator, playing: bool) -> Line:
        if playing:
            return Line(
                tr.gettext(_("🫏 Tap a button, or type your move (a card such as '7 oros')."))
            )
        return self.welcome(tr)

    app = "WhatsApp"

    def forget_word(self, tr: Translator) -> str:
        # TRANSLATORS: the word a person writes on WhatsApp to be forgotten, quoted as
        # the welcome quotes words. It must be one of the words of
        # service/platforms/whatsapp/words.py that mean "forget" (olvidar, esquecer,
        # lupakan ...), written as people type it.
        return tr.gettext(_("'forget'"))

    def kept(self, tr: Translator) -> str:
        # people.py: the BSUID and the phone lead to the person (wa:id:*) and sit in
        # their record, for as long as it is kept
        ids = tr.gettext(
            _(
                "• The id WhatsApp gives me for you and, when WhatsApp shares it, your "
                "phone number: to know you when you write, kept as long as the above."
            )
        )
        # people.py: `zone`, first their number's country's (service.table.zones)
        zone = _(
            "• Your time zone (your number's country's, or the one you named): to show "
            "you times, kept as long as the above."
        )
        # view_link.py and service.infra.view_links: `view_offered:<table>` fields and
        # `view_key`, both in their record
        view = _(
            "• A random key your links to a table's picture are signed with, and which "
            "tables I sent you such a link for: kept as long as the above."
        )
        return f"{ids}\n{tr.gettext(zone)}\n{tr.gettext(view)}"

    def where_forget(self, tr: Translator) -> str:
        return tr.gettext(_("Write {forget} to me in our own chat."), forget=self.forget_word(tr))

    def forgotten(self, tr: Translator) -> str:
        # a person forgotten who writes again is a new player, nothing to open first
        return tr.gettext(_("Done: I have forgotten you. If you write to me again, we start anew."))
