"""GET /view: one page with everything inline, under a policy that lets nothing else
run or load (its one script allowed by hash), framed only by Telegram's web clients,
never cached, never naming itself in a Referer; its script is valid JavaScript."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.view.harness import Views


def get_page() -> tuple[int, dict[str, str], str]:
    async def main() -> tuple[int, dict[str, str], str]:
        async with Views() as views:
            answer = await views.http.get("/view")
            return answer.status_code, dict(answer.headers), answer.text

    return asyncio.run(main())


def test_the_page_runs_only_its_own_inline_script() -> None:
    status, headers, html = get_page()
    assert status == 200 and headers["content-type"].startswith("text/html")
    policy = dict(
        part.strip().split(" ", 1) for part in headers["content-security-policy"].split(";")
    )
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    assert len(scripts) == 1 and "Table.draw" in scripts[0] and "/view/open" in scripts[0]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
    assert policy["script-src"] == f"'sha256-{digest}'"
    assert policy["default-src"] == "'none'" and policy["connect-src"] == "'self'"
    assert policy["frame-ancestors"] == "https://web.telegram.org"
    assert policy["base-uri"] == "'none'" and policy["form-action"] == "'none'"
    assert not re.search(r"""\s(src|href)=""", html.replace(scripts[0], ""))  # nothing fetched
    assert headers["referrer-policy"] == "no-referrer" and headers["cache-control"] == "no-store"
    assert headers["x-content-type-options"] == "nosniff"
    assert 'aria-live="polite"' in html and 'role="dialog"' in html


@pytest.mark.skipif(shutil.which("node") is None, reason="Node checks the script's syntax")
def test_the_pages_script_is_valid_javascript(tmp_path: Path) -> None:
    _status, _headers, html = get_page()
    script = tmp_path / "page.js"
    script.write_text(re.findall(r"<script>(.*?)</script>", html, re.S)[0])
    checked = subprocess.run(["node", "--check", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
