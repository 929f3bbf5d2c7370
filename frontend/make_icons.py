"""Render the app icons (PNG) from frontend/static/frontend/icon.svg with Debian's Chromium.

    .venv/bin/python -m frontend.make_icons

The PNGs are committed: run this again only when icon.svg changes.  "any" icons keep the SVG's
rounded corners on a transparent ground; the maskable one and the apple-touch-icon fill the
whole square (the platform cuts its own shape) with the drawing inside the central safe zone.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent / "static" / "frontend"
SVG = "http://www.w3.org/2000/svg"
CHROMIUM = os.environ.get("PIRAMIDE_CHROMIUM", "/usr/bin/chromium")
#: name, pixels, full bleed (maskable: the drawing shrunk into the safe zone, a circle of 80%).
ICONS = [
    ("icon-192.png", 192, False),
    ("icon-512.png", 512, False),
    ("maskable-512.png", 512, True),
    ("apple-touch-icon.png", 180, True),
]


def full_bleed(source: str, scale: float = 0.74) -> str:
    """The icon as a square of its ground colour with the drawing scaled about the centre."""
    ET.register_namespace("", SVG)
    root = ET.fromstring(source)
    ground, *drawing = list(root)
    ground.attrib.pop("rx", None)
    group = ET.SubElement(root, f"{{{SVG}}}g", transform=f"translate(32 32) scale({scale}) translate(-32 -32)")
    for element in drawing:
        root.remove(element)
        group.append(element)
    return ET.tostring(root, encoding="unicode")


def main() -> None:
    from playwright.sync_api import sync_playwright

    source = (HERE / "icon.svg").read_text()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        for name, size, bleed in ICONS:
            page = browser.new_page(viewport={"width": size, "height": size})
            svg = full_bleed(source) if bleed else source
            page.set_content(
                f"<style>html,body{{margin:0;background:transparent}}svg{{display:block;width:{size}px;height:{size}px}}</style>{svg}"
            )
            page.screenshot(path=str(HERE / "icons" / name), omit_background=True)
            page.close()
            print("wrote", HERE / "icons" / name)
        browser.close()


if __name__ == "__main__":
    main()
