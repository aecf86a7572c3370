"""Headless Chromium through Selenium for the app flows that need a page's JavaScript and CSS
(Debian's chromium, chromium-driver and python3-selenium; scripts/install-deps.sh)."""

import contextlib
import shutil

CHROMIUM = shutil.which("chromium")
CHROMEDRIVER = shutil.which("chromedriver")


@contextlib.contextmanager
def headless_chromium():
    """A Chrome WebDriver on a fresh headless Chromium, quit on exit. A missing browser is a
    broken set-up (scripts/install-deps.sh installs them), not a reason to skip."""
    assert CHROMIUM and CHROMEDRIVER, "needs Debian's chromium and chromium-driver"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--disable-extensions", "--no-first-run", "--window-size=1200,900"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(60)
        driver.set_script_timeout(30)
        yield driver
    finally:
        driver.quit()


def severe_console_entries(driver):
    """The browser console's errors: failed loads (a 404 asset) and uncaught exceptions."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
