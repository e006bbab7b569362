"""Device simulators: the device side of each protocol, for tests and demos (docs/protocols/).

They speak the same bytes as a real device and are reached only through configuration: a
pyserial URL (``simshuffler://...``), a pty path, a TCP socket, or a pyusb backend. They may
import ``drivers.framing``, ``drivers.crc`` and the message-type constants, nothing else of
the drivers. ``python -m simulators <device> ...`` runs one as a process.
"""
