"""The WhatsApp world kept in a file (emulator.whatsapp.persist): read back the same, and
the chats, windows, templates and media carry on after a restart."""

from __future__ import annotations

from pathlib import Path

from emulator import running_emulator
from emulator.whatsapp import fast, persist
from emulator.whatsapp.world import WaWorld
from tests.emulator.whatsapp.conftest import WABA_ID, Graph, buttons
from tests.emulator.whatsapp.test_media import EXPORT, upload
from tests.emulator.whatsapp.test_window_and_pacing import make_template


def lived_in(tmp_path: Path) -> tuple[Path, str, str]:
    path = tmp_path / "emulator.whatsapp.json"
    with running_emulator() as emu:
        wa, graph = emu.whatsapp, Graph(emu.url)
        wa.add_user("Lola", country="MX", language="es", username="lola.mx")
        wa.send("Abuela", "hola")
        prompt = graph.ok(buttons("Tu turno", "7 de oros"))
        wa.wait_for_status(prompt, "delivered")
        make_template(graph)
        media_id = upload(graph, EXPORT, "text/plain").json()["id"]
        wa.set_online("Grandma", False)
        wa.advance(3600)
        persist.save(emu.emulator.whatsapp.world, path)
        graph.close()
    return path, prompt, media_id


def test_a_saved_world_reads_back_the_same(tmp_path: Path) -> None:
    path, _, _ = lived_in(tmp_path)
    world = WaWorld(fast())
    assert persist.load(world, path)
    again = tmp_path / "again.json"
    persist.save(world, again)
    assert again.read_text() == path.read_text()
    assert not persist.load(WaWorld(fast()), tmp_path / "none.json")
    assert persist.path_beside(tmp_path / "emulator.json") == path


def test_chats_carry_on_after_a_restart(tmp_path: Path) -> None:
    path, prompt, media_id = lived_in(tmp_path)
    with running_emulator() as emu:
        assert persist.resume(emu.emulator.whatsapp, path)
        wa, graph = emu.whatsapp, Graph(emu.url)
        assert wa.user("Lola")["username"] == "lola.mx"
        assert not wa.user("Grandma")["online"]
        assert emu.emulator.whatsapp.world.clock.offset >= 3600  # the clock goes on
        chat = wa.messages("Abuela")
        assert [m.text for m in chat] == ["hola", "Tu turno"]
        reply = wa.tap("Abuela", prompt, "7 de oros")  # an old button still taps
        assert reply.seq > chat[-1].seq and reply.context_id == prompt
        assert wa.user("Abuela")["window_open"]
        assert [
            t["name"] for t in graph.http.get(f"{WABA_ID}/message_templates").json()["data"]
        ] == ["turn_reminder"]
        assert graph.http.get(media_id).json()["file_size"] == len(EXPORT)
        graph.close()


def test_an_unreadable_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "emulator.whatsapp.json"
    path.write_text('{"format": "something else"}')
    with running_emulator() as emu:
        assert not persist.resume(emu.emulator.whatsapp, path)
    assert not path.exists() and (tmp_path / "emulator.whatsapp.json.old").exists()
