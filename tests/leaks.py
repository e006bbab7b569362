"""Shared test fixtures: the autouse leak check (a python-can habit).

A test fails if it leaves behind a thread, an open serial port (any pyserial port object,
in-memory ones included), a tty or pty file descriptor, or a pending asyncio task.
Threads and ports get a short grace period to finish closing.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import threading
import time
import weakref

import pytest
import pytest_asyncio

#: seconds a thread or port may take to finish closing after the test
LEAK_GRACE = float(os.environ.get("TABLE_TEST_LEAK_GRACE", "1.0"))


def _threads() -> set[threading.Thread]:
    return {thread for thread in threading.enumerate() if thread.is_alive()}


class _PortTracker:
    """Knows every pyserial port object that is open, by watching ``SerialBase.is_open``.

    Every pyserial port class (serial.Serial, socket://, loop://, our simshuffler://) sets
    ``self.is_open`` in ``open``/``close``; a property on the base class records those
    assignments in a weak set, which is far cheaper than scanning the heap after each test.
    """

    def __init__(self) -> None:
        self.open: weakref.WeakSet = weakref.WeakSet()

    def install(self) -> None:
        from serial.serialutil import SerialBase

        if isinstance(SerialBase.__dict__.get("is_open"), property):
            return
        tracker = self

        def get(port) -> bool:
            return port.__dict__.get("_leak_check_is_open", False)

        def set_(port, value: bool) -> None:
            port.__dict__["_leak_check_is_open"] = value
            if value:
                tracker.open.add(port)
            else:
                tracker.open.discard(port)

        SerialBase.is_open = property(get, set_)

    def ports(self) -> set[int]:
        return {id(port) for port in list(self.open) if port.is_open}


_tracker = _PortTracker()
_tracker.install()


def _open_ports() -> set[int]:
    return _tracker.ports()


def _port_fds() -> dict[int, str]:
    """Open tty and pty file descriptors (Linux /proc; empty elsewhere). Sockets are left out: the
    event loop holds a socket pair of its own; a leaked socket port shows as an open port object."""
    found: dict[int, str] = {}
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return found
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target.startswith(("/dev/pts/", "/dev/ptmx", "/dev/tty")):
            found[int(name)] = target
    return found


def _settle(check, grace: float):
    deadline = time.monotonic() + grace
    leaked = check()
    while leaked and time.monotonic() < deadline:
        time.sleep(0.01)
        leaked = check()
    return leaked


@pytest.fixture(autouse=True)
def no_leaks(request):
    """Fail the test if it leaves a thread, a port or a task open."""
    threads_before = _threads()
    ports_before = _open_ports()
    fds_before = _port_fds()
    if inspect.iscoroutinefunction(getattr(request.node, "obj", None)):
        request.getfixturevalue("_no_leaked_tasks")
    yield
    problems = []
    threads = _settle(lambda: _threads() - threads_before, LEAK_GRACE)
    if threads:
        problems.append(f"threads left running: {sorted(t.name for t in threads)}")
    ports = _settle(lambda: _open_ports() - ports_before, LEAK_GRACE)
    if ports:
        problems.append(f"{len(ports)} serial port(s) left open")
    fds = _settle(lambda: {fd: t for fd, t in _port_fds().items() if fds_before.get(fd) != t}, LEAK_GRACE)
    if fds:
        problems.append(f"port/pty/socket file descriptors left open: {fds}")
    if problems:
        pytest.fail("; ".join(problems), pytrace=False)


@pytest_asyncio.fixture
async def _no_leaked_tasks():
    """Async half of ``no_leaks``: runs in the test's event loop, before it closes."""
    before = asyncio.all_tasks()
    yield
    await asyncio.sleep(0)
    current = asyncio.current_task()
    leaked = [
        task for task in asyncio.all_tasks() if task is not current and task not in before and not task.done()
    ]
    for task in leaked:
        task.cancel()
    if leaked:
        pytest.fail(f"asyncio tasks left pending: {[task.get_name() for task in leaked]}", pytrace=False)
