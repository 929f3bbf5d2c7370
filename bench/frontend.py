"""Figures for the play page: its weight, the time to first interaction, an accessibility check.

    .venv/bin/python bench/frontend.py [--runs 5]

Starts the browser tests' site (uvicorn on a throwaway SQLite database), signs a player up and
opens today's classic game in Debian's Chromium, then prints:

- weight: the HTML, every script and stylesheet the page loads, each gzip-compressed (as a server
  with compression would send it), summed;
- time to first interaction: from navigation start to the moment the board is drawn and takes
  input (the page sets body[data-ready]), median of --runs fresh loads;
- cumulative layout shift of a first visit to the home and play pages, at both sizes;
- a guest's first move: from landing on the home page, at phone size with touch and with nothing
  cached, through tapping Play and then a free pair, to the server's confirmation of that move,
  median and worst of --guests fresh visitors;
- axe-core's violations on the home, play, leaderboard and profile pages (axe-core as pinned in
  requirements-dev.txt, inside axe-playwright-python; tests/browser/test_accessibility.py fails
  on any).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS, running_site  # noqa: E402
from tests.browser.test_accessibility import AXE  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--guests", type=int, default=9)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as work, running_site(Path(work)) as site, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=site.url, locale="it-IT")
        page = context.new_page()
        page.goto("/signup/")
        page.fill("#id_username", "bench")
        page.fill("#id_password", "correct-horse-battery-9")
        page.click("form.stack button[type=submit]")
        page.wait_for_url(site.url + "/")
        page.click("li[data-preset=classic] button.primary")
        page.wait_for_selector("body[data-ready='1']")
        play_url = page.url

        # Weight: the document and the scripts and stylesheets it loaded.
        resources = page.evaluate(
            "performance.getEntriesByType('resource').filter(e => ['script','link','css','other','fetch'].includes(e.initiatorType) || /\\.(js|css)$/.test(e.name)).map(e => e.name)"
        )
        cookies = "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())
        total_raw = total_gz = 0
        rows = []
        for url in [play_url, *sorted(set(r for r in resources if "/ws/" not in r and "/api/" not in r))]:
            request = urllib.request.Request(url, headers={"Cookie": cookies, "Accept-Language": "it"})
            body = urllib.request.urlopen(request).read()
            packed = len(gzip.compress(body, 9))
            total_raw += len(body)
            total_gz += packed
            rows.append((url.replace(site.url, ""), len(body), packed))
        print("play page weight (HTML + JS + CSS):")
        for name, raw, packed in rows:
            print(f"  {name:<40} {raw:>7} B  gzip {packed:>6} B")
        print(f"  {'total':<40} {total_raw:>7} B  gzip {total_gz:>6} B  ({len(rows)} files)")
        # the catalogue at /jsi18n/ is JavaScript too, whatever its name ends with
        assets = [packed for name, _, packed in rows if name.endswith((".js", ".css")) or name.startswith("/jsi18n/")]
        print(f"  {'JS + CSS alone':<40} {'':>7}    gzip {sum(assets):>6} B  (target 30 KB)")

        # Time to first interaction, fresh loads (no HTTP cache) of the play page.
        times = []
        for _ in range(args.runs):
            fresh = browser.new_context(base_url=site.url, locale="it-IT")
            fresh.add_cookies(context.cookies())
            p = fresh.new_page()
            p.goto(play_url, wait_until="commit")
            p.wait_for_selector("body[data-ready='1']")
            times.append(p.evaluate("performance.now()"))
            fresh.close()
        print(
            f"time to first interaction: median {statistics.median(times):.0f} ms, "
            f"min {min(times):.0f} ms, max {max(times):.0f} ms over {len(times)} loads (local server)"
        )
        layout_shift(browser, site.url, context.cookies(), play_url)

        guest_first_move(browser, site.url, args.guests)

        print("accessibility (axe-core, WCAG 2.0/2.1 A and AA rules):")
        checked = browser.new_context(base_url=site.url, locale="it-IT", bypass_csp=True)
        checked.add_cookies(context.cookies())
        page = checked.new_page()
        for path in ["/", play_url.replace(site.url, ""), "/leaderboards/", "/profile/"]:
            page.goto(path)
            page.add_script_tag(content=AXE)
            result = page.evaluate(
                "axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a','wcag2aa','wcag21a','wcag21aa']}})"
                ".then(r => ({violations: r.violations.map(v => [v.id, v.impact, v.nodes.length]), passes: r.passes.length}))"
            )
            found = ", ".join(f"{i} ({impact}, {n})" for i, impact, n in result["violations"]) or "none"
            print(f"  {path:<16} {result['passes']} rules passed; violations: {found}")
        browser.close()


#: The page's cumulative layout shift as the Layout Instability API counts it (shifts right after
#: input excluded), read once the page has been still for a while.
CLS = """new Promise(done => {
  let total = 0;
  new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value; })
    .observe({type: 'layout-shift', buffered: true});
  setTimeout(() => done(total), 1500);
})"""


def layout_shift(browser: Any, url: str, cookies: list[Any], play_url: str) -> None:
    """Cumulative layout shift of a first visit (nothing cached) to the home page, as a visitor and
    as a player, and to the play page, at desktop and phone size."""
    print("cumulative layout shift, first visit (target 0.05):")
    for size, options in (
        ("desktop", {"viewport": {"width": 1280, "height": 800}}),
        ("phone", {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True}),
    ):
        for who, path in (("visitor", "/"), ("player", "/"), ("player", play_url.replace(url, ""))):
            context = browser.new_context(base_url=url, locale="it-IT", **options)
            if who == "player":
                context.add_cookies(cookies)
            page = context.new_page()
            page.goto(path, wait_until="load")
            shift = page.evaluate(CLS)
            print(f"  {size:<8} {who:<8} {path:<16} {shift:.3f}")
            context.close()


def guest_first_move(browser: Any, url: str, visitors: int) -> None:
    """Landing on the home page to the first accepted move, as a new visitor on a phone would."""
    from tests.browser.conftest import CLASSIC_SEED
    from tests.browser.helpers import card, winning_line

    pair = next(move for move in winning_line("classic", CLASSIC_SEED) if "+" in move and "S" not in move)
    times = []
    for _ in range(visitors):
        context = browser.new_context(
            base_url=url, locale="it-IT", viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
        )
        page = context.new_page()
        start = time.perf_counter()  # the browser's own clock restarts with each page: time it from here
        page.goto("/", wait_until="commit")
        page.locator("li[data-preset=classic] button.primary").tap()
        page.wait_for_selector("body[data-ready='1']")
        for ref in pair.split("+"):
            card(page, ref).tap()
        page.wait_for_selector(".play[data-confirmed='1']:not(.pending)")
        times.append((time.perf_counter() - start) * 1000)
        context.close()
    print(
        f"guest, home page to first accepted move (phone, touch): median {statistics.median(times):.0f} ms, "
        f"worst {max(times):.0f} ms over {len(times)} new visitors (target 1500 ms)"
    )


if __name__ == "__main__":
    main()
