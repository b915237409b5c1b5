"""The HTML report in a real browser: Debian's headless Chromium driven by
Selenium through Debian's chromedriver. Nothing is ever downloaded: the
browser and driver paths are passed explicitly, so Selenium Manager never runs.

Install (Debian/Ubuntu)::

    apt-get install -y chromium chromium-driver     # /usr/bin/chromium, /usr/bin/chromedriver
    pip install selenium==4.52.0

Other locations: set ``CHROMIUM_BINARY`` and ``CHROMEDRIVER``. Without a
browser or driver the tests skip and say which is missing.

The page is opened from disk (``file://``), as a CI artifact would be; the test
checks the matrix and every finding section, that the page logs nothing at
SEVERE level in the browser console, that anchors and copy buttons work, and
saves full-page screenshots (``screenshot-campaign.png``,
``screenshot-synthetic.png``, ``comparison.png``) to the test's pytest tmp dir,
or to ``$GC_ARTIFACTS`` when that is set (a CI artifact folder); never into
the user's ``reports/``.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_report import facts_with, synthetic_run

from conformance.findings import RunResult
from conformance.report import build_report
from conformance.report.views import finding_anchor

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

CHROME_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1400,1000",
)  # fmt: skip


def _find(env: str, candidates: tuple[str, ...]) -> str | None:
    """The first existing executable: ``$env``, then the candidates (paths or names on PATH)."""
    for c in (os.environ.get(env), *candidates):
        if c and (Path(c).is_file() or shutil.which(c)):
            return c if Path(c).is_file() else shutil.which(c)
    return None


CAMPAIGN_ORACLES = ("numpy", "torch", "onnxruntime")


def small_real_run(tmp: Path) -> RunResult:
    """A small real campaign (numpy, torch and onnxruntime in process, a few
    examples per class, 15 s at most); skips if the campaign is not there."""
    try:
        from conformance.campaign import run_campaign
        from conformance.evaluate import close_all
        from conformance.execution import registry
        from conformance.settings import Settings
    except ImportError as exc:
        pytest.skip(f"no campaign to run: {exc}")
    tmp.mkdir(parents=True, exist_ok=True)
    here = registry.available()
    oracles = [registry.get(o, isolated=False) for o in CAMPAIGN_ORACLES if o in here]
    try:
        settings = Settings(seed=0, max_examples=15, budget_s=15)
        return run_campaign(oracles, settings, out_dir=tmp)  # type: ignore[arg-type]  # the registry's oracles are OracleLike
    finally:
        close_all(oracles)


@pytest.fixture(scope="module")
def driver() -> Iterator[WebDriver]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium==4.52.0)")
    from selenium.webdriver.chrome.service import Service

    browser = _find("CHROMIUM_BINARY", ("/usr/bin/chromium", "chromium", "chromium-browser"))
    chromedriver = _find("CHROMEDRIVER", ("/usr/bin/chromedriver", "chromedriver"))
    if browser is None or chromedriver is None:
        missing = "Chromium" if browser is None else "chromedriver"
        pytest.skip(f"no {missing} installed (apt-get install chromium chromium-driver, or set CHROMIUM_BINARY / CHROMEDRIVER)")
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager reach out
    profile = tempfile.mkdtemp(prefix="report-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (*CHROME_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    d = webdriver.Chrome(service=Service(executable_path=chromedriver), options=options)
    try:
        yield d
    finally:
        d.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(driver: WebDriver, index: Path) -> list[dict[str, Any]]:
    """Load the page from disk, wait for its script, return the console log so far."""
    driver.get(index.as_uri())
    assert driver.execute_script("return document.documentElement.getAttribute('data-report-ready')") == "1", "the page's script did not run"
    return driver.get_log("browser")


def severe(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [entry for entry in log if entry["level"] == "SEVERE"]


def artifact_dir(tmp_path: Path) -> Path:
    """Where screenshots go: ``$GC_ARTIFACTS`` if set, else the test's tmp dir."""
    return Path(os.environ["GC_ARTIFACTS"]) if os.environ.get("GC_ARTIFACTS") else tmp_path


def save_screenshot(driver: WebDriver, path: Path) -> Path:
    """A full-page PNG (the window is stretched to the page's height, then restored)."""
    height = driver.execute_script("window.scrollTo(0, 0); return Math.min(document.documentElement.scrollHeight, 12000)")
    driver.set_window_size(1400, height)
    path.parent.mkdir(parents=True, exist_ok=True)
    assert driver.save_screenshot(str(path))
    driver.set_window_size(1400, 1000)
    return path


@pytest.mark.parametrize("source", ["campaign", "synthetic"])
def test_report_opens_from_disk_with_matrix_every_finding_working_links_and_no_console_errors(driver: WebDriver, tmp_path: Path, source: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    run = small_real_run(tmp_path / "campaign") if source == "campaign" else synthetic_run()
    index = build_report([run], tmp_path / "report")
    log = open_page(driver, index)
    assert severe(log) == [], f"console errors: {log}"

    assert driver.find_element(By.ID, "matrix").is_displayed()
    if run.matrix:
        assert driver.find_elements(By.CSS_SELECTOR, "#matrix-table tbody tr")
    sections = driver.find_elements(By.CSS_SELECTOR, "section.finding")
    assert sorted(s.get_attribute("id") or "" for s in sections) == sorted(finding_anchor(f) for f in run.findings)
    for f in run.findings:
        assert driver.find_element(By.ID, finding_anchor(f)).is_displayed()

    links = driver.find_elements(By.CSS_SELECTOR, "#matrix-table .refs a")
    if links:
        target = (links[0].get_attribute("href") or "").split("#", 1)[1]
        links[0].click()
        assert driver.execute_script("return location.hash") == f"#{target}"
    buttons = driver.find_elements(By.CSS_SELECTOR, "button.copy")
    if buttons:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", buttons[0])
        buttons[0].click()  # the clipboard answers asynchronously: wait for the button to say so
        WebDriverWait(driver, 5, poll_frequency=0.05).until(lambda d: buttons[0].text in ("copied", "select + Ctrl-C"))

    assert severe(driver.get_log("browser")) == []
    open_page(driver, index)  # afresh: no :target highlight, scrolled to the top
    shot = save_screenshot(driver, artifact_dir(tmp_path) / f"screenshot-{source}.png")
    assert shot.stat().st_size > 10_000


def test_comparison_report_renders_without_console_errors(driver: WebDriver, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    old, new = synthetic_run(), synthetic_run()
    old.findings = old.findings[1:]
    old.facts = facts_with(torch="2.12.0")
    index = build_report([old, new], tmp_path / "report", compare=True)
    log = open_page(driver, index)
    assert severe(log) == [], f"console errors: {log}"
    assert "Appeared (1)" in driver.find_element(By.ID, "comparison").text
    save_screenshot(driver, artifact_dir(tmp_path) / "comparison.png")
