"""The ``toolplug`` command's entry point.

Start-up imports a few hundred modules and builds objects that live as long as the process: modules,
classes, the command tree, the host and its registry. The cyclic garbage collector would walk them
over and over while they are created, and find nothing to free. So during the two phases of start-up,
importing the command and building the host, it is off; at the end of each, what was created moves to
the permanent generation (:func:`gc.freeze`) and collections run as usual again, skipping it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_from_console = False
"""True once :func:`main` runs: only the ``toolplug`` process itself, never a host or a test, freezes."""


@contextlib.contextmanager
def start_up_phase() -> Iterator[None]:
    """No collections while the block creates long-lived objects; then freeze them (in the command only)."""
    if not _from_console or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def main() -> None:
    """Run the ``toolplug`` command."""
    global _from_console
    _from_console = True
    with start_up_phase():
        from toolplug.cli import main as run_command
    run_command()
