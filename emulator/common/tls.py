"""One TLS context for the emulator's HTTP clients (its webhook deliveries, the test
drivers): httpx loads the CA bundle anew for each client it builds, 0.1 s of CPU or
more, and the test suite builds hundreds. (The product has its own: service.infra.tls.)"""

from __future__ import annotations

import functools
import ssl

import httpx


@functools.cache
def context() -> ssl.SSLContext:
    """httpx's own default (certifi's CA bundle, or SSL_CERT_FILE / SSL_CERT_DIR)."""
    return httpx.create_ssl_context()
