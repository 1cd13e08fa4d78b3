"""A person's choice of how their cards are shown (/look) is kept on their record, and
goes with it: /forget deletes it, and what we keep of the widgets in their chat."""

from __future__ import annotations

import fakeredis

from service.infra import keys
from service.infra.forget import forget
from service.infra.store import Store
from service.platforms.telegram import widgets


def test_forgetting_a_person_forgets_their_look_and_their_widgets() -> None:
    client = fakeredis.FakeRedis()
    store = Store(client, 3600, 3600)
    store.remember_user(100003, "Carla", "en", started=True)
    client.hset(keys.user_key(100003), keys.USER_LOOK, keys.LOOK_TEXT)
    widgets.remember(client, 100003, 7, widgets.Shown("face", "data"))
    assert store.user(100003)[keys.USER_LOOK] == keys.LOOK_TEXT
    forget(store, 100003, 0.0)
    assert keys.USER_LOOK not in store.user(100003)
    assert widgets.shown_in(client, 100003, 7) is None
