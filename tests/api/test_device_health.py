"""Device health in ``GET /api/table`` (docs/api.md, "table state now: ... device health"; docs/api.md).

Without the device conductor (these tests build the app on a bare TableService) no link has
ever been up, and the table says so. With a registry fed as the conductor feeds it, on fake
clocks, every field has an exact value.
"""

from __future__ import annotations

from ..test_device_health import HELLO, Probe, registry

NEVER = {
    "status": "ok",
    "faults": [],
    "link": "never",
    "link_since": None,
    "link_reason": None,
    "last_seen": None,
    "silent_for_ms": None,
    "identity": None,
}


def test_without_a_conductor_no_device_has_ever_connected(api):
    devices = api.get("/api/table", "dealer").json()["devices"]
    assert devices == [{"device": "shuffler", **NEVER}, {"device": "dice-shaker", **NEVER}]


def test_a_fault_open_without_a_conductor_is_shown_and_the_link_still_never(api):
    api.service.device_fault("shuffler", "link-lost", "no HELLO from /dev/ttyUSB0")
    [shuffler, _] = api.get("/api/table").json()["devices"]
    assert shuffler == {
        "device": "shuffler",
        **NEVER,
        "status": "fault",
        "faults": [{"kind": "link-lost", "detail": "no HELLO from /dev/ttyUSB0"}],
    }


def test_device_health_as_the_conductor_reports_it_up_stale_down(api):
    health, clocks = registry()
    api.service.device_health = health
    probe = Probe()
    health.attach("shuffler", probe)
    clocks.advance(2.0)
    probe.last_received = clocks.mono
    health.link_up("shuffler", HELLO)
    clocks.advance(0.75)

    def shuffler() -> dict:
        return api.get("/api/table").json()["devices"][0]

    up = {
        "device": "shuffler",
        "status": "ok",
        "faults": [],
        "link": "up",
        "link_since": "2025-03-01T20:00:02Z",
        "link_reason": None,
        "last_seen": "2025-03-01T20:00:02Z",
        "silent_for_ms": 750,
        "identity": {
            "model": "SHF-7",
            "serial_number": "A1234",
            "firmware": "2.3.1",
            "protocol": "1.0",
            "session_id": 0xCAFEF00D,
        },
    }
    assert shuffler() == up

    clocks.advance(2.5)  # 3.25 s since the last frame, the link's loss window is 3 s: stale
    assert shuffler() == {**up, "status": "stale", "silent_for_ms": 3250}

    health.link_down("shuffler", "no frame from the device for 3.010 s")
    api.service.device_fault("shuffler", "link-lost", "no frame from the device for 3.010 s")
    clocks.advance(1.0)
    assert shuffler() == {
        **up,
        "status": "fault",
        "link": "down",
        "faults": [{"kind": "link-lost", "detail": "no frame from the device for 3.010 s"}],
        "link_since": "2025-03-01T20:00:05.250000Z",
        "link_reason": "no frame from the device for 3.010 s",
        "silent_for_ms": 4250,
    }


def test_the_openapi_document_describes_the_health_fields(api):
    schemas = api.client.get("/openapi.json").json()["components"]["schemas"]
    fields = schemas["DeviceHealthPublic"]["properties"]
    assert fields["link"]["enum"] == ["up", "down", "never"]
    assert fields["status"]["enum"] == ["ok", "stale", "fault"]
    for name in ("status", "link", "link_since", "link_reason", "last_seen", "silent_for_ms", "identity"):
        assert fields[name].get("description"), name
    assert set(schemas["DeviceIdentityPublic"]["properties"]) == {
        "model",
        "serial_number",
        "firmware",
        "protocol",
        "session_id",
    }
