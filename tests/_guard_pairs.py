"""One check for the guard's paired cases: a benign shape left exactly as it is, beside an instruction written close to
it that is still neutralised."""

from __future__ import annotations

from toolplug.guard import BuiltinInjectionFilter


def assert_left_alone_and_neutralised(shape: str, benign: str, instruction: str) -> None:
    """``benign`` comes back unchanged and ``instruction`` changed; ``shape`` names the case in a failure."""
    flt = BuiltinInjectionFilter()
    assert flt.filter_one(benign).text == benign, shape
    assert flt.filter_one(instruction).text != instruction, shape
