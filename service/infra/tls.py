"""One TLS context for every HTTPS client of the process (the Bot API's, the Graph
API's, python-telegram-bot's): httpx loads the CA bundle anew for each client it builds,
0.1 s of CPU or more, and a context is safe to share between clients and threads."""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def context() -> ssl.SSLContext:
    """httpx's own default (certifi's CA bundle, or SSL_CERT_FILE / SSL_CERT_DIR)."""
    return httpx.create_ssl_context()
