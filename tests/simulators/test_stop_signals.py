"""Simulator processes stop on SIGINT/SIGTERM, however many arrive (simulators/stop_signals.py).

A daemon killed by SIGKILL leaves its simulators a SIGTERM each (PR_SET_PDEATHSIG); one such
simulator once hung for good, its handler waiting on the lock of a ``threading.Event`` that the
main thread itself held when a second signal came. The handler now only sets a flag.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from simulators.stop_signals import StopSignals

REPO = Path(__file__).resolve().parents[2]


def test_a_signal_sets_the_flag_and_ends_the_wait():
    with StopSignals() as stop:
        assert stop.wait(0.05) is False and not stop.requested
        os.kill(os.getpid(), signal.SIGTERM)
        assert stop.wait(5) is True and stop.requested


def test_the_previous_handlers_are_restored():
    before = signal.getsignal(signal.SIGINT)
    with StopSignals():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before


def test_the_wait_also_ends_on_the_other_event():
    quit_typed = threading.Event()
    with StopSignals() as stop:
        threading.Timer(0.05, quit_typed.set).start()
        assert stop.wait(5, also=quit_typed) is True and not stop.requested


def test_the_handler_takes_no_lock_even_inside_a_held_one():
    """The case that hung: the signal lands while the main thread holds an Event's lock."""
    held = threading.Event()
    with StopSignals() as stop:
        with held._cond:  # the main thread inside Event.set()/wait(), as when the signal came
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.01)  # the handler runs here, in this thread: it must not block
        assert stop.requested


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pty simulators are Linux")
@pytest.mark.parametrize("device", ["shuffler", "dice"])
def test_a_burst_of_sigterms_stops_a_simulator_process(device):
    process = subprocess.Popen(
        [sys.executable, "-m", "simulators", device, "--pty", "--fast"],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout.readline().strip()  # its port: it is serving
        for _ in range(20):
            process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdin.close()
        process.stdout.close()
