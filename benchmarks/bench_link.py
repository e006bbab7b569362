"""Frames per second through the framer and the shuffler driver over a pty, against raw pty throughput.

    .venv/bin/python -m benchmarks.bench_link [--frames 2000]    (or python benchmarks/bench_link.py)

All figures come from the same run, on the same kind of frame (a shuffler PILE event, 30 bytes):

- raw pty, one way: the frames' bytes written on the master, read on the slave, nothing decoded;
- raw pty, ping-pong: each frame answered with a 10-byte ACK before the next is sent (the
  ceiling for a stop-and-wait link, which ours is: one unacknowledged event in flight);
- framer: ``FrameDecoder.feed`` over the same bytes in memory;
- driver: events sent by the simulator's device link (``simulators/device_link.py``) on the
  pty master, decoded, ACKed and delivered by ``ShufflerDriver`` to ``driver.events()``.

It prints each rate and the driver's ratio to both raw figures.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import select
import struct
import sys
import threading
import time
import tty
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import structlog

from drivers.framing import FrameDecoder, encode_frame
from drivers.link import LinkConfig
from drivers.shuffler.driver import ShufflerDriver
from drivers.shuffler.events import PileRead
from drivers.shuffler.msgtypes import ShufflerMsg
from simulators.channels import PtyChannel
from simulators.device_link import DeviceLink, DeviceLinkConfig, SimulatedIdentity
from simulators.runner import SimulatorRunner

PILE_BODY = struct.pack(">IBB", 1, 1, 7) + b"7h5d9s4cTh4d2s"


def pile_frame(n: int) -> bytes:
    return encode_frame(n & 0xFF, ShufflerMsg.PILE, struct.pack(">I", n + 1) + PILE_BODY)


def raw_one_way(frames: int) -> float:
    """Frames per second: bytes written on the master, all read back on the slave."""
    master, slave = os.openpty()
    tty.setraw(slave)
    data = b"".join(pile_frame(n) for n in range(frames))
    try:
        start = time.perf_counter()
        writer = threading.Thread(target=_write_all, args=(master, data))
        writer.start()
        received = 0
        while received < len(data):
            received += len(os.read(slave, 65536))
        elapsed = time.perf_counter() - start
        writer.join()
    finally:
        os.close(master)
        os.close(slave)
    return frames / elapsed


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view[:4096]) :]


def raw_ping_pong(frames: int) -> float:
    """Frames per second when each frame waits for a 10-byte answer (no decoding either side)."""
    master, slave = os.openpty()
    tty.setraw(slave)
    frame = pile_frame(0)
    ack = encode_frame(0, 0x02, b"\x00\x00\x00\x01")
    stop = threading.Event()

    def echo() -> None:  # the "host": reads a frame's worth, answers an ACK
        pending = 0
        while not stop.is_set():
            if not select.select([slave], [], [], 0.05)[0]:
                continue
            pending += len(os.read(slave, 65536))
            while pending >= len(frame):
                pending -= len(frame)
                os.write(slave, ack)

    host = threading.Thread(target=echo)
    host.start()
    try:
        start = time.perf_counter()
        for _ in range(frames):
            os.write(master, frame)
            got = 0
            while got < len(ack):
                got += len(os.read(master, 64))
        elapsed = time.perf_counter() - start
    finally:
        stop.set()
        host.join()
        os.close(master)
        os.close(slave)
    return frames / elapsed


def framer_only(frames: int) -> float:
    data = b"".join(pile_frame(n) for n in range(frames))
    decoder = FrameDecoder()
    start = time.perf_counter()
    decoded = 0
    for offset in range(0, len(data), 4096):
        decoded += len(decoder.feed(data[offset : offset + 4096]))
    elapsed = time.perf_counter() - start
    assert decoded == frames
    return frames / elapsed


async def driver_over_pty(frames: int) -> float:
    """Events per second delivered by the driver, the device link sending them over a pty."""
    lock = threading.RLock()
    channel = PtyChannel()
    link = DeviceLink(
        SimulatedIdentity("BENCH", "0", "0"), lambda *_: None, config=DeviceLinkConfig(ack_timeout=0.5)
    )
    runner = SimulatorRunner(link, channel, lock=lock, poll_interval=0.001, name="bench-device")
    runner.start()
    config = LinkConfig(heartbeat_interval=0.5, poll_interval=0.001, ack_timeout=0.5)
    driver = ShufflerDriver.from_url(channel.tty_path, link_config=config)
    try:
        async with driver:
            await driver.next_event(2)  # LinkUp
            start = time.perf_counter()
            with lock:
                for _ in range(frames):
                    link.send_event(ShufflerMsg.PILE, PILE_BODY)
            received = 0
            async for event in driver.events():
                if isinstance(event, PileRead):
                    received += 1
                    if received == frames:
                        break
            elapsed = time.perf_counter() - start
    finally:
        runner.stop()
    return frames / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=2000)
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    n = args.frames
    one_way = raw_one_way(n * 10)
    ping_pong = raw_ping_pong(n)
    framer = framer_only(n * 10)
    driver = asyncio.run(driver_over_pty(n))
    print(f"frame size                 {len(pile_frame(0))} bytes (shuffler PILE event)")
    print(f"raw pty, one way           {one_way:12,.0f} frames/s")
    print(f"raw pty, ping-pong         {ping_pong:12,.0f} frames/s")
    print(f"framer only (in memory)    {framer:12,.0f} frames/s")
    print(f"framer + driver over pty   {driver:12,.0f} frames/s  ({n} events, each ACKed)")
    print(f"ratio driver / raw one-way   {driver / one_way:10.4f}")
    print(f"ratio driver / raw ping-pong {driver / ping_pong:10.4f}")


if __name__ == "__main__":
    main()
