"""The Graph API endpoints of the Cloud API, as the business (the service) calls them:

- `POST /v<ver>/<PHONE_NUMBER_ID>/messages`: send a message, or mark one read;
- `POST /v<ver>/<PHONE_NUMBER_ID>/media` (multipart): upload a file, get its id;
- `GET /v<ver>/<MEDIA_ID>`: its download URL (5 minutes), `DELETE` to delete it;
- `GET /whatsapp_business/attachments/?mid=...`: the download itself (Bearer token);
- `GET|POST /v<ver>/<WABA_ID>/message_templates`: list or create templates;
- `GET /v<ver>/<PHONE_NUMBER_ID>` and `/v<ver>/<WABA_ID>`: the number and the account.

Every call needs the access token (`Authorization: Bearer <token>`, or `access_token`
in the query): without it, 401 with code 190. An id Graph does not know is 100 with
subcode 33. Every call and its answer is logged (`kind: "call"`).

developers.facebook.com/docs/whatsapp/cloud-api/reference/messages,
developers.facebook.com/docs/whatsapp/cloud-api/reference/media,
developers.facebook.com/docs/whatsapp/business-management-api/message-templates,
developers.facebook.com/docs/whatsapp/cloud-api/reference/phone-numbers.
"""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.convertors import Convertor, register_url_convertor
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.whatsapp.cloud import WhatsAppCloud
from emulator.whatsapp.errors import (
    GENERIC,
    GraphError,
    invalid,
    no_such_field,
    no_such_object,
    out_of_range,
    unauthorized,
    unknown_path,
)
from emulator.whatsapp.validation import MarkRead, messaging_product, parse_request, parse_template
from emulator.whatsapp.world import MEDIA_URL_SECONDS

log = logging.getLogger("emulator.whatsapp")
JSON = dict[str, Any]
VERSION = re.compile(r"v[0-9]{1,2}\.[0-9]")

MB = 1024 * 1024
# Supported media and their sizes
# (developers.facebook.com/docs/whatsapp/cloud-api/reference/media#supported-media-types).
MEDIA_TYPES: dict[str, int] = {
    "text/plain": 100 * MB,
    "application/pdf": 100 * MB,
    "application/msword": 100 * MB,
    "application/vnd.ms-excel": 100 * MB,
    "application/vnd.ms-powerpoint": 100 * MB,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": 100 * MB,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": 100 * MB,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": 100 * MB,
    "image/jpeg": 5 * MB,
    "image/png": 5 * MB,
    "image/webp": 100 * 1024,
    "audio/aac": 16 * MB,
    "audio/amr": 16 * MB,
    "audio/mpeg": 16 * MB,
    "audio/mp4": 16 * MB,
    "audio/ogg": 16 * MB,
    "video/3gpp": 16 * MB,
    "video/mp4": 16 * MB,
}
MAX_UPLOAD = 100 * MB


Handler = Callable[[Request], Awaitable[JSON]]
Endpoint = Callable[[Request], Awaitable[Response]]


class GraphVersion(Convertor[str]):
    """A path's first part that looks like a Graph version (`v21.0`, `v21`): only such
    paths reach the Graph routes, every other stays the Telegram side's."""

    regex = r"v[0-9]+(?:\.[0-9]+)?"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("graph_version", GraphVersion())


class GraphRoutes:
    """The Graph endpoints a business calls, one method each."""

    def __init__(self, cloud: WhatsAppCloud) -> None:
        self.cloud = cloud
        self.config = cloud.config

    def routes(self) -> list[Route]:
        graph = self.graph
        node = "/{version:graph_version}/{node}"
        return [
            Route(f"{node}/messages", graph("messages", self.messages), methods=["POST"]),
            Route(
                f"{node}/message_templates",
                graph("message_templates", self.templates),
                methods=["GET", "POST"],
            ),
            Route(f"{node}/media", graph("media", self.upload), methods=["POST"]),
            Route("/whatsapp_business/attachments/", self.download, name="whatsapp_media"),
            Route(node, graph("node", self.node), methods=["GET", "DELETE"]),
        ]

    def authorize(self, request: Request) -> None:
        header = request.headers.get("authorization", "")
        token = header[7:].strip() if header.lower().startswith("bearer ") else None
        token = token or request.query_params.get("access_token")
        if token != self.config.token:
            raise unauthorized()

    def version(self, request: Request) -> None:
        found = request.path_params.get("version", "")
        if not VERSION.fullmatch(found):
            raise unknown_path(f"/{found}")

    def graph(self, method: str, fn: Handler) -> Endpoint:
        """A Graph endpoint: `fn`'s answer, or Meta's error; logged either way."""

        async def handler(request: Request) -> Response:
            return await self.answer(method, fn, request)

        return handler

    async def answer(self, method: str, fn: Handler, request: Request) -> Response:
        self.cloud.start()
        headers: dict[str, str] = {}
        request.state.logged_body = None
        try:
            self.version(request)
            self.authorize(request)
            status, answer = 200, await fn(request)
        except GraphError as error:
            status, answer = error.http_status, error.to_json()
            if status == 401:
                headers["WWW-Authenticate"] = (
                    'OAuth "Facebook Platform" "invalid_token" "Invalid OAuth access token"'
                )
        except Exception:
            log.exception("Graph call %s %s failed", method, request.url.path)
            status, answer = 500, GraphError(GENERIC, "the emulator failed").to_json()
            request.state.logged_body = None
        self.cloud.world.record(
            "call",
            method=request.method,
            path=request.url.path,
            body=request.state.logged_body,
            status=status,
            answer=answer,
        )
        return JSONResponse(answer, status_code=status, headers=headers)

    async def json_body(self, request: Request) -> JSON:
        raw = await request.body()
        try:
            data = json.loads(raw) if raw.strip() else {}
        except ValueError:
            request.state.logged_body = raw[:2000].decode(errors="replace")
            raise invalid("The request body is not JSON.") from None
        request.state.logged_body = data
        if not isinstance(data, dict):
            raise invalid("The request body must be a JSON object.")
        return data

    def node_kind(self, node: str, method: str = "post") -> str:
        if node == self.config.phone_number_id:
            return "phone"
        if node == self.config.waba_id:
            return "waba"
        if node in self.cloud.world.media:
            return "media"
        raise no_such_object(node, method)

    async def messages(self, request: Request) -> JSON:
        node = request.path_params["node"]
        if self.node_kind(node) != "phone":
            raise no_such_field("messages")
        parsed = parse_request(await self.json_body(request))
        if isinstance(parsed, MarkRead):
            return self.cloud.mark_read(parsed)
        return self.cloud.send(parsed)

    async def templates(self, request: Request) -> JSON:
        node = request.path_params["node"]
        if self.node_kind(node, request.method.lower()) != "waba":
            raise no_such_field("message_templates")
        if request.method == "POST":
            return self.cloud.create_template(parse_template(await self.json_body(request)))
        return self.list_templates(request)

    def list_templates(self, request: Request) -> JSON:
        query = request.query_params
        found = [t.to_json() for t in self.cloud.templates()]
        for key in ("name", "status", "language", "category"):
            if key in query:
                found = [t for t in found if str(t[key]).upper() == query[key].upper()]
        try:
            limit = min(max(int(query.get("limit", 25)), 1), 1000)
            start = int(base64.b64decode(query["after"]).decode()) + 1 if "after" in query else 0
        except ValueError:
            raise invalid("Param limit or after is not valid.") from None
        page = found[start : start + limit]
        out: JSON = {"data": page}
        if page:
            last = start + len(page) - 1
            paging: JSON = {"cursors": {"before": _cursor(start), "after": _cursor(last)}}
            if last + 1 < len(found):
                paging["next"] = str(request.url.include_query_params(after=_cursor(last)))
            out["paging"] = paging
        return out

    async def upload(self, request: Request) -> JSON:
        node = request.path_params["node"]
        if self.node_kind(node) != "phone":
            raise no_such_field("media")
        fields, upload, content = await _multipart(request)
        for key in fields:
            if key not in ("messaging_product", "type"):
                raise invalid(f'Unexpected key "{key}" on a media upload.')
        messaging_product(fields)
        if upload is None:
            raise invalid("The parameter file is required.")
        mime = _media_type(fields.get("type") or upload.content_type, content)
        media = self.cloud.store_media(content, mime, upload.filename or "file")
        return {"id": media.id}

    async def node(self, request: Request) -> JSON:
        node_id = request.path_params["node"]
        kind = self.node_kind(node_id, request.method.lower())
        if kind == "media":
            return self.media_node(request, node_id)
        if request.method == "DELETE":
            raise no_such_object(node_id, "delete")
        return self.phone_number() if kind == "phone" else self.account()

    def media_node(self, request: Request, media_id: str) -> JSON:
        """A media's download URL (good for 5 minutes), or its deletion."""
        if request.method == "DELETE":
            del self.cloud.world.media[media_id]
            self.cloud.world.changes += 1
            return {"success": True}
        media = self.cloud.world.media[media_id]
        expires = int(self.cloud.now()) + MEDIA_URL_SECONDS
        url = request.url_for("whatsapp_media").include_query_params(
            mid=media.id, ext=expires, hash=self.cloud.media_hash(media.id, expires)
        )
        return media.to_json(str(url))

    def phone_number(self) -> JSON:
        return {
            "verified_name": self.config.verified_name,
            "code_verification_status": "VERIFIED",
            "display_phone_number": self.config.display_phone_number,
            "quality_rating": "GREEN",
            "platform_type": "CLOUD_API",
            "throughput": {"level": "STANDARD"},
            "id": self.config.phone_number_id,
        }

    def account(self) -> JSON:
        return {
            "id": self.config.waba_id,
            "name": self.config.verified_name,
            "timezone_id": "1",
            "message_template_namespace": "local_emulator",
        }

    async def download(self, request: Request) -> Response:
        query = request.query_params
        try:
            self.authorize(request)
        except GraphError as error:
            return JSONResponse(error.to_json(), status_code=401)
        media = self.cloud.world.media.get(query.get("mid", ""))
        try:
            expires = int(query.get("ext", "0"))
        except ValueError:
            expires = 0
        if media is None or query.get("hash") != self.cloud.media_hash(media.id, expires):
            return Response("Not found", status_code=404)
        if self.cloud.now() > expires:
            return Response("URL signature expired", status_code=404)
        return Response(media.content, media_type=media.mime_type)


def _cursor(index: int) -> str:
    """A paging cursor: the index of a template in the list, as Graph's opaque text."""
    return base64.b64encode(str(index).encode()).decode()


async def _multipart(request: Request) -> tuple[JSON, UploadFile | None, bytes]:
    """A media upload's fields, its file and the file's content (logged as read)."""
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise invalid("Media are uploaded as multipart/form-data.")
    try:
        form = await request.form(max_part_size=MAX_UPLOAD + 1)
    except Exception:
        raise invalid("The multipart body cannot be read.") from None
    fields: JSON = {}
    upload: UploadFile | None = None
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            if key != "file":
                raise invalid(f'Unexpected file "{key}": the file goes in "file".')
            upload = value
        else:
            fields[key] = value
    content = await upload.read() if upload is not None else b""
    described = None
    if upload is not None:
        described = {
            "filename": upload.filename,
            "size": len(content),
            "content_type": upload.content_type,
        }
    request.state.logged_body = {**fields, "file": described}
    return fields, upload, content


def _media_type(given: Any, content: bytes) -> str:
    """The upload's media type, checked with its size against Meta's table."""
    if not given:
        raise invalid("The parameter type is required.")
    mime = str(given).split(";")[0].strip().lower()
    if mime not in MEDIA_TYPES:
        raise invalid(
            f"Param file must be a file with one of the following types: "
            f"{', '.join(MEDIA_TYPES)}. Received file of type '{mime}'."
        )
    if not content:
        raise out_of_range("The file is empty.")
    if len(content) > MEDIA_TYPES[mime]:
        raise out_of_range(f"A {mime} file is at most {MEDIA_TYPES[mime]} bytes ({len(content)}).")
    return mime
