"""The small base scenario of the sweep tests (the fixture base_dir writes it)."""

from __future__ import annotations

BASE = '''
[scenario]
name = "two users, one machine"
start = 2026-01-05T09:00:00Z
until = "40m"

[config]
NEGOTIATOR_INTERVAL = 60
JOB_ROUTER_ROUTE_NAMES = "Site1"
JOB_ROUTER_ROUTE_Site1 = """
REQUIREMENTS WantJobRouter is true
GridResource = "batch slurm"
MaxIdleJobs = 2
"""

[[machine]]
name = "exec"

[[machine]]
name = "big"
slots = 2

[[site]]
resource = "batch slurm"
slots = 2

[[submit]]
owner = "alice"
text = """
executable = /bin/sleep
arguments  = 300
queue 3
"""

[[submit]]
at = "2m"
owner = "bob"
file = "bob.sub"

[[expect]]
at = "35m"
constraint = "JobStatus == 4"
count = 5
'''

BOB = """executable = /bin/sleep
arguments  = 120
log        = bob.log
queue 2
"""
