"""Device health as the conductor keeps it (docs/api.md, "device health"), on the in-process simulators.

The production drivers and ports feed ``TableService.device_health``; the API's view of the
table (``api.views.devices``) reads it. Before the devices answer the links have ``never`` been
up; once they have said hello they are ``up`` with the last frame seen during the run; a
shuffler that is switched off, or whose cable is pulled, is ``down`` (and a ``link-lost`` fault
is open) until it answers again.
"""

from __future__ import annotations

from datetime import UTC, datetime

from table_controller.api.views import devices as device_views
from table_controller.table.device_health import DeviceIdentity, LinkState

from .rig import build, devices, running, until

DEVICES = ("shuffler", "dice-shaker")


def views(table) -> dict[str, dict]:
    return {v.device: v.model_dump() for v in device_views(table.service)}


async def test_devices_are_up_with_frames_seen_then_a_switched_off_shuffler_is_down(engine):
    devs = devices()
    try:
        table = build(engine, devs, auto=False)  # no rounds: the devices only talk (heartbeats)
        health = table.service.device_health
        assert health.snapshot("shuffler").link is LinkState.NEVER
        assert [v["link"] for v in views(table).values()] == ["never", "never"]
        started = datetime.now(UTC)
        async with running(table):
            await until(lambda: all(health.snapshot(d).link is LinkState.UP for d in DEVICES))
            stats = table.conductor.shuffler.driver.stats
            frames = stats.frames_received
            await until(lambda: stats.frames_received > frames + 2)  # a few heartbeats
            now = datetime.now(UTC)
            shuffler = health.snapshot("shuffler")
            assert started <= shuffler.link_since <= shuffler.last_seen <= now
            assert shuffler.identity == DeviceIdentity(
                "SIM-SHUFFLER",
                "SIM0001",
                "1.0.0",
                "1.1",
                devs.shuffler.link.session_id,  # link.md 4.1
            )
            shaker = health.snapshot("dice-shaker")
            assert shaker.link is LinkState.UP and started <= shaker.last_seen <= now
            assert shaker.identity is not None and shaker.identity.serial_number == "DS3-SIM-0001"
            shown = views(table)
            assert [(v["device"], v["status"], v["link"], v["faults"]) for v in shown.values()] == [
                ("shuffler", "ok", "up", []),
                ("dice-shaker", "ok", "up", []),
            ]
            assert shown["shuffler"]["identity"]["model"] == "SIM-SHUFFLER"

            devs.shuffler.stop()  # switched off: its port is gone, it says nothing more
            await until(lambda: health.snapshot("shuffler").link is LinkState.DOWN)
            down = health.snapshot("shuffler")
            assert down.link_since >= shuffler.link_since and down.reason
            assert down.last_seen >= shuffler.last_seen  # the last frame before it went quiet
            await until(lambda: views(table)["shuffler"]["status"] == "fault")
            shown = views(table)["shuffler"]
            assert (shown["link"], [f["kind"] for f in shown["faults"]]) == ("down", ["link-lost"])
            assert health.snapshot("dice-shaker").link is LinkState.UP
    finally:
        devs.close()
    closed = health.snapshot("dice-shaker")
    assert (closed.link, closed.reason) == (LinkState.DOWN, "closed by the controller")


async def test_a_cut_cable_is_down_then_up_again_with_a_new_since(engine):
    devs = devices()
    try:
        table = build(engine, devs, auto=False)
        health = table.service.device_health
        async with running(table):
            await until(lambda: health.snapshot("shuffler").link is LinkState.UP)
            first = health.snapshot("shuffler")
            # The link-lost fault is chained (a commit) after the link is seen down: the cable
            # stays out long enough for a loaded machine to show it before it is back.
            devs.shuffler.cut_link(3.0)
            await until(lambda: health.snapshot("shuffler").link is LinkState.DOWN)
            down = health.snapshot("shuffler")
            assert down.link_since > first.link_since
            await until(lambda: views(table)["shuffler"]["status"] == "fault")
            await until(lambda: health.snapshot("shuffler").link is LinkState.UP)
            again = health.snapshot("shuffler")
            assert again.link_since > down.link_since and again.reason is None
            assert again.identity == first.identity  # the same machine, the same session
            await until(lambda: views(table)["shuffler"]["status"] == "ok")
    finally:
        devs.close()


async def test_a_driver_that_stops_under_the_controller_opens_a_link_lost_fault(engine):
    """Its events end without the controller closing it (its reader thread died): nothing
    watches the device any more, so play stops (a link-lost fault) until it is restarted."""
    devs = devices()
    try:
        table = build(engine, devs, auto=False)
        health = table.service.device_health
        async with running(table):
            await until(lambda: health.snapshot("shuffler").link is LinkState.UP)
            assert table.service.faults == {}
            await table.conductor.shuffler.driver.stop()  # not through the port: as a crash would
            await until(lambda: views(table)["shuffler"]["status"] == "fault")
            shown = views(table)["shuffler"]
            assert (shown["link"], shown["link_reason"]) == ("down", "the driver stopped")
            assert shown["faults"] == [
                {"kind": "link-lost", "detail": "the driver stopped: nothing reads the device"}
            ]
            assert views(table)["dice-shaker"]["status"] == "ok"
    finally:
        devs.close()
