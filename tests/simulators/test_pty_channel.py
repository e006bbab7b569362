"""The pty channel's descriptors are numbers the process reuses once closed (simulators/channels.py):
after its close, nothing the channel does may touch whatever the numbers name by then."""

from __future__ import annotations

import os

from simulators.channels import PtyChannel


def test_a_closed_pty_channel_leaves_a_reused_descriptor_alone():
    channel = PtyChannel()
    master = channel.master
    channel.close()
    read_end, write_end = os.pipe()
    os.dup2(read_end, master)  # the master's number now names another file's pipe, as reuse would
    try:
        os.write(write_end, b"theirs")
        assert channel.read(0.05) == b""  # not read from the pipe that took the number
        channel.write(b"ours")  # not written to it either
        channel.close()  # a second close closes nothing
        os.fstat(master)  # still open
        assert os.read(master, 100) == b"theirs"
    finally:
        for fd in {master, read_end, write_end}:  # the pipe may have taken the very number
            os.close(fd)
