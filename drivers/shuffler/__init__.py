"""The shuffler with card reader: codec, events and driver (docs/protocols/shuffler.md)."""
