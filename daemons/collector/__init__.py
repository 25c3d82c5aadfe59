"""The collector: stores daemon ads, answers queries (logic.py is its state machine)."""
