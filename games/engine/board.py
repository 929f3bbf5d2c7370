"""The board as plain text, for the command line: what ``visible()`` shows, drawn."""

from __future__ import annotations

from typing import Any


def _cell(cell: dict[str, Any] | None) -> str:
    if cell is None:
        return ".."
    if cell.get("face_down"):
        return "##"
    return str(cell["card"])


def render(view: dict[str, Any]) -> str:
    rows = view["rows"]
    lines = [
        f"{view['preset']} · {view['moves']} moves · score {view['score']} · "
        f"{view['recycles_left']} redeal(s) left · {view['pyramid_left']} pyramid card(s) left"
    ]
    for depth, row in enumerate(rows):
        cells = "".join(_cell(cell) + ("* " if cell and cell.get("free") else "  ") for cell in row)
        lines.append(" " * (2 * (len(rows) - 1 - depth)) + cells.rstrip())
    stock = view["stock"]
    stock_text = f"stock {stock['count']}"
    if stock["top"]:
        stock_text += f" (top {stock['top']})"
    if view["drawn"]:
        stock_text += f" · drawn {view['drawn']}"
    waste = view["waste"]
    waste_text = " ".join(waste[-8:]) if waste else "empty"
    if len(waste) > 8:
        waste_text = f"… {waste_text}"
    lines.append(f"{stock_text} · waste {len(waste)}: {waste_text}")
    lines.append("free cards are marked *; removed places show .., face-down cards ##")
    return "\n".join(lines)
