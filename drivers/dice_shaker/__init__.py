"""The electronic dice shaker: codec, events, driver, and the RNG dice source (dice-shaker.md).

Protocol: docs/protocols/dice-shaker.md. The driver class is registered as ``"dice-shaker"``
in ``drivers.DRIVERS`` and imported lazily; this package imports nothing heavy on its own.
"""
