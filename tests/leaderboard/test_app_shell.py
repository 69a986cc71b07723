"""The installable web app's files, over the app (``TestClient``): the
manifest says what a browser needs to install it, each icon it lists is a
PNG of its size (the maskable ones keep their drawing inside the safe zone,
the others are round on a transparent ground), the favicon is an ICO, the
service worker is served from the root with every file of its shell
answering, and every page links the manifest and registers the worker under
a policy that allows both."""

from __future__ import annotations

import json
import math
import re
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from leaderboard.database import Database
from leaderboard.live_hub import LiveHub
from leaderboard.web.app import create_app
from leaderboard.web.app_icons import BACKGROUND, MASKABLE_SAFE_RADIUS, icon_png
from leaderboard.web.app_shell import STATIC_DIR
from tests.leaderboard.web_seed import VENUES

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    database = Database(f"sqlite:///{tmp_path / 'leaderboard.sqlite3'}")
    database.migrate()
    with TestClient(create_app(database, LiveHub(), VENUES)) as test_client:
        yield test_client
    database.dispose()


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and RGBA rows of a PNG as the app writes them (8-bit
    RGBA, no filter): a reader of its own, so the test checks the bytes."""
    assert data.startswith(PNG_SIGNATURE)
    at, chunks = len(PNG_SIGNATURE), {}
    idat = b""
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        kind, body = data[at + 4 : at + 8], data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length : at + 12 + length])
        assert crc == zlib.crc32(kind + body), kind
        chunks[kind] = body
        idat += body if kind == b"IDAT" else b""
        at += 12 + length
    width, height, depth, colour, *_ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert (depth, colour) == (8, 6) and b"IEND" in chunks
    raw = zlib.decompress(idat)
    stride = 1 + 4 * width
    rows = [raw[y * stride + 1 : (y + 1) * stride] for y in range(height)]
    assert all(raw[y * stride] == 0 for y in range(height))
    return width, height, rows


def pixel(rows: list[bytes], x: int, y: int) -> tuple[int, ...]:
    return tuple(rows[y][4 * x : 4 * x + 4])


def test_the_manifest_says_what_a_browser_needs_to_install_the_app(client: TestClient) -> None:
    response = client.get("/manifest.webmanifest")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/manifest+json")
    manifest = json.loads(response.text)
    assert manifest["name"] == "Oche leaderboard" and manifest["short_name"] == "Oche"
    assert manifest["display"] == "standalone"
    assert manifest["start_url"].startswith(manifest["scope"])
    assert re.fullmatch(r"#[0-9a-f]{6}", manifest["theme_color"])
    assert manifest["background_color"] == manifest["theme_color"]
    listed = {(icon["sizes"], icon["purpose"]) for icon in manifest["icons"]}
    assert listed == {(f"{n}x{n}", purpose) for n in (192, 512) for purpose in ("any", "maskable")}
    for icon in manifest["icons"]:
        assert "//" not in icon["src"]  # served here, no CDN
        answer = client.get(icon["src"])
        assert answer.status_code == 200 and answer.headers["content-type"] == "image/png"
        width, height, _ = png_pixels(answer.content)
        assert f"{width}x{height}" == icon["sizes"], icon["src"]


@pytest.mark.parametrize("size", [192, 512])
def test_a_maskable_icon_draws_only_inside_the_safe_zone(size: int) -> None:
    _, _, rows = png_pixels(icon_png(size, "maskable"))
    centre = size / 2
    outside = [
        pixel(rows, x, y)
        for y in range(size)
        for x in range(size)
        if math.hypot(x + 0.5 - centre, y + 0.5 - centre) > MASKABLE_SAFE_RADIUS * size
    ]
    assert set(outside) == {BACKGROUND}  # full bleed, opaque, nothing of the target
    assert pixel(rows, size // 2, size // 2) != BACKGROUND  # the bull is drawn


def test_an_any_icon_is_a_round_badge_on_a_transparent_ground() -> None:
    _, _, rows = png_pixels(icon_png(192, "any"))
    assert pixel(rows, 0, 0)[3] == 0 and pixel(rows, 191, 191)[3] == 0
    assert pixel(rows, 96, 2)[3] == 255 and pixel(rows, 96, 96)[3] == 255


def test_an_icon_the_manifest_does_not_list_is_a_404(client: TestClient) -> None:
    assert client.get("/icons/any-64.png").status_code == 404
    assert client.get("/icons/round-192.png").status_code == 422
    with pytest.raises(ValueError, match="16 to 1024 px"):
        icon_png(4096)


def test_the_favicon_is_an_ico_holding_a_png(client: TestClient) -> None:
    response = client.get("/favicon.ico")
    assert response.status_code == 200 and response.headers["content-type"] == "image/x-icon"
    reserved, kind, count = struct.unpack("<HHH", response.content[:6])
    assert (reserved, kind, count) == (0, 1, 1)
    width, height, *_, size, offset = struct.unpack("<BBBBHHII", response.content[6:22])
    png = response.content[offset : offset + size]
    assert png_pixels(png)[:2] == (width, height) == (32, 32)


def test_the_service_worker_is_served_from_the_root_and_its_shell_is_all_there(
    client: TestClient,
) -> None:
    response = client.get("/sw.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["cache-control"] == "no-cache"  # an update reaches every phone
    shell = re.search(r"const SHELL = \[(.*?)\];", response.text, re.S)
    assert shell is not None
    paths = [*re.findall(r'"(/[^"]*)"', shell.group(1)), "/offline"]
    assert "/static/leaderboard.css" in paths
    for path in paths:
        assert client.get(path).status_code == 200, path
    assert response.content == (STATIC_DIR / "sw.js").read_bytes()


def test_the_offline_page_says_reconnecting_and_tries_again(client: TestClient) -> None:
    page = client.get("/offline").text
    assert "<h1" in page and "Reconnecting" in page
    assert 'src="/static/offline.js"' in page
    assert 'role="status"' in page


def test_every_page_links_the_manifest_and_registers_the_worker(client: TestClient) -> None:
    for path in ("/", "/offline", "/players/Nobody", "/join/pub?code=ABCDEF"):
        response = client.get(path)
        assert response.headers["content-type"].startswith("text/html"), path
        page = response.text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page, path
        assert '<script src="/static/app.js" defer></script>' in page, path
        assert '<html lang="en">' in page, path
        policy = response.headers["content-security-policy"]
        assert "manifest-src 'self'" in policy and "worker-src 'self'" in policy, path
