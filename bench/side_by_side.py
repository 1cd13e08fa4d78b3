"""Run a benchmark on an older commit and on this checkout, one after the other in one
run, and print their figures side by side.

    python -m bench.side_by_side --baseline 2f0487b [--json out.json] -- \\
        bench.cost --games 1 --counts-only

The benchmark module (after `--`, with its arguments) must take `--json PATH` and write
its figures there. The baseline runs from a detached git worktree of the commit (made
under the system's temporary folder, removed afterwards) with this checkout's Python
and installed dependencies: only the code differs. Numbers are printed for every key the
two share, with the ratio now / baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def flat(figures: Any, prefix: str = "") -> dict[str, float]:
    """Every number in a JSON document, by its path (`counts/group/taps`)."""
    found: dict[str, float] = {}
    if isinstance(figures, dict):
        for key, value in figures.items():
            found |= flat(value, f"{prefix}{key}/")
    elif isinstance(figures, int | float) and not isinstance(figures, bool):
        found[prefix.rstrip("/")] = float(figures)
    return found


def run(tree: Path, module: list[str], out: Path) -> dict[str, float]:
    """The benchmark's figures, run from `tree` (its code first on the path)."""
    command = [sys.executable, "-m", *module, "--json", str(out)]
    print(f"side_by_side: {tree}: {' '.join(command[1:])}", file=sys.stderr, flush=True)
    subprocess.run(command, cwd=tree, check=True, env=env_for(tree))
    return flat(json.loads(out.read_text()))


def env_for(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def table(before: dict[str, float], after: dict[str, float]) -> list[str]:
    lines = [f"{'figure':60} {'baseline':>12} {'now':>12} {'now/base':>9}"]
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        ratio = f"{new / old:9.2f}" if old else f"{'':>9}"
        lines.append(f"{key[:60]:60} {old:12.6g} {new:12.6g} {ratio}")
    return lines


def main(argv: list[str] | None = None) -> int:
    args_list = sys.argv[1:] if argv is None else argv
    if "--" not in args_list:
        print("usage: python -m bench.side_by_side --baseline REV -- MODULE [ARGS]")
        return 2
    split = args_list.index("--")
    parser = argparse.ArgumentParser(prog="python -m bench.side_by_side")
    parser.add_argument("--baseline", required=True, help="the commit to compare with")
    parser.add_argument("--json", type=Path, help="write both runs' figures here")
    args = parser.parse_args(args_list[:split])
    module = args_list[split + 1 :]
    if not module:
        parser.error("name the benchmark module after --")
    with tempfile.TemporaryDirectory(prefix="burro-baseline-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(tree), args.baseline],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            before = run(tree, module, Path(folder) / "before.json")
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False
            )
        after = run(ROOT, module, Path(folder) / "after.json")
    print("\n".join(table(before, after)))
    if args.json:
        document = {"baseline": args.baseline, "module": module, "before": before, "after": after}
        args.json.write_text(json.dumps(document, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
