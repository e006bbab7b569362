"""The shuffler driver: commands in, typed events out, over any pyserial URL (shuffler.md).

    driver = ShufflerDriver.from_url("/dev/ttyUSB0")        # or socket://, rfc2217://, simshuffler://
    async with driver:
        driver.shuffle(53)
        async for event in driver.events(): ...

Command methods only queue the command and return its id; the events that answer it carry
that ``command_id``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from ..base import Driver, DriverEvent, Journal
from ..framing import Frame
from ..link import HostIdentity, LinkConfig
from ..transport import SerialTransport, Trace
from . import codec
from .msgtypes import ShufflerMsg


class ShufflerDriver(Driver):
    """The shuffler with card reader."""

    name: ClassVar[str] = "shuffler"

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        link_config: LinkConfig | None = None,
        identity: HostIdentity | None = None,
        url_packages: Sequence[str] = (),
        baudrate: int = 115200,
        trace: Trace | None = None,
        journal: Journal | None = None,
    ) -> ShufflerDriver:
        """A driver on ``serial_for_url(url)``; ``url_packages`` lists packages with URL handlers."""
        transport = SerialTransport(url, baudrate=baudrate, url_packages=url_packages, trace=trace)
        return cls(transport, link_config=link_config, identity=identity, journal=journal)

    def shuffle(self, deck_size: int) -> int:
        """Shuffle the deck in the machine, which must count ``deck_size`` (53 or 54) cards."""
        return self.send_command(ShufflerMsg.SHUFFLE, codec.encode_shuffle(deck_size))

    def deal(self) -> int:
        """Deal seven piles of seven, then report the unused cards."""
        return self.send_command(ShufflerMsg.DEAL, codec.encode_deal())

    def check_deck(self, deck_size: int) -> int:
        """Scan the whole deck: which cards are missing or duplicated."""
        return self.send_command(ShufflerMsg.DECK_CHECK, codec.encode_deck_check(deck_size))

    def request_status(self) -> int:
        return self.send_command(ShufflerMsg.STATUS_REQUEST, codec.encode_status_request())

    def decode_message(self, msg_type: int, msg_id: int, body: bytes, frame: Frame) -> Iterable[DriverEvent]:
        return (codec.decode_event(msg_type, msg_id, body, raw=frame.raw),)
