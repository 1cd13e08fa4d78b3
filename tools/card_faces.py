"""The card faces as files, and a contact sheet of both decks at a phone's width.

    python -m tools.card_faces sheet [--out docs/card-faces.png] [--html FILE]
    python -m tools.card_faces svg DIR

`sheet` lays out every face and back of both decks on a 390 px page, with a hand of
twelve fanned as `service.cards.faces.fan` lays it out, that hand drawn in the page by
the widget's own script (`WIDGET_JS`), and screenshots it with headless Chromium.
`svg` writes each face as `DIR/<style>/<code>.svg` and each back as `DIR/<style>/back.svg`.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from service.cards.faces import HEIGHT, STYLES, WIDTH, Style, back, codes, face, fan
from service.cards.widget import WIDGET_JS

ROOT = Path(__file__).resolve().parent.parent
PHONE = 390  # px: the width of a common phone's screen
PAD, GAP, PER_ROW = 8, 4, 7
FAN_TITLE = "A hand of twelve, drawn by the widget's script"
TITLES = {"spanish": "Spanish deck", "french": "French deck (four colours)"}
# Hands of twelve, as a deal might give them: every suit, figures and small cards.
HANDS: dict[Style, list[str]] = {
    "spanish": ["KD", "7D", "2D", "AH", "QH", "5H", "JS", "9S", "3S", "KC", "6C", "4C"],
    "french": ["AS", "10S", "4S", "KH", "JH", "7H", "QD", "9D", "2D", "AC", "8C", "JK"],
}
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"


def sheet_html() -> tuple[str, int]:
    """The contact sheet's page, and its height in px."""
    inner = PHONE - 2 * PAD
    small = (inner - GAP * (PER_ROW - 1)) // PER_ROW
    card, step = fan(12, inner)
    parts, height = [], PAD
    for style in STYLES:
        cards = [face(code, style, small) for code in codes(style)] + [back(style, small)]
        rows = -(-len(cards) // PER_ROW)
        parts.append(f"<h2>{TITLES[style]}</h2><div class=grid>{''.join(cards)}</div>")
        parts.append(f'<p>{FAN_TITLE}</p><div class=fan id="{style}"></div>')
        height += 34 + rows * (small * HEIGHT // WIDTH + GAP) + 26 + card * HEIGHT // WIDTH + 16
    script = (
        WIDGET_JS
        + f"var hands={json.dumps(HANDS)};"
        + "Object.keys(hands).forEach(function(d){var e=document.getElementById(d),h='';"
        + f"hands[d].forEach(function(c,i){{h+='<span style=\"left:'+i*{step}+'px\">'"
        + f"+Cards.face(c,d,{card},c)+'</span>'}});e.innerHTML=h}});"
    )
    page = (
        "<!doctype html><meta charset=utf-8><style>"
        f"body{{margin:0;padding:{PAD}px;width:{inner}px;background:#2d6a4f;color:#f4efe1;"
        "font:600 15px system-ui,sans-serif}"
        "h2{margin:6px 0 8px;font-size:17px}p{margin:6px 0;font-size:13px;font-weight:400}"
        f".grid{{display:flex;flex-wrap:wrap;gap:{GAP}px}}"
        f".fan{{position:relative;height:{card * HEIGHT // WIDTH + 8}px}}"
        ".fan span{position:absolute;top:0;filter:drop-shadow(-1px 0 1.5px rgba(0,0,0,.35))}"
        "svg{display:block}</style>"
        f"{''.join(parts)}<script>{script}</script>"
    )
    return page, height + PAD


def screenshot(html: str, height: int, out: Path, scale: int = 2) -> None:
    """`html` as a PNG `PHONE` px wide (times `scale`), by headless Chromium."""
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "sheet.html"
        page.write_text(html, encoding="utf-8")
        subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                f"--force-device-scale-factor={scale}",
                f"--window-size={PHONE},{height}",
                f"--screenshot={out.resolve()}",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def write_svgs(folder: Path) -> int:
    """Every face and back as files; how many were written."""
    count = 0
    for style in STYLES:
        (folder / style).mkdir(parents=True, exist_ok=True)
        for code in codes(style):
            (folder / style / f"{code}.svg").write_text(face(code, style), encoding="utf-8")
            count += 1
        (folder / style / "back.svg").write_text(back(style), encoding="utf-8")
        count += 1
    return count


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.card_faces", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sheet = sub.add_parser("sheet", help="a contact sheet of both decks as a PNG")
    sheet.add_argument("--out", type=Path, default=ROOT / "docs" / "card-faces.png")
    sheet.add_argument("--html", type=Path, help="also keep the page here")
    files = sub.add_parser("svg", help="every face and back as an SVG file")
    files.add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.command == "svg":
        print(f"{write_svgs(args.dir)} files in {args.dir}")
        return
    html, height = sheet_html()
    if args.html:
        args.html.write_text(html, encoding="utf-8")
    screenshot(html, height, args.out)
    print(f"{args.out} ({PHONE} × {height} px)")


if __name__ == "__main__":
    main()
