"""The simulated electronic dice shaker: mechanism model, USB backend, serial variant (dice-shaker.md).

Reached only through configuration, like a real shaker: ``DiceShakerSimulator(...).usb_backend()``
goes into the driver's ``UsbTransport(backend=...)``; ``serve_pty()`` / ``serve_socket()`` give a
port the serial driver opens; ``python -m simulators dice`` runs it as a process.
"""

from .device import DiceShakerSimulator

__all__ = ["DiceShakerSimulator"]
