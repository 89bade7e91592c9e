"""The README's examples are the code the e2e tests run: every region of
examples/readme_examples.py must appear verbatim (dedented) in README.md."""

from __future__ import annotations

import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def regions(source: str) -> dict[str, str]:
    out: dict[str, str] = {}
    name: str | None = None
    lines: list[str] = []
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("# region: "):
            name, lines = stripped.removeprefix("# region: "), []
        elif stripped == "# endregion":
            assert name is not None, "endregion without region"
            out[name] = textwrap.dedent("\n".join(lines))
            name = None
        elif name is not None:
            lines.append(line)
    assert name is None, f"unterminated region {name}"
    return out


def test_readme_shows_every_example_verbatim() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = regions((ROOT / "examples" / "readme_examples.py").read_text(encoding="utf-8"))
    assert len(found) >= 3
    for name, body in found.items():
        block = f"```python\n{body}\n```"
        assert block in readme, f"README.md lacks the {name!r} example:\n{block}"
