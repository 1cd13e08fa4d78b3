"""The plumbing of the control APIs (Telegram's under `/_emulator/`, WhatsApp's under
`/_emulator/whatsapp/`): JSON in, `{"ok": true, "result": ...}` out, a refused action
`{"ok": false, "error_code": 400, "description": ...}`. A control API is a class whose
methods are its routes, each taking the call's arguments (`Args`)."""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

Args = dict[str, Any]
JSON = dict[str, Any]
Endpoint = Callable[[Request], Awaitable[Response]]
GET, POST, DELETE = ["GET"], ["POST"], ["DELETE"]


def fail(description: str, code: int = 400) -> JSONResponse:
    return JSONResponse(
        {"ok": False, "error_code": code, "description": description}, status_code=code
    )


def flag(value: Any, yes: tuple[str, ...] = ("1", "true", "yes")) -> bool:
    """A Boolean argument: JSON's own, or one of the words `yes`."""
    if isinstance(value, str):
        return value.lower() in yes
    return bool(value)


async def request_args(request: Request) -> Args:
    """A control call's arguments: the query's, the path's and those of a JSON object
    body (ValueError saying what is wrong with one)."""
    args: Args = dict(request.query_params)
    args.update(request.path_params)
    if request.method in ("POST", "DELETE"):
        body = await request.body()
        if body.strip():
            try:
                data = json.loads(body)
            except ValueError:
                raise ValueError("the body is not JSON") from None
            if not isinstance(data, dict):
                raise ValueError("the body must be a JSON object")
            args.update(data)
    return args


class ControlApi:
    """A control API's route table: `routes()` lists its routes, one method each.

    A method raising one of `refused` (or what `refusal` turns into an answer) is a
    refused action; a method may be async."""

    refused: tuple[type[Exception], ...] = (LookupError, ValueError, TypeError)

    def routes(self) -> list[Route]:
        raise NotImplementedError

    def before(self) -> None:
        """Run before each call (nothing unless a subclass says)."""

    def refusal(self, error: Exception) -> JSONResponse | None:
        """The answer to an error that is not in `refused` (None: not a refusal)."""
        return None

    def route(self, path: str, method: Callable[[Args], Any], methods: list[str]) -> Route:
        return Route(path, self.endpoint(method), methods=methods)

    def endpoint(self, method: Callable[[Args], Any]) -> Endpoint:
        async def handler(request: Request) -> Response:
            self.before()
            try:
                args = await request_args(request)
            except ValueError as error:
                return fail(str(error))
            try:
                result = method(args)
                if inspect.isawaitable(result):
                    result = await result
            except self.refused as error:
                return fail(_described(error))
            except Exception as error:
                answer = self.refusal(error)
                if answer is None:
                    raise
                return answer
            return JSONResponse({"ok": True, "result": result})

        return handler


def _described(error: Exception) -> str:
    """What a refusal says (a KeyError's own words, without its quotes)."""
    text = error.args[0] if isinstance(error, KeyError) and error.args else str(error)
    return str(text)
