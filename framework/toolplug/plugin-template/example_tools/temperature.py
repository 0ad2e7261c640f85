"""A tool written as a typed function with ``@toolplug.tool``: the schema comes from the type hints."""

from __future__ import annotations

from typing import Annotated, Literal

import toolplug
from pydantic import Field

# Field constraints become schema bounds: the registry enforces them on every call, and the contract
# check's generated calls stay inside them.
Temperature = Annotated[float, Field(ge=-459.67, le=1_000_000)]


@toolplug.tool(name="example_tools_convert_temperature", strict=True)
def convert_temperature(value: Temperature, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Convert a temperature between degrees Celsius and degrees Fahrenheit.

    Args:
        value: The temperature to convert.
        unit: The unit of value; the result is given in the other unit.
    """
    if unit == "celsius":
        return f"{value} °C is {value * 9 / 5 + 32:.1f} °F"
    return f"{value} °F is {(value - 32) * 5 / 9:.1f} °C"
