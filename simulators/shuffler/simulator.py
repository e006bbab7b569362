"""``ShufflerSimulator``: the shuffler model behind a device link, served on a channel by a thread.

    with ShufflerSimulator(seed=7, faults=["jam"]) as sim:      # in memory
        driver = ShufflerDriver.from_url(sim.url, url_packages=["simulators.shuffler"])
    with ShufflerSimulator(channel=PtyChannel()) as sim:        # sim.tty_path
    with ShufflerSimulator(channel=SocketChannel()) as sim:     # sim.address

A running simulator is found by its URL (``simshuffler://<name>``) through a weak registry:
an entry lives exactly as long as the simulator, so there is nothing for a test to clean up.
"""

from __future__ import annotations

import itertools
import random
import secrets
import threading
import weakref
from collections.abc import Iterable

from drivers.shuffler.msgtypes import ShufflerMsg

from ..channels import DeviceChannel, MemoryChannel, PtyChannel, SocketChannel
from ..device_link import DeviceLink, DeviceLinkConfig, SimulatedIdentity
from ..faults import LINK_FAULTS, SHUFFLER_FAULTS, Fault, LinkFaultInjector, parse_faults
from ..runner import SimulatorRunner
from . import model as shuffler_model

SCHEME = "simshuffler"
LINK_FAULT_PILE = 3  # link faults strike the first transmission of pile 3 of the first deal

_running: weakref.WeakValueDictionary[str, ShufflerSimulator] = weakref.WeakValueDictionary()
_names = itertools.count(1)


def find_simulator(name: str) -> ShufflerSimulator | None:
    """The running simulator named ``name`` (the host part of its URL), if any."""
    return _running.get(name)


def _pile_three(msg_type: int, body: bytes) -> bool:
    return msg_type == ShufflerMsg.PILE and len(body) > 4 and body[4] == LINK_FAULT_PILE


class ShufflerSimulator:
    """A simulated shuffler with card reader."""

    def __init__(
        self,
        *,
        seed: int | None = None,
        faults: Iterable[str] | str | None = None,
        jokers: int = 1,
        pile_interval: float = 0.0,
        cut_duration: float = 0.3,
        link_config: DeviceLinkConfig | None = None,
        channel: DeviceChannel | None = None,
        identity: SimulatedIdentity | None = None,
        name: str | None = None,
    ) -> None:
        self.seed = seed
        self.faults = parse_faults(faults, SHUFFLER_FAULTS)
        self.jokers = jokers
        self.pile_interval = pile_interval
        self.cut_duration = cut_duration
        self.link_config = link_config or DeviceLinkConfig()
        self.identity = identity or SimulatedIdentity(
            model="SIM-SHUFFLER", serial_number="SIM0001", firmware="1.0.0"
        )
        self.channel = channel or MemoryChannel()
        self.name = name or f"shuffler-{next(_names)}-{secrets.token_hex(3)}"
        self.lock = threading.RLock()
        self.boots = 0
        self.link, self.model = self._power_on()
        self.runner = SimulatorRunner(
            self.link, self.channel, lock=self.lock, tick=self._tick, name=f"sim-{self.name}"
        )
        self._started = False

    # -- lifecycle ------------------------------------------------------------------------------

    def _power_on(self) -> tuple[DeviceLink, shuffler_model.ShufflerModel]:
        self.boots += 1
        injectors = [
            LinkFaultInjector(fault, _pile_three, on_cut=self._cut)
            for fault in sorted(self.faults & LINK_FAULTS)
        ]
        link = DeviceLink(
            self.identity,
            self._on_command,
            config=self.link_config,
            injectors=injectors,
            resend_refused=Fault.PROTOCOL_1_0 in self.faults,
        )
        rng = random.Random(self.seed) if self.seed is not None else secrets.SystemRandom()
        machine = shuffler_model.ShufflerModel(
            emit=link.send_event,
            rng=rng,
            faults=self.faults,
            jokers=self.jokers,
            pile_interval=self.pile_interval,
        )
        machine.power_on()
        return link, machine

    def start(self) -> ShufflerSimulator:
        if not self._started:
            self._started = True
            _running[self.name] = self
            self.runner.start()
        return self

    def stop(self) -> None:
        if self._started:
            self._started = False
            _running.pop(self.name, None)
            self.runner.stop()
        else:
            self.channel.close()

    def __enter__(self) -> ShufflerSimulator:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def restart(self) -> None:
        """A power cycle: a new session, every unacknowledged event forgotten."""
        with self.lock:
            self.link, self.model = self._power_on()
            self.link.write = self.runner.link.write
            self.runner.link = self.link

    # -- where to reach it ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The pyserial URL of this simulator (in-memory channel only)."""
        if not isinstance(self.channel, MemoryChannel):
            raise TypeError("only an in-memory simulator has a simshuffler:// URL")
        return f"{SCHEME}://{self.name}"

    @property
    def tty_path(self) -> str:
        if not isinstance(self.channel, PtyChannel):
            raise TypeError("not a pty simulator")
        return self.channel.tty_path

    @property
    def address(self) -> tuple[str, int]:
        if not isinstance(self.channel, SocketChannel):
            raise TypeError("not a socket simulator")
        return self.channel.address

    # -- the operator's hands -------------------------------------------------------------------

    def open_door(self) -> None:
        with self.lock:
            self.model.open_door()

    def close_door(self) -> None:
        with self.lock:
            self.model.close_door()

    def jam(self) -> None:
        with self.lock:
            self.model.jam()

    def clear_jam(self) -> None:
        with self.lock:
            self.model.clear_jam()

    def remove_deck(self) -> None:
        with self.lock:
            self.model.remove_deck()

    def load_deck(self, cards: Iterable[str] | None = None) -> None:
        with self.lock:
            self.model.load_deck(list(cards) if cards is not None else None)

    def cut_link(self, duration: float | None = None) -> None:
        self.runner.cut(self.cut_duration if duration is None else duration)

    # -- internals ------------------------------------------------------------------------------

    def _on_command(self, msg_type: int, command_id: int, body: bytes) -> None:
        self.model.on_command(msg_type, command_id, body)

    def _tick(self) -> None:
        self.model.tick()

    def _cut(self) -> None:
        self.runner.cut(self.cut_duration)

    def __repr__(self) -> str:
        return f"ShufflerSimulator({self.name!r}, seed={self.seed}, faults={sorted(self.faults)})"


__all__ = ["SCHEME", "Fault", "ShufflerSimulator", "find_simulator"]
