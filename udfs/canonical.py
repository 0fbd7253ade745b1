"""Canonical text of values the binary decoders read (DESIGN §4.3), shared by the Avro UDFs."""

from __future__ import annotations

import math
from decimal import Decimal


def plain_float(x: float) -> str:
    """The shortest digits that read back as `x`, without exponent or a trailing `.0`."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    text = format(Decimal(repr(x)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def fraction(micros: int | None) -> str:
    """`.ffffff` of a time's microseconds, trailing zeros dropped; empty when there are none."""
    if not micros:
        return ""
    return "." + f"{abs(micros):06d}"[:6].rstrip("0")
