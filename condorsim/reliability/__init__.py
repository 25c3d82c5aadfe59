"""Reliability drivers: chaos (daemons killed at random moments), fuzz (mutated frames to a
live pool) and load (many concurrent tool clients). ``python -m condorsim.reliability``
runs them; ``make chaos``, ``make fuzz`` and ``make load`` call it (docs/reliability.md)."""
