"""Numbers as HTCondor's C code reads them: ``atoi``, ``strtoll`` limits and byte sizes.

How this works
--------------
condor_submit reads several commands with C library functions rather than as ClassAd
expressions: ``atoi`` (leading white space, a sign, the digits up to the first other
character, 0 when there are none, truncated to a C ``int``) and HTCondor's
``parse_int64_bytes`` (a number with an optional fraction and a K/M/G/T unit, rounded
up to whole units of the given size). These helpers do the same.
"""

from __future__ import annotations

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def clamp64(value: int) -> int:
    """``value`` saturated to the 64-bit range, as C's ``strtoll`` does."""
    return min(max(value, INT64_MIN), INT64_MAX)


def digits_value(digits: str) -> int:
    """The value of a string of decimal digits, saturated above the 64-bit range (Python's
    ``int()`` refuses more than 4300 digits; ``strtoll`` saturates)."""
    return int(digits) if len(digits) <= 19 else INT64_MAX + 1


def leading_digits(text: str) -> str:
    """The decimal digits ``text`` starts with."""
    end = 0
    while end < len(text) and "0" <= text[end] <= "9":
        end += 1
    return text[:end]


def c_atoi(text: str) -> int:
    """C ``atoi`` (glibc: ``(int) strtol``): optional white space and sign, then digits."""
    s = text.lstrip(" \t\n\r\v\f")
    sign = -1 if s[:1] == "-" else 1
    s = s[1:] if s[:1] in "+-" else s
    digits = leading_digits(s)
    value = clamp64(sign * digits_value(digits)) if digits else 0
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def parse_bytes(text: str, base: int) -> tuple[int, str] | None:
    """HTCondor's ``parse_int64_bytes``: ``N[.fff][K|M|G|T][B]`` in units of ``base`` bytes
    (rounded up) and the unit letter ("" when none); None when the text is not of that form."""
    s = text.lstrip(" \t\n\r\v\f")
    i = 0
    if s[:1] in "+-":
        i = 1
    j = i
    while j < len(s) and "0" <= s[j] <= "9":
        j += 1
    whole = (-1 if s[:1] == "-" else 1) * clamp64(digits_value(s[i:j])) if j > i else 0
    p = j if j > i else 0
    fract = 0.0
    if s[p : p + 1] == ".":
        p += 1
        scale = 0.1
        digits = 0
        while p < len(s) and "0" <= s[p] <= "9":
            if digits < 3:
                fract += int(s[p]) * scale
                scale /= 10
            digits += 1
            p += 1
    if p == 0:
        return None
    if whole < 0 or s[:1] == "-":
        fract = -fract
    while p < len(s) and s[p] in " \t\n\r\v\f":
        p += 1
    units = {"k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}
    unit = s[p].lower() if p < len(s) else ""
    if p >= len(s):
        mult = base
    elif unit in units:
        mult = units[s[p].lower()]
    else:
        return None
    scaled = (whole + fract) * mult + base - 1
    if abs(scaled) >= 2.0**63:
        return None
    value = int(scaled)
    value = abs(value) // base * (1 if value >= 0 else -1)
    rest = s[p + 1 :]
    if p >= len(s) or not rest:
        return value, unit
    if rest[0] in "bB":
        rest = rest[1:]
    return (value, unit) if not rest.strip() else None


def parse_int64_bytes(text: str, base: int) -> int | None:
    """The size of ``parse_bytes``, None when the text is not a size."""
    parsed = parse_bytes(text, base)
    return None if parsed is None else parsed[0]
