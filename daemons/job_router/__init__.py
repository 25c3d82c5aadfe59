"""condor_job_router (docs/router.md)."""
