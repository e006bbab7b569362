"""The byte pipes a simulated device is served over: ``MemoryChannel`` (the in-process pyserial
port), ``PtyChannel`` (the master end of an ``os.openpty()`` pair) and ``SocketChannel`` (a
listening TCP socket, one host at a time). Only the runner thread uses them (runner.py).
"""

from __future__ import annotations

import abc
import contextlib
import errno
import os
import select
import socket
import threading
import time


class DeviceChannel(abc.ABC):
    """The device's end of a byte pipe, used only by the runner thread (and ``cut``/``close``)."""

    @abc.abstractmethod
    def read(self, timeout: float) -> bytes:
        """Bytes from the host, ``b""`` after ``timeout``; never raises for a missing host."""

    @abc.abstractmethod
    def write(self, data: bytes) -> None:
        """Bytes to the host; silently lost when no host is there (like a real cable)."""

    def host_present(self) -> bool:
        """False when the channel knows the host is gone (closed socket, detached port)."""
        return True

    def set_cut(self, cut: bool) -> None:  # noqa: B027 - optional hook: a channel without a cable ignores it
        """Pull (True) or plug back (False) the cable."""

    def close(self) -> None:  # noqa: B027 - optional hook: a no-op for a channel holding no resources
        """Release the channel's resources."""


class MemoryChannel(DeviceChannel):
    """An in-memory cable between a ``DeviceLink`` and one pyserial port object at a time."""

    def __init__(self, buffer_limit: int = 1 << 20) -> None:
        self._cond = threading.Condition()
        self._to_device = bytearray()
        self._to_host = bytearray()
        self._attached = False
        self._cut = False
        self._closed = False
        self._limit = buffer_limit

    # the device side
    def read(self, timeout: float) -> bytes:
        with self._cond:
            if not self._to_device:
                self._cond.wait(timeout)
            data = bytes(self._to_device)
            self._to_device.clear()
            return data

    def write(self, data: bytes) -> None:
        with self._cond:
            if self._attached and not self._cut and len(self._to_host) + len(data) <= self._limit:
                self._to_host += data
                self._cond.notify_all()

    def host_present(self) -> bool:
        with self._cond:
            return self._attached and not self._cut

    def set_cut(self, cut: bool) -> None:
        with self._cond:
            self._cut = cut
            if cut:
                self._to_host.clear()
                self._to_device.clear()
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._attached = False
            self._cond.notify_all()

    # the host side (the pyserial port)
    def attach(self) -> None:
        """A port opens: ConnectionError when the cable is cut, the channel closed or already in use."""
        with self._cond:
            if self._closed:
                raise ConnectionError("the simulator is stopped")
            if self._cut:
                raise ConnectionError("the link is cut")
            if self._attached:
                raise ConnectionError("the simulator already has a host attached")
            self._attached = True
            self._to_host.clear()
            self._to_device.clear()

    def detach(self) -> None:
        with self._cond:
            self._attached = False
            self._to_host.clear()
            self._cond.notify_all()

    def host_write(self, data: bytes) -> None:
        with self._cond:
            self._check_host()
            self._to_device += data
            self._cond.notify_all()

    def host_read(self, size: int, timeout: float | None) -> bytes:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while True:
                self._check_host()
                if self._to_host:
                    data = bytes(self._to_host[:size])
                    del self._to_host[:size]
                    return data
                if deadline is not None:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return b""
                    self._cond.wait(left)
                else:
                    self._cond.wait()

    def host_waiting(self) -> int:
        with self._cond:
            self._check_host()
            return len(self._to_host)

    def host_clear(self) -> None:
        with self._cond:
            self._to_host.clear()

    def _check_host(self) -> None:
        if self._closed:
            raise ConnectionError("the simulator is stopped")
        if self._cut:
            raise ConnectionError("the link is cut")
        if not self._attached:
            raise ConnectionError("port not attached")


class PtyChannel(DeviceChannel):
    """The master end of a pty pair; ``tty_path`` is the slave a driver opens like a serial port.

    Its two file descriptors are numbers the process reuses once they are closed: every read and
    write checks under ``_fds`` that they are still this channel's, and ``close`` closes them
    once. A second close, or a runner thread still reading after a close, would otherwise act on
    whatever the number names by then (another test's pipe, the daemon's database socket)."""

    def __init__(self) -> None:
        import tty

        self.master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no line discipline on the host's side
        self.tty_path = os.ttyname(slave)
        self._slave = slave  # kept open so the master never sees EIO between host reconnects
        self._cut = False
        self._closed = False
        self._fds = threading.Lock()  # held while a descriptor is used, and to close them
        os.set_blocking(self.master, False)

    def read(self, timeout: float) -> bytes:
        master = self.master
        try:
            ready, _, _ = select.select([master], [], [], timeout)
        except (OSError, ValueError):
            return b""
        if not ready:
            return b""
        with self._fds:
            if self._closed:  # closed while waiting: the number may name something else now
                return b""
            try:
                data = os.read(master, 65536)
            except BlockingIOError:
                return b""
            except OSError as exc:
                if exc.errno != errno.EIO:
                    raise
                data = None
        if data is None:
            time.sleep(timeout)
            return b""
        return b"" if self._cut else data

    def write(self, data: bytes) -> None:
        if self._cut:
            return
        view = memoryview(data)
        deadline = time.monotonic() + 1.0
        while view and time.monotonic() < deadline:
            with self._fds:
                if self._closed:
                    return
                try:
                    written = os.write(self.master, view)
                    view = view[written:]
                    continue
                except BlockingIOError:
                    pass
                except OSError:
                    return
            with contextlib.suppress(OSError, ValueError):  # closed meanwhile: the loop returns
                select.select([], [self.master], [], 0.01)

    def set_cut(self, cut: bool) -> None:
        self._cut = cut

    def close(self) -> None:
        with self._fds:
            if self._closed:
                return
            self._closed = True
            for fd in (self.master, self._slave):
                with contextlib.suppress(OSError):
                    os.close(fd)


class SocketChannel(DeviceChannel):
    """A listening TCP socket; one host connection at a time (``socket://host:port`` on the host side)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server = socket.create_server((host, port))
        self._server.setblocking(False)
        self.address: tuple[str, int] = self._server.getsockname()[:2]
        self._client: socket.socket | None = None
        self._cut = False

    def read(self, timeout: float) -> bytes:
        if self._client is None:
            ready, _, _ = select.select([self._server], [], [], timeout)
            if ready and not self._cut:
                try:
                    client, _ = self._server.accept()
                except BlockingIOError:
                    return b""
                client.setblocking(False)
                client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self._client = client
            return b""
        ready, _, _ = select.select([self._client], [], [], timeout)
        if not ready:
            return b""
        try:
            data = self._client.recv(65536)
        except BlockingIOError:
            return b""
        except OSError:
            data = b""
        if not data:
            self._drop_client()
        return data

    def write(self, data: bytes) -> None:
        if self._client is None:
            return
        try:
            self._client.sendall(data)
        except OSError:
            self._drop_client()

    def host_present(self) -> bool:
        return self._client is not None

    def set_cut(self, cut: bool) -> None:
        self._cut = cut
        if cut:
            self._drop_client()

    def _drop_client(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    def close(self) -> None:
        self._drop_client()
        self._server.close()


__all__ = ["DeviceChannel", "MemoryChannel", "PtyChannel", "SocketChannel"]
