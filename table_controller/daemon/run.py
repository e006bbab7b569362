"""The table daemon behind ``table-controller run`` (docs/round-lifecycle.md, "Running it").

Start: settings validated (the command line refuses a bad configuration with exit status 2),
logging configured, the API's address bound (an address another process holds is refused at
once, before anything else starts), the store opened (migrated to head), the devices connected
(or, with ``--simulate``, the simulators started first as child processes), the open round resumed,
then rounds played by the conductor until ``--rounds N`` rounds are settled (exit 0) or
SIGTERM / SIGINT asks for a stop: the step in progress ends, the round stays where it is in
the store and the next start resumes it. A SIGKILL at any moment loses nothing either: every
step was committed before it was shown as done (docs/round-lifecycle.md).

Layering (docs/design.md, "Layers"): ``table_controller`` never imports ``simulators``. ``--simulate`` runs
``python -m simulators shuffler|dice --pty``, reads the tty path each prints, and configures
the production drivers with it, exactly as it would a real port. The children die with the
daemon (``PR_SET_PDEATHSIG`` on Linux) and are stopped on a clean exit; their logs go to
``<data dir>/simulators/``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import multiprocessing
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import structlog

from drivers import load_driver
from drivers.link import LinkConfig
from drivers.usb_transport import UsbConfig

from ..conductor import Conductor, RngDice, ShakerAdapter, ShufflerAdapter
from ..settings import TableSettings
from ..storage import open_read_store, open_store, redacted
from ..storage.checkpoints import CheckpointKeyError
from ..table.autodealer import AutoDealer
from ..table.service import TableService
from .children import compute_table_math, die_with_parent, table_math_for
from .memory import start_memory_trim
from .startup import collector_paused

if TYPE_CHECKING:  # the classes the registry names; imported lazily, by name, at run time
    from drivers.dice_shaker.driver import DiceShakerDriver
    from drivers.shuffler.driver import ShufflerDriver

log = structlog.get_logger()


class ExitStatus(IntEnum):
    """What ``table-controller run`` exits with (its ``--help`` and docs/round-lifecycle.md,
    "Running the daemon", list the same)."""

    DONE = 0  # --rounds N played, or a stop asked for (SIGTERM, SIGINT)
    STORE = 1  # the store could not be opened at start
    CONFIG = 2  # a bad configuration, or an API address the daemon cannot listen on
    DEVICE_START = 3  # a device could not be started (a simulator gave no port in time, or exited)


class ConfigError(ValueError):
    """Settings that cannot run a table (a missing device port...): exit status 2."""


class ListenError(ConfigError):
    """The API's address cannot be listened on (another process holds it, or it is not this
    machine's): a configuration to change, exit status 2, checked before anything starts."""


class DeviceStartError(RuntimeError):
    """A device could not be started (a simulator printed no port in time, or exited): not a
    bad setting (a loaded machine can be slow), exit status 3; the message says what to do."""


# -- simulators as child processes ------------------------------------------------------------------


@dataclass
class SimulatorProcess:
    """``python -m simulators <device> --pty ...`` and the port it printed."""

    name: str
    process: subprocess.Popen
    port: str

    @classmethod
    def start(cls, name: str, args: list[str], log_dir: Path, timeout: float) -> SimulatorProcess:
        log_dir.mkdir(parents=True, exist_ok=True)
        log_path = log_dir / f"{name}.log"
        argv = [sys.executable, "-m", "simulators", *args]
        with log_path.open("ab") as log_file:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=log_file,
                preexec_fn=die_with_parent if sys.platform.startswith("linux") else None,
            )
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            ready = selector.select(timeout)
        line = process.stdout.readline().decode("ascii", "replace").strip() if ready else ""
        if not line:
            exited = process.poll()
            process.kill()
            process.wait()
            if exited is not None:
                raise DeviceStartError(
                    f"the {name} simulator exited with status {exited} before printing its port: "
                    f"read its log ({log_path}), then start again"
                )
            raise DeviceStartError(
                f"the {name} simulator printed no port within {timeout:g} s (simulator.start_timeout): "
                f"the machine may be loaded; start again, or raise TABLE_SIMULATOR__START_TIMEOUT "
                f"(its log: {log_path})"
            )
        log.info("simulator.started", device=name, port=line, pid=process.pid, argv=" ".join(argv[1:]))
        print(f"{name} simulator on {line}", flush=True)  # for a person dealing by hand (--manual)
        return cls(name, process, line)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        log.info("simulator.stopped", device=self.name, code=self.process.returncode)


def start_simulators(settings: TableSettings) -> dict[str, SimulatorProcess]:
    """The shuffler (and, unless the table rolls with the RNG, the dice shaker) as processes."""
    sim = settings.simulator
    seed = ["--seed", str(sim.seed)] if sim.seed is not None else []
    log_dir = settings.data_dir / "simulators"
    started: dict[str, SimulatorProcess] = {}
    try:
        started["shuffler"] = SimulatorProcess.start(
            "shuffler",
            [
                "shuffler",
                "--pty",
                "--jokers",
                str(settings.game.jokers),
                "--pile-interval",
                str(sim.pile_interval),
                *seed,
            ],
            log_dir,
            sim.start_timeout,
        )
        if settings.dice.source == "shaker":
            started["dice"] = SimulatorProcess.start(
                "dice",
                ["dice", "--pty", "--shake-duration", str(sim.shake_duration), *seed],
                log_dir,
                sim.start_timeout,
            )
    except BaseException:
        for process in started.values():
            process.stop()
        raise
    return started


# -- devices from settings --------------------------------------------------------------------------


@dataclass(frozen=True)
class DeviceAddresses:
    """Where the devices are: a pyserial URL for the shuffler; the dice by URL, USB id or RNG."""

    shuffler_url: str
    dice_source: str  # "shaker" or "rng"
    dice_url: str | None = None
    dice_usb: UsbConfig | None = None  # None with a shaker and no URL: the driver's own default id

    @classmethod
    def from_settings(
        cls, settings: TableSettings, simulators: dict[str, SimulatorProcess]
    ) -> DeviceAddresses:
        if "shuffler" in simulators:
            shuffler_url = simulators["shuffler"].port
        elif settings.shuffler.url:
            shuffler_url = settings.shuffler.url
        else:
            raise ConfigError("no shuffler: set shuffler.url (TABLE_SHUFFLER__URL) or use --simulate")
        dice = settings.dice
        if dice.source == "rng":
            return cls(shuffler_url, "rng")
        if "dice" in simulators:
            return cls(shuffler_url, "shaker", dice_url=simulators["dice"].port)
        if dice.url:
            return cls(shuffler_url, "shaker", dice_url=dice.url)
        try:
            usb = UsbConfig.parse(dice.usb) if dice.usb else None
        except ValueError as error:
            raise ConfigError(f"dice.usb: {error}") from None
        return cls(shuffler_url, "shaker", dice_usb=usb)


def build_conductor(
    settings: TableSettings, service: TableService, addresses: DeviceAddresses, stop: asyncio.Event
) -> Conductor:
    """The conductor with the drivers found by name in the registry (``drivers.DRIVERS``) at the
    devices' configured addresses."""
    link = LinkConfig()  # link.md 7: the documented timings (tests build their own drivers)
    known = service.recent_device_events()
    # the registry is typed by name only (type[Driver]); these names register these classes
    shuffler_driver = cast("type[ShufflerDriver]", load_driver("shuffler"))
    shaker_driver = cast("type[DiceShakerDriver]", load_driver("dice-shaker"))
    shuffler = ShufflerAdapter(
        service,
        lambda journal: shuffler_driver.from_url(
            addresses.shuffler_url,
            link_config=link,
            baudrate=settings.shuffler.baudrate,
            journal=journal,
        ),
        stop=stop,
        known=known,
        deck_size=settings.game.deck_size,
        answer_timeout=settings.device_timeout,
    )
    if addresses.dice_source == "rng":
        dice: RngDice | ShakerAdapter = RngDice()
    elif addresses.dice_url is not None:
        dice = ShakerAdapter(
            service,
            lambda journal: shaker_driver.over_serial(
                addresses.dice_url, link_config=link, journal=journal, roll_timeout=settings.device_timeout
            ),
            stop=stop,
            known=known,
            roll_timeout=settings.device_timeout,
            no_answer_tries=settings.dice.no_answer_tries,
        )
    else:
        usb = {} if addresses.dice_usb is None else {"config": addresses.dice_usb}
        dice = ShakerAdapter(
            service,
            lambda journal: shaker_driver.over_usb(
                **usb, link_config=link, journal=journal, roll_timeout=settings.device_timeout
            ),
            stop=stop,
            known=known,
            roll_timeout=settings.device_timeout,
            no_answer_tries=settings.dice.no_answer_tries,
        )
    auto = settings.auto_dealer
    auto_dealer = AutoDealer(auto, settings.game, settings.limits) if auto.enabled else None
    return Conductor(
        service, shuffler, dice, stop=stop, auto_dealer=auto_dealer, step_delay=settings.step_delay
    )


# -- logs -------------------------------------------------------------------------------------------


def table_context(service: TableService):
    """A structlog processor: lines that carry no table or round id (the drivers' reader threads,
    which have no context variables of their own) get the table's id and its open round's id."""

    def add_table(_logger: object, _method: str, event_dict: dict) -> dict:
        event_dict.setdefault("table_id", service.table_id)
        state = service.round
        if "round_id" not in event_dict and state is not None and not state.phase.is_final:
            event_dict["round_id"] = state.round_id
        return event_dict

    return add_table


def install_table_context(service: TableService) -> None:
    """Put ``table_context`` right after the context variables in the configured chain (logs.py)."""
    processors = list(structlog.get_config()["processors"])
    processors.insert(
        1 if processors and processors[0] is structlog.contextvars.merge_contextvars else 0,
        table_context(service),
    )
    structlog.configure(processors=processors)


# -- the table's math -------------------------------------------------------------------------------


def start_table_math(settings: TableSettings, service: TableService) -> Callable[[], None]:
    """The table's math (theoretical win per round, docs/math.md), read in a thread from the
    machine's cache, or computed first in a child process when the cache does not hold it: the
    first run builds the house-way lookup (about 20 s), and a build in a thread would hold the
    interpreter's lock against the devices and the API. Until it is there, settled rounds carry
    no theoretical win (shown as missing). Returns the stopper."""
    values = settings.model_dump(mode="json")
    started = time.monotonic()
    stopping = threading.Event()
    children: list[multiprocessing.process.BaseProcess] = []
    lock = threading.Lock()

    def computed_in_a_child() -> bool:
        with lock:
            if stopping.is_set():
                return False
            child = multiprocessing.get_context("spawn").Process(
                target=compute_table_math, args=(values,), name="table-math", daemon=True
            )
            children.append(child)
            child.start()
        child.join()
        if child.exitcode != 0:
            if child.exitcode is not None and child.exitcode > 0:
                log.error("table.math_failed", exit_code=child.exitcode)
            return False
        return True

    def run() -> None:
        try:
            found = table_math_for(values, compute=False)
            if found is None and computed_in_a_child():
                found = table_math_for(values, compute=False)
        except Exception:
            log.exception("table.math_failed")
            return
        if found is None:
            return
        service.set_table_math(found)
        log.info("table.math_computed", seconds=round(time.monotonic() - started, 1))

    threading.Thread(target=run, name="table-math", daemon=True).start()

    def stop() -> None:
        with lock:
            stopping.set()
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join(5)

    return stop


# -- the floor --------------------------------------------------------------------------------------


def start_floor_heartbeat(service: TableService, every: float) -> Callable[[], None]:
    """Tell the floor every ``every`` seconds that the table is alive (``service.floor_heartbeat``,
    which never raises: a store outage is logged and the next beat tries again), from a daemon
    thread that dies with the process. Returns the stopper, which ends the thread."""
    stopping = threading.Event()

    def run() -> None:
        while not stopping.wait(every):
            service.floor_heartbeat()

    thread = threading.Thread(target=run, name="floor-heartbeat", daemon=True)
    thread.start()

    def stop() -> None:
        stopping.set()
        thread.join(10)  # a beat in progress ends with its store call (the pool's own timeout)

    return stop


# -- the run ----------------------------------------------------------------------------------------


async def run_table(settings: TableSettings, *, simulate: bool = False, rounds: int | None = None) -> int:
    """Run the table until ``rounds`` rounds are settled or a stop is asked; return the exit status."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, _stop_requested, stop, signum)
    structlog.contextvars.bind_contextvars(table_id=settings.table_id)
    log.info(
        "daemon.starting",
        pid=os.getpid(),
        game=settings.game.value,
        simulate=simulate,
        rounds=rounds,
        store=redacted(settings.database_url),
        auto_dealer=settings.auto_dealer.enabled,
        step_delay=settings.step_delay,
    )
    sock = listen_for_api(settings) if settings.api else None  # first: before the store and devices
    stack = contextlib.ExitStack()
    if sock is not None:
        stack.callback(sock.close)
    try:
        engine = open_store(settings.database_url)
    except BaseException:
        stack.close()
        raise
    simulators: dict[str, SimulatorProcess] = {}
    try:
        if simulate:
            simulators = start_simulators(settings)
        addresses = DeviceAddresses.from_settings(settings, simulators)
        try:
            service = TableService(settings, engine)
        except CheckpointKeyError as error:  # the checkpoint key file is not the configured key's
            raise ConfigError(str(error)) from None
        install_table_context(service)
        service.record_start()  # the installed code's hash, logged and chained (docs/audit-chain.md)
        service.register_on_floor()  # on the floor before dealing (docs/round-lifecycle.md)
        stack.callback(start_floor_heartbeat(service, settings.floor_heartbeat_seconds))
        stack.callback(start_table_math(settings, service))
        stack.callback(start_memory_trim())  # resident memory flat over a shift (daemon/memory.py)
        conductor = build_conductor(settings, service, addresses, stop)
        api = await start_api(settings, service, engine, sock) if sock is not None else None
        try:
            settled = await conductor.run(rounds)
        finally:
            if api is not None:
                await api.stop()
            service.checkpoint("shutdown")  # the head signed as the daemon leaves it
        log.info(
            "daemon.stopped",
            settled=settled,
            voided=conductor.voided,
            reason="rounds done" if rounds is not None and settled >= rounds else "stop requested",
        )
        return 0
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
        for process in simulators.values():
            process.stop()
        stack.close()
        engine.dispose()


class RunningApi:
    """The pit and surveillance API served by uvicorn inside the daemon (docs/api.md)."""

    def __init__(self, server: Any, task: asyncio.Task[None], url: str) -> None:
        self.server, self.task, self.url = server, task, url

    async def stop(self) -> None:
        self.server.should_exit = True
        await self.task


def listen_for_api(settings: TableSettings) -> socket.socket:
    """The API's listening socket on ``settings.host:settings.port`` (port 0: any free port),
    bound before the store is opened and the devices started; ListenError (exit 2) when the
    address cannot be had, naming what to do."""
    from ..api.server import listen

    try:
        return listen(settings.host, settings.port)
    except OSError as error:
        log.error("api.cannot_listen", host=settings.host, port=settings.port, error=str(error))
        taken = error.errno == errno.EADDRINUSE
        advice = (
            "another process holds it (another table-controller run?): stop it, or choose another "
            "port with --port or TABLE_PORT (0: any free port)"
            if taken
            else "choose an address of this machine and a port you may use (--host, --port)"
        )
        raise ListenError(f"cannot listen on {settings.host}:{settings.port}: {error}; {advice}") from None


async def start_api(
    settings: TableSettings, service: TableService, engine: Any, sock: socket.socket
) -> RunningApi:
    """Serve the API on the bound ``sock`` and print its address."""
    with collector_paused():
        from ..api.app import create_app
        from ..api.server import make_server

    read_engine = open_read_store(settings.read_db_url) if settings.read_db_url else None
    app = create_app(settings, service, engine, read_engine=read_engine)
    server = make_server(app, host=settings.host, port=settings.port)
    task = asyncio.create_task(server.serve(sockets=[sock]), name="api")
    while not server.started:
        if task.done():
            error = task.exception() if not task.cancelled() else None
            raise ConfigError(
                f"cannot serve the API on {settings.host}:{settings.port}: {error or 'server exited'}"
            )
        await asyncio.sleep(0.01)
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    url = f"{'https' if settings.http.tls_certfile else 'http'}://{host}:{port}"
    print(f"API listening on {url}", flush=True)
    log.info("api.listening", url=url)
    return RunningApi(server, task, url)


def _stop_requested(stop: asyncio.Event, signum: int) -> None:
    log.info("daemon.stop_requested", signal=signal.Signals(signum).name)
    stop.set()


def simulate_settings(settings: TableSettings) -> TableSettings:
    """``--simulate``: the auto-dealer plays (the simulators replace the configured ports)."""
    if settings.auto_dealer.enabled:
        return settings
    return settings.model_copy(
        update={"auto_dealer": settings.auto_dealer.model_copy(update={"enabled": True})}
    )


def main(
    settings: TableSettings, *, simulate: bool = False, rounds: int | None = None, manual: bool = False
) -> int:
    """Run the daemon in this process (the event loop is created here). ``manual``: with
    ``simulate``, the simulators start but nobody plays for the dealer (dealing by hand)."""
    if simulate and not manual:
        settings = simulate_settings(settings)
    with contextlib.suppress(KeyboardInterrupt):
        return asyncio.run(run_table(settings, simulate=simulate, rounds=rounds))
    return 0


__all__ = [
    "ConfigError",
    "DeviceAddresses",
    "DeviceStartError",
    "ExitStatus",
    "ListenError",
    "SimulatorProcess",
    "build_conductor",
    "main",
    "run_table",
    "start_floor_heartbeat",
    "start_simulators",
]
