"""The tour's report in a real browser: headless Debian Chromium driven by playwright.

The page must open from disk with no console error and no request to anywhere, draw its
charts (canvases of real size), name the run's jobs, and switch the ClassAd flow to
another job from its menu. A screenshot is saved to a temporary directory (its path is
printed); with CONDORSIM_REPORT_SCREENSHOT=FILE a copy goes to FILE as well
(docs/report-tour.png is made that way).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.pool

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# bokeh draws inside shadow roots: walk them to find every canvas and its size
CANVASES = """() => { const out = []; const walk = (root) => {
  for (const el of root.querySelectorAll('*')) {
    if (el.tagName === 'CANVAS') { const r = el.getBoundingClientRect(); out.push([r.width, r.height]); }
    if (el.shadowRoot) walk(el.shadowRoot);
  } }; walk(document); return out; }"""


def test_the_tour_s_report_opens_and_draws_in_chromium(
        tour_run: Path, tmp_path_factory: pytest.TempPathFactory,
        capsys: pytest.CaptureFixture[str]) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no {CHROMIUM}: `make test` installs Debian's chromium package")
    from playwright.sync_api import expect, sync_playwright

    shot = tmp_path_factory.mktemp("screenshots") / "report-tour.png"
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto((tour_run / "report.html").as_uri(), wait_until="load")
            # the slot Gantt, the job Gantt, three charts over time and the flow diagram
            page.wait_for_function(
                f"() => ({CANVASES})().filter(([w, h]) => w > 300 && h > 100).length >= 6",
                timeout=30_000)
            cells = page.locator("#job-table td.mono b")
            assert cells.all_inner_texts() == ["1.0", "2.0", "3.0"]
            flow = page.locator("#flow")
            expect(flow.get_by_text("Job 1.0 of alice")).to_be_visible()
            flow.locator("select").select_option(index=1)  # playwright sees into shadow roots
            expect(flow.get_by_text("Job 2.0 of alice")).to_be_visible()
            page.wait_for_timeout(300)  # let the resized diagram settle before the picture
            page.locator("#slots").scroll_into_view_if_needed()
            page.screenshot(path=str(shot))
        finally:
            browser.close()
    with capsys.disabled():
        print(f"\nscreenshot of the tour's report: {shot}")
    copy = os.environ.get("CONDORSIM_REPORT_SCREENSHOT")
    if copy:
        shutil.copyfile(shot, copy)
    assert errors == []
    assert [u for u in requests if not u.startswith("file:")] == []
    assert shot.stat().st_size > 50_000
