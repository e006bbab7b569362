"""Take the README's screenshots (docs/images/) from a real ``run --simulate`` daemon.

    .venv/bin/python scripts/screenshots.py [--out docs/images]

A daemon with both device simulators and the auto-dealer runs on a fresh SQLite folder; a pit
user is added with ``users add``; Debian's headless Chromium (the browser tests' own, installed
by scripts/setup-test-host.sh) signs in once and draws the live table and a settled round's
replay. Nothing here is staged: the pages show what the daemon dealt.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMEDRIVER = "/usr/bin/chromedriver"
CLI = [sys.executable, "-m", "table_controller"]
SHOTS = {"live-table.png": "the live table", "round-replay.png": "a settled round's replay"}


def start_daemon(data_dir: Path) -> tuple[subprocess.Popen[str], str]:
    """The daemon and the address it printed (its API on any free port)."""
    daemon = subprocess.Popen(
        [*CLI, "run", "--simulate", "--data-dir", str(data_dir), "--port", "0", "--step-delay", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert daemon.stdout is not None
    for line in daemon.stdout:
        found = re.search(r"(http://127\.0\.0\.1:\d+)", line)
        if found:
            return daemon, found.group(1)
    raise SystemExit(f"the daemon printed no address (exit {daemon.wait()})")


def pit_token(data_dir: Path) -> str:
    printed = subprocess.run(
        [*CLI, "users", "add", "pat", "--role", "pit", "--data-dir", str(data_dir)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return printed.split()[-1]


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,2000"):
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def fit(driver: webdriver.Chrome) -> None:
    """The window as tall as the page, so the picture ends where the page does."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, min(int(height) + 20, 3000))


def shoot(base: str, token: str, out: Path) -> None:
    driver = browser()
    wait = WebDriverWait(driver, 120, poll_frequency=0.2)
    try:
        driver.get(f"{base}/ui/")
        driver.find_element(By.ID, "token").send_keys(token)
        driver.find_element(By.ID, "go").click()
        wait.until(lambda d: d.current_url.endswith("/ui/table.html"))
        # a settled round: every pile face up, each hand set, what each wager paid
        wait.until(lambda d: d.find_element(By.ID, "phase").text == "settled")
        round_id = driver.find_element(By.ID, "round-id").text
        time.sleep(0.3)  # the page's last redraw of the round
        fit(driver)
        driver.save_screenshot(str(out / "live-table.png"))
        driver.get(f"{base}/ui/round.html?id={round_id}")
        wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "ol li")) >= 8)
        time.sleep(0.5)
        fit(driver)
        driver.save_screenshot(str(out / "round-replay.png"))
    finally:
        driver.quit()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder)
        daemon, base = start_daemon(data_dir)
        try:
            shoot(base, pit_token(data_dir), args.out)
        finally:
            daemon.terminate()
            daemon.wait(30)
    for name, what in SHOTS.items():
        print(f"{args.out / name}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
