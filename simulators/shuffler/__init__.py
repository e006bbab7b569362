"""The shuffler simulator: device model, pyserial URL handler ``simshuffler://``, process runner.

``serial.protocol_handler_packages`` must list ``"simulators.shuffler"`` for pyserial to find
``protocol_simshuffler`` (``SerialTransport(url_packages=...)`` does it from configuration).
"""

from .simulator import ShufflerSimulator

__all__ = ["ShufflerSimulator"]
