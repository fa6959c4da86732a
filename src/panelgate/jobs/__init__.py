"""The scheduler and its jobs: health probes, speed tests, auto-retire, catalog refresh, suite passes.

`Scheduler` (runner.py) runs inside every gateway process; the one holding
the database lease runs the jobs (registry.py) at their due times.
"""
