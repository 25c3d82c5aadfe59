"""The negotiator: matchmaking cycles (matchmaker.py, accountant.py, schedule.py are sans-I/O)."""
