"""A device that always answers HELLO with another protocol major (link.md 4.1).

It answers with its own HELLO and stays waiting; the controller refuses it. The controller
must back off as reconnects do (link.md 6: doubling, capped), raise one alert
(``protocol-version``), log the same refusal once rather than three lines per HELLO, and
connect as soon as the device speaks the same major.
"""

from __future__ import annotations

import itertools

from structlog.testing import capture_logs

from table_controller.conductor import adapter as adapter_module

from .rig import HOST_LINK, alerts, build, devices, running, until


async def test_a_device_of_another_major_gets_backoff_one_alert_and_few_log_lines(engine, monkeypatch):
    devs = devices()
    with devs.shuffler.lock:
        devs.shuffler.link.protocol = (2, 0)
    waits: list[float] = []
    real_wait = adapter_module.wait_or_stop

    async def recording_wait(stop, seconds):
        waits.append(seconds)
        await real_wait(stop, seconds)

    monkeypatch.setattr(adapter_module, "wait_or_stop", recording_wait)
    try:
        table = build(engine, devs)
        with capture_logs() as logs:
            async with running(table):
                await until(lambda: devs.shuffler.link.stats.hellos >= 6, timeout=20)
                assert ("shuffler", "protocol-version") in table.service.faults
                with devs.shuffler.lock:
                    devs.shuffler.link.protocol = (1, 0)  # new firmware
                await until(lambda: ("shuffler", "protocol-version") not in table.service.faults, timeout=10)
    finally:
        devs.close()
    start = waits[:5]
    assert start[0] == 0.05  # the rig's retry_interval ...
    for before, after in itertools.pairwise(start):  # ... doubling up to the link's backoff_max
        assert after == min(before * HOST_LINK.backoff_factor, max(HOST_LINK.backoff_max, 0.05))
    refused = [a for a in alerts(engine) if a.get("fault") == "protocol-version"]
    assert len(refused) == 1
    for name in ("device.unreachable", "link.version_mismatch", "driver.start_failed"):
        assert len([entry for entry in logs if entry["event"] == name]) <= 1, name
