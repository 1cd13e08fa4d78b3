"""Time zones: guessed from a WhatsApp number's country, named by a person, and every
time shown in its reader's zone with the zone's name."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.i18n import Translator
from service.table import zones
from service.table.room import Room, RoomSettings
from service.ui.clock import when
from service.ui.cuartetos import CuartetosPainter

NOON = datetime(2026, 12, 6, 12, 0, tzinfo=UTC).timestamp()  # winter: Lisbon is UTC


@pytest.mark.parametrize(
    ("bsuid", "phone", "zone"),
    [
        ("BR.1502576394655843", None, "America/Sao_Paulo"),  # several zones: the largest
        ("ID.77", None, "Asia/Jakarta"),
        ("MX.5", "5215512345678", "America/Mexico_City"),
        (None, "351912345678", "Europe/Lisbon"),
        (None, "5491123456789", "America/Argentina/Buenos_Aires"),
        ("US.1", "14155550100", "UTC"),  # a country we do not know
    ],
)
def test_a_number_s_country_gives_its_zone(bsuid: str | None, phone: str | None, zone: str) -> None:
    assert zones.of_number(bsuid, phone) == zone


@pytest.mark.parametrize(
    ("said", "zone"),
    [
        ("São Paulo", "America/Sao_Paulo"),
        ("sao paulo", "America/Sao_Paulo"),
        ("Lisboa", "Europe/Lisbon"),
        ("manaus", "America/Manaus"),
        ("Makassar", "Asia/Makassar"),
        ("America/Recife", "America/Recife"),
        ("UTC-3", "UTC-03:00"),
        ("gmt+5:30", "UTC+05:30"),
        ("+2", "UTC+02:00"),
        ("menos 3", "UTC-03:00"),  # a sign in words: WhatsApp's words keep no "-"
        ("utc", "UTC"),
        ("15:00", "UTC+03:00"),  # the time it is now where the person is
        ("9h", "UTC-03:00"),
        ("21", "UTC+09:00"),  # past any offset: a time of day
        ("3", None),  # 3 o'clock, or "-3" with its sign lost (WhatsApp's words)?
        ("nowhere at all", None),
        ("utc 3", None),  # which way is not said
        ("+15", None),
        ("25:00", None),
    ],
)
def test_a_person_names_their_zone(said: str, zone: str | None) -> None:
    assert zones.named(said, NOON) == zone


def test_a_time_names_its_zone() -> None:
    en = Translator("en")
    assert when(NOON, "America/Sao_Paulo", en) == "09:00 (São Paulo)"
    assert when(NOON, "Asia/Jakarta", en) == "19:00 (Jakarta)"
    assert when(NOON, "UTC+05:30", en) == "17:30 (UTC+5:30)"
    assert when(NOON, "UTC-03:00", en) == "09:00 (UTC-3)"
    assert when(NOON, "UTC", en) == "12:00 (UTC)"
    assert when(NOON, "Not/A_Zone", en) == "12:00 (A Zone)"  # read as UTC


def test_a_deadline_in_the_reader_s_zone_else_the_group_s() -> None:
    room = Room(
        id="abcd1234",
        chat_id=-1,
        creator=1,
        settings=RoomSettings(preset="cuartetos", timezone="Europe/Madrid"),
    )
    painter = CuartetosPainter(room, "es")
    assert painter.clock(NOON) == "13:00 (Madrid)"  # the group's table
    painter.reader_zone = "America/Sao_Paulo"  # one person's hand
    assert painter.clock(NOON) == "09:00 (São Paulo)"
