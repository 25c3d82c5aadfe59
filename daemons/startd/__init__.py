"""The startd: simulated machines, their slots and claims (slot.py is the state machine)."""
