"""/privacy: what is kept and for how long; /forget: in a private chat, with a confirm
button, forget the person (service.table.privacy)."""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import ContextTypes

from service.i18n import Translator, _
from service.infra.forget import forget
from service.platforms.telegram import notices
from service.platforms.telegram.commands import reply, translator
from service.platforms.telegram.reply import answer_press
from service.services import Services
from service.table import privacy

YES, NO = "forget:yes", "forget:no"


async def privacy_command(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services
) -> None:
    await reply(update, privacy.notice(svc.settings, translator(svc, update)))


async def forget_command(update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services) -> None:
    tr = translator(svc, update)
    chat = update.effective_chat
    if chat is None or chat.type != "private":
        await reply(update, tr.gettext(_("Send /forget to me in a private chat.")))
        return
    buttons = [
        InlineKeyboardButton(tr.gettext(_("🗑 Yes, forget me")), callback_data=YES),
        InlineKeyboardButton(tr.gettext(_("No, keep it")), callback_data=NO),
    ]
    question = _(
        "Delete your settings and statistics, and take your name out of every game I keep? "
        "In games still running, a bot takes your seat. This cannot be undone."
    )
    await reply(update, tr.gettext(question), reply_markup=InlineKeyboardMarkup([buttons]))


async def on_forget_button(
    update: Update, context: ContextTypes.DEFAULT_TYPE, svc: Services
) -> None:
    """A press on /forget's buttons (only the person can press them: their own chat)."""
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    tr = Translator(svc.user_lang(user.id, user.language_code))  # read before it goes
    if query.data != YES:
        await answer_press(query, tr.gettext(_("Nothing was deleted.")))
        return
    forget(svc.store, user.id, svc.now())
    notices.drop_chat(svc.store.redis, user.id)  # replies still waiting for their chat
    done = tr.gettext(_("Done: I have forgotten you. Send /start if you come back."))
    await answer_press(query, done, show_alert=True)
    if query.message is not None:
        await query.edit_message_text(done)
