"""The interactive API documentation, offline (api_docs.py, docs/api.md): Swagger UI at /docs
and ReDoc at /redoc draw this API's operations in a real browser from assets the controller
serves itself (no CDN), under a CSP that allows no inline script."""

from __future__ import annotations

import re

from selenium.webdriver.common.by import By

from table_controller.api.security_headers import DOCS_CONTENT_SECURITY_POLICY

from ..browser import csp_violations
from .conftest import served_api
from .test_pages_browser import text, wait_for

EXTERNAL = re.compile(r"""(src|href)=["']?(https?:)?//""")


def test_docs_and_redoc_are_served_offline_with_their_assets(tmp_path):
    with served_api(tmp_path) as (_, _base, api):
        client = api.client
        for path in ("/docs", "/redoc"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert not EXTERNAL.search(page.text), f"{path} loads something from another host"
            assert page.headers["content-security-policy"] == DOCS_CONTENT_SECURITY_POLICY
            assert "script-src 'self';" in DOCS_CONTENT_SECURITY_POLICY  # never an inline script
            assert "<script>" not in page.text
            for asset in re.findall(r"""(?:src|href)="([^"]+)\"""", page.text):
                assert client.get(asset).status_code == 200, f"{path}: {asset}"
        assert client.get("/openapi.json").json()["info"]["title"] == "Pai Gow Poker table t1"


def test_swagger_ui_and_redoc_draw_the_api_in_a_browser(tmp_path, browser):
    with served_api(tmp_path) as (_, base, _api):
        browser.get(f"{base}/docs")
        wait_for(browser, lambda d: "Pai Gow Poker table t1" in text(d, ".swagger-ui .info .title"))
        operations = browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
        assert any(o.get_attribute("data-path") == "/api/table" for o in operations)
        assert csp_violations(browser) == []
        browser.get(f"{base}/redoc")
        wait_for(browser, lambda d: "Pai Gow Poker table t1" in text(d, "h1"))
        assert browser.find_elements(By.CSS_SELECTOR, "[data-section-id^='tag/']")
        # nothing blocked: not even ReDoc's own "by Redocly" logo, which it would ask of a CDN
        assert "API docs by Redocly" in text(browser, "a[href='https://redocly.com/redoc/']")
        assert csp_violations(browser) == []
