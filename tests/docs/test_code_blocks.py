"""Every ```python block in README.md and docs/**/*.md runs, so an example cannot rot.

Each block runs on its own, in a fresh namespace (an example is read alone, so it must
work alone). A block that must not run says so in its info string: ```python no-run.
Any other block that raises fails its test, named by file and line.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# A fence: a line of three or more backticks and an info string, indented when it is a
# list item's block.
FENCE = re.compile(r"^\s*(`{3,})\s*([^`]*)$")
PYTHON = {"python", "py", "python3"}
NO_RUN = "no-run"


@dataclass(frozen=True)
class Block:
    path: str  # relative to the repository
    line: int  # the line of the opening fence, from 1
    info: tuple[str, ...]  # the info string's words: language first
    code: str

    @property
    def runs(self) -> bool:
        return bool(self.info) and self.info[0] in PYTHON and NO_RUN not in self.info[1:]


def blocks_of(text: str, path: str = "<text>") -> list[Block]:
    """Every fenced code block of a Markdown text, with its info string."""
    found: list[Block] = []
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        opening = FENCE.match(lines[number])
        number += 1
        if opening is None:
            continue
        fence, start, body = opening[1], number, []
        while number < len(lines) and not _closes(lines[number], fence):
            body.append(lines[number])
            number += 1
        number += 1  # the closing fence (or the end of the text)
        code = textwrap.dedent("\n".join(body)) + "\n"
        found.append(Block(path, start, tuple(opening[2].split()), code))
    return found


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and set(stripped) == {"`"}


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def python_blocks() -> list[Block]:
    return [
        block
        for path in documents()
        for block in blocks_of(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
        if block.info and block.info[0] in PYTHON
    ]


def run(block: Block) -> None:
    """Execute a block as its own module would run (a fresh namespace)."""
    code = compile(block.code, f"{block.path}:{block.line}", "exec")
    exec(code, {"__name__": "__docs__"})


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: f"{b.path}:{b.line}")
def test_the_block_runs(block: Block) -> None:
    if not block.runs:
        pytest.skip(f"marked {NO_RUN}")
    run(block)


def test_the_readme_has_an_example_that_runs() -> None:
    """The collector finds the README's engine example (a broken fence would hide it)."""
    assert any(b.runs and b.path == "README.md" for b in python_blocks())


def test_an_unmarked_block_that_raises_fails_and_a_marked_one_is_left_out() -> None:
    text = (
        "Text.\n\n```python\nraise RuntimeError('rotten')\n```\n\n"
        "- a list item:\n\n  ```python no-run\n  import not_a_module\n  ```\n\n"
        "```sh\nexit 1\n```\n"
    )
    rotten, marked, shell = blocks_of(text)
    assert (rotten.line, rotten.runs, marked.runs, shell.info) == (3, True, False, ("sh",))
    assert marked.code == "import not_a_module\n"
    with pytest.raises(RuntimeError, match="rotten"):
        run(rotten)
