"""The Bot API's HTTP routes: `/bot<token>/<method>` (answered by `BotApi`) and
`/file/bot<token>/<file_path>` (file downloads, as on Telegram)."""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from emulator.telegram.botapi import MAX_UPLOAD, BotApi
from emulator.telegram.errors import ApiError, bad_request, internal_error, not_found
from emulator.telegram.params import Params, Upload
from emulator.telegram.world import World

log = logging.getLogger("emulator")


def api_response(error: ApiError) -> JSONResponse:
    return JSONResponse(error.to_json(), status_code=error.error_code)


async def read_params(request: Request) -> Params:
    """Parameters from the query string and a JSON, form or multipart body."""
    values: dict[str, Any] = dict(request.query_params)
    if request.method != "POST":
        return Params(values)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "multipart/form-data":
        return await _multipart(request, values)
    body = await request.body()
    if content_type == "application/json":
        values.update(_json_object(body))
        return Params(values)
    text = body.decode("utf-8", errors="replace")
    values.update(parse_qsl(text, keep_blank_values=True))
    return Params(values)


async def _multipart(request: Request, values: dict[str, Any]) -> Params:
    files: dict[str, Upload] = {}
    try:
        form = await request.form(max_part_size=MAX_UPLOAD)
    except Exception:
        raise bad_request("can't parse multipart/form-data body") from None
    for key, value in form.multi_items():
        if isinstance(value, UploadFile):
            content = await value.read()
            files[key] = Upload(value.filename or key, content, value.content_type)
        else:
            values[key] = value
    return Params(values, files)


def _json_object(body: bytes) -> dict[str, Any]:
    """A JSON body's values (an empty body has none)."""
    if not body.strip():
        return {}
    try:
        data = json.loads(body)
    except ValueError:
        raise bad_request("can't parse JSON object") from None
    if not isinstance(data, dict):
        raise bad_request("can't parse JSON object")
    return data


class BotApiRoutes:
    """The routes a bot calls, one method each."""

    def __init__(self, api: BotApi, world: World) -> None:
        self.api = api
        self.world = world

    def routes(self) -> list[Route]:
        return [
            Route("/bot{token}/{method}", self.call, methods=["GET", "POST"]),
            Route("/file/bot{token}/{path:path}", self.file_download),
        ]

    async def call(self, request: Request) -> Response:
        """A Bot API method: `{"ok": true, "result": ...}`, or Telegram's refusal."""
        method = request.path_params["method"]
        try:
            params = await read_params(request)
            result = await self.api.call(request.path_params["token"], method, params)
        except ApiError as error:
            return api_response(error)
        except Exception:
            log.exception("Bot API call %s failed", method)
            return api_response(internal_error())
        return JSONResponse({"ok": True, "result": result})

    async def file_download(self, request: Request) -> Response:
        """A file a bot sent or was sent, by the `file_path` getFile gave."""
        try:
            self.world.bot_for_token(request.path_params["token"])
        except ApiError as error:
            return api_response(error)
        path = request.path_params["path"]
        for stored in self.world.files.values():
            if stored.file_path == path:
                return Response(stored.content, media_type=stored.mime_type)
        return api_response(not_found())
