"""One request being handled: the person as a player, their language, the rooms they
play in, and the small ways every use case answers them."""

from __future__ import annotations

from functools import cached_property

from service.desk import prompts
from service.desk.asks import Reply, Request, UnknownAsk
from service.desk.ports import Forgetting, Links, Manual, no_traces
from service.i18n import Translator, _
from service.services import Services
from service.table.lobby import Actor
from service.table.outcome import Outcome, Popup
from service.table.room import Room


class Use:
    """What a use case works with: the services (their store the request's own view,
    Store.session), the platform's words and links, the request, and the person asking
    as an `Actor`."""

    def __init__(
        self,
        svc: Services,
        manual: Manual,
        links: Links,
        request: Request,
        on_forget: Forgetting = no_traces,
    ) -> None:
        self.svc, self.manual, self.links, self.request = svc, manual, links, request
        self.store, self.on_forget = svc.store, on_forget

    @property
    def reachable(self) -> bool:
        """Whether we may write to the person in their private chat: they opened it (a
        WhatsApp person has, by writing)."""
        return bool(self.store.user(self.player).get("started"))

    @cached_property
    def actor(self) -> Actor:
        sender = self.request.sender
        lang = self.svc.user_lang(sender.player, sender.lang_hint)
        return Actor(sender.player, sender.name, lang, platform=sender.platform)

    @property
    def player(self) -> int:
        return self.request.sender.player

    @property
    def tr(self) -> Translator:
        return Translator(self.actor.lang)

    async def as_admin(self, room: Room) -> Actor:
        """The actor, with whether they administer the room's chat (asked only now)."""
        actor = self.actor
        admin = await self.request.is_admin(room, actor.user_id)
        return Actor(actor.user_id, actor.name, actor.lang, admin, actor.platform)

    # ----- rooms ---------------------------------------------------------------------

    def room_here(self) -> Room | None:
        """The room open where the request came from (a group's, or a private chat's)."""
        place = self.request.place
        if place.chat is None:
            return None
        return self.store.room_in_chat(place.chat, place.topic)

    def active_room(self) -> Room | None:
        """The person's open game: their own chat's, else the latest table they sit at."""
        return prompts.active_room(self.svc, self.player)

    # ----- answers -------------------------------------------------------------------

    def text(self, message: str, **values: object) -> str:
        return self.tr.gettext(message, **values)

    def say(self, message: str, **values: object) -> Reply:
        """A line to the sender's place."""
        return Reply.say(self.text(message, **values))

    def popup(self, popup: Popup | None) -> Reply:
        """A press's answer: its popup (an alert, or a toast), or nothing."""
        if popup is None:
            return Reply()
        return Reply(popup=self.text(popup.message, **dict(popup.values)), alert=popup.alert)

    def told(self, outcome: Outcome) -> Reply:
        """A command's outcome said as a line (its popup), or nothing."""
        popup = outcome.popup
        return Reply() if popup is None else self.say(popup.message, **dict(popup.values))

    def unknown(self, ask: UnknownAsk) -> Reply:
        if ask.button:
            return Reply(popup=self.text(_("This button is not one of ours.")))
        return self.say(_("🫏 I read text and taps only: tap a button, or write 'help'."))
