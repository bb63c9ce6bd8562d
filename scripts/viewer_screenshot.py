"""Draw docs/viewer.png, the README's picture of the run viewer, in headless Chromium.

    python scripts/viewer_screenshot.py [OUT.png]

Evaluates the reference and random policies on capability-v1's frozen suite into a temporary
folder, writes the report page, opens one task's runs side by side and takes the screenshot.
Needs Debian's chromium and chromium-driver (scripts/install-browser) and selenium.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

TASK = "capability-v1/T4/buyer/zopa/01"


def main(out: Path) -> None:
    """Evaluate, report, open :data:`TASK` and save the screenshot to ``out``."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for policy in ("reference", "random"):
            subprocess.run(["acworld", "eval", "capability-v1", "--policy", policy, "--out", root / policy,
                            "--quiet"], check=True)
        page = root / "report.html"
        subprocess.run(["acworld", "report", root / "reference", root / "random", "--html", page], check=True,
                       stdout=subprocess.DEVNULL)
        opts = webdriver.ChromeOptions()
        opts.binary_location = shutil.which("chromium") or "chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1500,1300"):
            opts.add_argument(arg)
        drv = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "chromedriver"), options=opts)
        try:
            drv.get(page.as_uri())
            drv.find_element(By.ID, "task-filter").send_keys("buyer/zopa")
            drv.find_element(By.CSS_SELECTOR, f'#tasks tr[data-task="{TASK}"]').click()
            drv.execute_script("document.getElementById('tasks-title').scrollIntoView()")
            out.parent.mkdir(parents=True, exist_ok=True)
            drv.save_screenshot(str(out))
        finally:
            drv.quit()
    print(f"wrote {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/viewer.png"))
