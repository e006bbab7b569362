"""The simulated dice shaker's USB descriptors, as a device would report them.

The device side of docs/protocols/dice-shaker.md, section "USB": one configuration, one
vendor-specific interface with one bulk OUT and one bulk IN endpoint. Written from the
document, not from the driver's defaults, so a mismatch between the two is caught by the
driver tests instead of cancelling out.

The vendor and product ids are pid.codes test ids (0x1209:0x0007); a vendor ships its own
and the table configuration names them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

VENDOR_ID: Final = 0x1209
PRODUCT_ID: Final = 0x0007
CONFIGURATION_VALUE: Final = 1
INTERFACE_NUMBER: Final = 0
ENDPOINT_OUT: Final = 0x01
ENDPOINT_IN: Final = 0x81
MAX_PACKET_SIZE: Final = 64

INTERFACE_CLASS_VENDOR: Final = 0xFF
INTERFACE_SUBCLASS_DICE: Final = 0x44  # "D"
INTERFACE_PROTOCOL_LINK_V1: Final = 0x01

LANGID_EN_US: Final = 0x0409
STRING_MANUFACTURER: Final = 1
STRING_PRODUCT: Final = 2
STRING_SERIAL: Final = 3
STRING_INTERFACE: Final = 4

DESC_TYPE_DEVICE: Final = 0x01
DESC_TYPE_CONFIG: Final = 0x02
DESC_TYPE_STRING: Final = 0x03
DESC_TYPE_INTERFACE: Final = 0x04
DESC_TYPE_ENDPOINT: Final = 0x05
ATTR_BULK: Final = 0x02


@dataclass(frozen=True, slots=True)
class DeviceDescriptor:
    """USB 2.0 section 9.6.1, plus the bus position pyusb reads from the backend."""

    idVendor: int
    idProduct: int
    bus: int
    address: int
    bLength: int = 18
    bDescriptorType: int = DESC_TYPE_DEVICE
    bcdUSB: int = 0x0200
    bDeviceClass: int = 0x00  # class defined by the interface
    bDeviceSubClass: int = 0x00
    bDeviceProtocol: int = 0x00
    bMaxPacketSize0: int = 64
    bcdDevice: int = 0x0100
    iManufacturer: int = STRING_MANUFACTURER
    iProduct: int = STRING_PRODUCT
    iSerialNumber: int = STRING_SERIAL
    bNumConfigurations: int = 1
    port_number: int = 1
    port_numbers: tuple[int, ...] = (1,)
    speed: int = 2  # full speed (12 Mbit/s), pyusb's SPEED_FULL


@dataclass(frozen=True, slots=True)
class ConfigurationDescriptor:
    """USB 2.0 section 9.6.3. Self-powered: the shaker's motor has its own supply."""

    bLength: int = 9
    bDescriptorType: int = DESC_TYPE_CONFIG
    wTotalLength: int = 9 + 9 + 7 + 7
    bNumInterfaces: int = 1
    bConfigurationValue: int = CONFIGURATION_VALUE
    iConfiguration: int = 0
    bmAttributes: int = 0xC0
    bMaxPower: int = 50  # 100 mA in 2 mA units
    extra_descriptors: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class InterfaceDescriptor:
    """USB 2.0 section 9.6.5."""

    bLength: int = 9
    bDescriptorType: int = DESC_TYPE_INTERFACE
    bInterfaceNumber: int = INTERFACE_NUMBER
    bAlternateSetting: int = 0
    bNumEndpoints: int = 2
    bInterfaceClass: int = INTERFACE_CLASS_VENDOR
    bInterfaceSubClass: int = INTERFACE_SUBCLASS_DICE
    bInterfaceProtocol: int = INTERFACE_PROTOCOL_LINK_V1
    iInterface: int = STRING_INTERFACE
    extra_descriptors: list[int] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class EndpointDescriptor:
    """USB 2.0 section 9.6.6."""

    bEndpointAddress: int
    bLength: int = 7
    bDescriptorType: int = DESC_TYPE_ENDPOINT
    bmAttributes: int = ATTR_BULK
    wMaxPacketSize: int = MAX_PACKET_SIZE
    bInterval: int = 0
    bRefresh: int = 0
    bSynchAddress: int = 0
    extra_descriptors: list[int] = field(default_factory=list)


CONFIGURATION: Final = ConfigurationDescriptor()
INTERFACE: Final = InterfaceDescriptor()
ENDPOINTS: Final = (EndpointDescriptor(ENDPOINT_OUT), EndpointDescriptor(ENDPOINT_IN))


def string_descriptor(text: str) -> bytes:
    """A string descriptor: length, type 3, UTF-16LE text (USB 2.0 section 9.6.7)."""
    body = text.encode("utf-16-le")
    return bytes((2 + len(body), DESC_TYPE_STRING)) + body


def langid_descriptor() -> bytes:
    """String descriptor zero: the one supported language, US English."""
    return bytes((4, DESC_TYPE_STRING)) + LANGID_EN_US.to_bytes(2, "little")
