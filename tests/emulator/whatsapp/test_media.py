"""Media: a file uploaded (multipart), its URL (5 minutes, with the token), a document
sent by id or link, Meta's types and sizes."""

from __future__ import annotations

import hashlib

import httpx
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from emulator import RunningEmulator, ServerThread
from tests.emulator.whatsapp.conftest import PHONE_ID, Graph

TOKEN = {"Authorization": "Bearer local-whatsapp-token"}
EXPORT = b"game 42: Abuela won\n"


def upload(graph: Graph, content: bytes, mime: str, name: str = "game.txt") -> httpx.Response:
    return graph.http.post(
        f"{PHONE_ID}/media",
        data={"messaging_product": "whatsapp", "type": mime},
        files={"file": (name, content, mime)},
    )


def test_upload_look_up_download(emu: RunningEmulator, graph: Graph) -> None:
    response = upload(graph, EXPORT, "text/plain")
    assert response.status_code == 200
    media_id = response.json()["id"]
    info = graph.http.get(media_id).json()
    assert info["messaging_product"] == "whatsapp" and info["id"] == media_id
    assert info["mime_type"] == "text/plain" and info["file_size"] == len(EXPORT)
    assert info["sha256"] == hashlib.sha256(EXPORT).hexdigest()
    assert httpx.get(info["url"]).status_code == 401  # the download needs the token too
    got = httpx.get(info["url"], headers=TOKEN)
    assert got.status_code == 200 and got.content == EXPORT
    emu.whatsapp.advance(301)  # a URL lasts five minutes
    assert httpx.get(info["url"], headers=TOKEN).status_code == 404
    fresh = graph.http.get(media_id).json()["url"]
    assert httpx.get(fresh, headers=TOKEN).content == EXPORT
    assert graph.http.delete(media_id).json() == {"success": True}
    gone = graph.http.get(media_id)
    assert gone.status_code == 400 and gone.json()["error"]["error_subcode"] == 33


def test_uploads_meta_refuses(graph: Graph) -> None:
    wrong_type = upload(graph, b"MZ...", "application/x-msdownload", "x.exe")
    assert wrong_type.status_code == 400 and wrong_type.json()["error"]["code"] == 100
    sticker = upload(graph, b"R" * (100 * 1024 + 1), "image/webp", "s.webp")
    assert sticker.status_code == 400 and sticker.json()["error"]["code"] == 131009
    empty = upload(graph, b"", "text/plain")
    assert empty.status_code == 400
    no_product = graph.http.post(
        f"{PHONE_ID}/media", data={"type": "text/plain"}, files={"file": ("a", b"a", "text/plain")}
    )
    assert no_product.status_code == 400 and no_product.json()["error"]["code"] == 100
    as_json = graph.http.post(f"{PHONE_ID}/media", json={"messaging_product": "whatsapp"})
    assert as_json.status_code == 400


def test_a_document_by_id_or_link(emu: RunningEmulator, graph: Graph) -> None:
    wa = emu.whatsapp
    wa.send("Abuela", "¿me mandas la partida?")
    media_id = upload(graph, EXPORT, "text/plain").json()["id"]
    by_id = graph.ok(
        {
            "type": "document",
            "document": {"id": media_id, "filename": "partida.txt", "caption": "La partida"},
        }
    )
    shown = wa.wait_for_message("Abuela", contains="La partida")
    assert shown.id == by_id and shown.raw["document"]["filename"] == "partida.txt"
    unknown = graph.ok({"type": "document", "document": {"id": "999", "filename": "x.txt"}})
    assert wa.wait_for_status(unknown, "failed")["errors"][0]["code"] == 131053

    files = Starlette(routes=[Route("/export.txt", lambda r: PlainTextResponse("exported"))])
    with ServerThread(files) as server:
        linked = graph.ok({"type": "document", "document": {"link": f"{server.url}/export.txt"}})
        wa.wait_for_status(linked, "delivered")
        broken = graph.ok({"type": "document", "document": {"link": f"{server.url}/missing"}})
        assert wa.wait_for_status(broken, "failed")["errors"][0]["code"] == 131053
