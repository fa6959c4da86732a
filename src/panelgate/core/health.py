"""A model's health status and whether it should be retired, read from the evidence of its calls.

Pure rules (no I/O, no clock reads: `now` is passed in), so the dashboard's
status chip, the admin API and the auto-retire job can never disagree about
a model. The evidence is every upstream call the gateway made to the model
(panel seats, merges, route turns, probes) since it was added or last
restored, and whether its endpoint still lists it.

Retirement is the one thing here that acts on a person's bench, so the
rules lean towards keeping a model (SPEC §8):

- a model that says it is not there, not allowed or not paid for
  (`structural`, `entitlement`, `paywalled`) is retired once a second call
  fails the same way, never on one call;
- one that is missing from its endpoint's list, or keeps failing for other
  reasons, gets three days (three distinct failing days) to answer again;
- rate limits (`capacity`) and refused keys (`signin`) never count: the
  first fixes itself, the second is the person's to fix (an alert says so);
- timeouts count only when nothing has answered for a week;
- and when every model of one connection is down at once the fault is the
  connection's, so nothing there is retired (`guard_connections`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Literal

HealthStatus = Literal[
    "healthy",
    "untested",
    "throttled",
    "slow",
    "empty reply",
    "not found",
    "no access",
    "sign in again",
    "failing",
    "retiring",
    "retired",
]
PlanAction = Literal["keep", "confirm", "retire", "countdown", "held"]
CallStatus = Literal["ok", "empty", "error"]

GRACE = timedelta(days=3)
"""How long a model missing from its endpoint's list has to come back."""
FAILING_DAYS = 3
"""Distinct UTC days of failures, with no answer between, that retire a model."""
PATIENCE = timedelta(days=7)
"""Timeouts count only when failures span this long without an answer."""
SLOW_S = 30.0
"""A one-word reply taking this long (or longer) makes a model `slow`."""

HARD_KINDS = frozenset({"structural", "entitlement", "paywalled"})
"""Failures that say the model is gone or closed to us: retired once confirmed by a second call."""
NEVER_COUNTED = frozenset({"capacity", "signin"})
PATIENT_KINDS = frozenset({"timeout"})

_STATUS_OF_KIND: dict[str, HealthStatus] = {
    "capacity": "throttled",
    "timeout": "slow",
    "empty": "empty reply",
    "structural": "not found",
    "entitlement": "no access",
    "paywalled": "no access",
    "signin": "sign in again",
}
_SAYS: dict[str, str] = {
    "structural": "the endpoint says the model is not there",
    "entitlement": "the account has no access to the model",
    "paywalled": "the endpoint asks for payment",
    "signin": "the endpoint refuses its key",
    "capacity": "rate limited",
    "timeout": "timed out",
    "empty": "answered with nothing",
    "other": "failed",
}


@dataclass(frozen=True)
class Outcome:
    """One call to the model: when it ended and how (`kind`: the error's taxonomy kind)."""

    at: datetime
    status: CallStatus
    kind: str | None = None
    purpose: str = "panel"
    seconds: float = 0.0

    @property
    def failure(self) -> str | None:
        """What went wrong, as a taxonomy kind (`empty` for an empty answer); None when it answered."""
        if self.status == "ok":
            return None
        return "empty" if self.status == "empty" else (self.kind or "other")


@dataclass(frozen=True)
class Evidence:
    """What is known about one model on the bench."""

    alias: str
    endpoint: str
    last_answer: datetime | None = None
    failures: tuple[Outcome, ...] = ()
    """Calls that failed after the last answer, oldest first."""
    latest: Outcome | None = None
    """The newest call, answered or not."""
    missing_since: datetime | None = None
    """When its endpoint's model list first left it out (None: listed, or never checked)."""
    reply_seconds: float | None = None
    """How long its newest one-word probe took to answer."""

    @property
    def tested(self) -> bool:
        return self.latest is not None or self.missing_since is not None

    @property
    def down(self) -> bool:
        """Not answering: its newest call failed (a rate limit aside), or its endpoint stopped listing it."""
        if self.missing_since is not None and not self.answered_since(self.missing_since):
            return True
        failure = None if self.latest is None else self.latest.failure
        return failure is not None and failure != "capacity"

    def answered_since(self, moment: datetime) -> bool:
        return self.last_answer is not None and self.last_answer >= moment


@dataclass(frozen=True)
class RetirePlan:
    """What auto-retire does with a model: keep it, confirm a failure with one more call, retire it,
    count down to retiring it unless it answers, or hold off because its whole connection is down."""

    action: PlanAction
    why: str = ""
    retires_at: datetime | None = None


@dataclass(frozen=True)
class Health:
    status: HealthStatus
    label: str
    """The status as a person reads it (`retiring in 2 days`)."""
    why: str
    retires_in_days: int | None = None


@dataclass(frozen=True)
class GuardedPlans:
    plans: dict[str, RetirePlan]
    down_connections: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Endpoint → its models, for each connection whose every model is down (nothing there retires)."""


def plan_for(evidence: Evidence, now: datetime) -> RetirePlan:
    """What the evidence says to do with one model, its connection aside (see `guard_connections`)."""
    counted = [f for f in evidence.failures if f.failure not in NEVER_COUNTED]
    if (missing := _missing_too_long(evidence, now)) is not None:
        return missing
    steady = [f for f in counted if f.failure not in PATIENT_KINDS]
    if steady and steady[-1].failure in HARD_KINDS:
        return _hard(steady)
    days = sorted({f.at.date() for f in steady})
    if len(days) >= FAILING_DAYS:
        return RetirePlan(
            "retire", f"failed on {len(days)} different days since {days[0]} without answering once"
        )
    if len({f.at.date() for f in counted}) >= FAILING_DAYS and counted[-1].at - counted[0].at >= PATIENCE:
        return RetirePlan("retire", f"no answer for {PATIENCE.days} days (since {counted[0].at.date()})")
    return _countdown(evidence, days, now)


def _missing_too_long(evidence: Evidence, now: datetime) -> RetirePlan | None:
    since = evidence.missing_since
    if since is None or evidence.answered_since(since) or now - since < GRACE:
        return None
    return RetirePlan("retire", f"`{evidence.endpoint}` has not listed it since {since.date()}")


def _hard(steady: Sequence[Outcome]) -> RetirePlan:
    kind = steady[-1].failure or "other"
    repeated = 0
    for failure in reversed(steady):
        if failure.failure != kind:
            break
        repeated += 1
    if repeated >= 2:
        return RetirePlan("retire", f"{_SAYS[kind]}, confirmed by a second call")
    return RetirePlan("confirm", f"{_SAYS[kind]} (once; one more call confirms it)")


def _countdown(evidence: Evidence, days: Sequence[date], now: datetime) -> RetirePlan:
    deadlines: list[tuple[datetime, str]] = []
    since = evidence.missing_since
    if since is not None and not evidence.answered_since(since):
        deadlines.append((since + GRACE, f"`{evidence.endpoint}` stopped listing it on {since.date()}"))
    if len(days) >= FAILING_DAYS - 1:  # one bad day shows as what went wrong, not yet as a countdown
        last = datetime.combine(days[-1], datetime.min.time(), now.tzinfo)
        left = FAILING_DAYS - len(days)
        deadlines.append((last + timedelta(days=left), f"failed on {len(days)} days without answering"))
    if not deadlines:
        return RetirePlan("keep")
    retires_at, why = min(deadlines)
    return RetirePlan("countdown", f"{why}; retires unless it answers", retires_at)


def guard_connections(evidence: Mapping[str, Evidence], plans: Mapping[str, RetirePlan]) -> GuardedPlans:
    """Hold every plan on a connection whose models (two or more, all tested) are all down at once.

    One failing connection (a revoked key, an outage, a moved base URL)
    looks like every model on it failing; retiring them all would empty the
    bench for a fault the person fixes in one place.
    """
    by_endpoint: dict[str, list[str]] = {}
    for alias, found in evidence.items():
        by_endpoint.setdefault(found.endpoint, []).append(alias)
    guarded = dict(plans)
    down: dict[str, tuple[str, ...]] = {}
    for endpoint, aliases in by_endpoint.items():
        models = [evidence[alias] for alias in aliases]
        if len(models) < 2 or not all(m.tested and m.down for m in models):
            continue
        down[endpoint] = tuple(sorted(aliases))
        for alias in aliases:
            plan = guarded.get(alias, RetirePlan("keep"))
            if plan.action != "keep":
                why = f"{plan.why}; held: every model on `{endpoint}` is down at once"
                guarded[alias] = replace(plan, action="held", why=why, retires_at=None)
    return GuardedPlans(guarded, down)


def health_of(
    evidence: Evidence,
    plan: RetirePlan,
    now: datetime,
    *,
    retired_why: str | None = None,
) -> Health:
    """The status chip for one model; `retired_why` is given for a retired model."""
    if retired_why is not None:
        return Health("retired", "retired", retired_why or "retired")
    if plan.action == "countdown" and plan.retires_at is not None:
        left = max(0, math.ceil((plan.retires_at - now) / timedelta(days=1)))
        label = "retiring today" if left == 0 else f"retiring in {left} day{'s' if left != 1 else ''}"
        return Health("retiring", label, plan.why, left)
    latest = evidence.latest
    if latest is None:
        if evidence.missing_since is not None:
            return Health("not found", "not found", f"`{evidence.endpoint}` does not list it")
        return Health("untested", "untested", "no call to it yet")
    failure = latest.failure
    when = f"{latest.purpose} call at {latest.at:%Y-%m-%d %H:%M} UTC"
    if failure is None:
        if evidence.reply_seconds is not None and evidence.reply_seconds >= SLOW_S:
            return Health("slow", "slow", f"a one-word reply took {evidence.reply_seconds:.0f} s")
        return Health("healthy", "healthy", f"answered its last {when}")
    status = _STATUS_OF_KIND.get(failure, "failing")
    why = f"{_SAYS.get(failure, _SAYS['other'])} on its last {when}"
    if plan.action in ("held", "confirm", "retire"):
        why = f"{why}; {plan.why}"
    return Health(status, status, why)
