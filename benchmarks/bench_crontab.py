"""CronTab next-run computations per second, for a mix of schedules and time zones.

There is no reference implementation to compare against (HTCondor's is C++ inside the
schedd), so this prints plain rates.  Each schedule is parsed once and its next run
computed over and over, each result fed back as the next start, as the schedd does on
every requeue of a cron job.
"""

from __future__ import annotations

import time

from condorsim.crontab import CRON_ATTRS, next_run_time, parse_schedule

START = 1_705_313_250  # 2024-01-15 10:07:30 UTC
MIX: list[tuple[str, str, str]] = [
    ("every 5 minutes", "*/5 * * * *", "UTC"),
    ("hourly", "0 * * * *", "America/New_York"),
    ("Mondays 09:00", "0 9 * * 1", "Europe/Berlin"),
    ("02:30 daily (DST gap)", "30 2 * * *", "America/Chicago"),
    ("13th or Friday", "0 0 13 * 5", "UTC"),
    ("manual: Jan 18 */10,*/6", "*/10,*/6 0-11 18 1 *", "UTC"),
    ("29 Feb", "0 0 29 2 *", "UTC"),
    ("23 past even hours", "23 0-23/2 * * *", "Australia/Lord_Howe"),
]
SECONDS_EACH = 0.3


def _fields(text: str) -> dict[str, str]:
    return dict(zip(CRON_ATTRS, text.split(), strict=True))


def _rate(schedule_text: str, tz: str) -> float:
    schedule = parse_schedule(_fields(schedule_text))
    count, t = 0, START
    began = time.perf_counter()
    deadline = began + SECONDS_EACH
    while True:
        for _ in range(100):
            t = schedule.next_after(t, tz)
        count += 100
        now = time.perf_counter()
        if now >= deadline:
            return count / (now - began)


def _rate_with_parse() -> float:
    texts = [_fields(text) for _, text, _ in MIX]
    count = 0
    began = time.perf_counter()
    while time.perf_counter() - began < SECONDS_EACH:
        for fields in texts:
            next_run_time(fields, START + count)
        count += len(texts)
    return count / (time.perf_counter() - began)


def main() -> list[str]:
    """Measure and return one line per schedule, then the overall figures."""
    lines = ["crontab: next-run computations per second (parsed once, chained)"]
    rates = []
    for label, text, tz in MIX:
        rate = _rate(text, tz)
        rates.append(rate)
        lines.append(f"  {label:<26} {text:<22} {tz:<20} {rate:>10,.0f}/s")
    mean = len(rates) / sum(1 / r for r in rates)
    lines.append(f"  harmonic mean over the mix: {mean:,.0f}/s")
    lines.append(f"  next_run_time() from the attribute texts (UTC): {_rate_with_parse():,.0f}/s")
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
