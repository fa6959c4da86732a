"""Why an upstream call failed, as fields failover and auto-retire can branch on.

    UpstreamError               kind, provider, status, retry_after, partial_text, attempts
    ├── UpstreamConnectError    the endpoint could not be reached (refused, reset, DNS)
    ├── UpstreamTimeout         the call's deadline passed, before or during the reply
    ├── UpstreamStatusError     the endpoint said no: an HTTP error status, a redirect,
    │                           or an `{"error": ...}` chunk inside a stream
    └── UpstreamBadReply        the reply was not a chat reply: garbage, a stream cut
                                off or malformed, or larger than the reply cap

`kind` is the SPEC §8 taxonomy (`KINDS`). Health, auto-retire and the seat's
error line read `kind` and `status`, never the message: messages are for
people. A message is one line of at most 500 characters, with known secrets,
bearer tokens, URL query strings and long base64 runs cut out, because it
ends up in the reply, the database and the logs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

Kind = Literal["timeout", "signin", "structural", "paywalled", "entitlement", "capacity", "empty", "other"]
KINDS: tuple[Kind, ...] = (
    "timeout", "signin", "structural", "paywalled", "entitlement", "capacity", "empty", "other",
)  # fmt: skip

MAX_MESSAGE_CHARS = 500


class UpstreamError(Exception):
    """An upstream call that did not produce an answer.

    `partial_text` keeps what a stream delivered before it failed; `attempts`
    is how many requests were sent (retries included) for the usage ledger;
    `retryable` says whether the same request may simply be sent again.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: Kind = "other",
        provider: str = "",
        status: int | None = None,
        retry_after: float | None = None,
        partial_text: str = "",
        retryable: bool = False,
        secrets: Iterable[str] = (),
    ) -> None:
        self.message = redact(message, secrets)
        super().__init__(self.message)
        self.kind: Kind = kind
        self.provider = provider
        self.status = status
        self.retry_after = retry_after
        self.partial_text = partial_text
        self.retryable = retryable
        self.attempts = 1

    @property
    def never_sent(self) -> bool:
        """Pacing refused the call before any request went out: the model did not fail, it was not asked."""
        return self.kind == "capacity" and self.attempts == 0


class UpstreamConnectError(UpstreamError):
    pass


class UpstreamTimeout(UpstreamError):
    pass


class UpstreamStatusError(UpstreamError):
    pass


class UpstreamBadReply(UpstreamError):
    pass


# ---- classification ---------------------------------------------------------------

_SIGNIN = ("sign in", "signin", "log in", "login", "expired", "invalid api key", "incorrect api key",
           "invalid token", "unauthenticated", "unauthorized", "authentication", "revoked")  # fmt: skip
_KEY_REFUSED = ("api key expired", "api key not valid", "invalid api key", "incorrect api key",
                "token expired", "token has expired", "please sign in", "please log in")  # fmt: skip
_PAYWALL = ("payment required", "insufficient credit", "insufficient_quota", "insufficient balance",
            "requires a paid plan", "paid plan", "billing", "out of credits", "add credits")  # fmt: skip
_FORBIDDEN = ("not allowed", "no access", "permission", "forbidden", "not authorized")
_PLAN = ("not enabled for your plan", "not available on your plan", "not available in your plan",
         "does not have access to model", "not have access to this model")  # fmt: skip
_STRUCTURAL = ("model not found", "model_not_found", "does not exist", "decommissioned", "no such model",
               "unknown model", "not a valid model", "no endpoints found")  # fmt: skip
_CAPACITY = ("rate limit", "rate_limit", "ratelimit", "quota", "too many requests", "overloaded")
_TIMEOUT = ("timed out", "timeout", "deadline exceeded")
_TIMEOUT_STATUSES = frozenset({408, 504, 524})
_BY_WORDING: tuple[tuple[tuple[str, ...], Kind], ...] = (
    (_PAYWALL, "paywalled"),
    (_KEY_REFUSED, "signin"),
    (_PLAN, "entitlement"),
    (_STRUCTURAL, "structural"),
    (_CAPACITY, "capacity"),
    (_TIMEOUT, "timeout"),
)


def _says(text: str, phrases: tuple[str, ...]) -> bool:
    return any(phrase in text for phrase in phrases)


def classify(status: int | None, text: str) -> Kind:
    """The taxonomy kind of an upstream refusal, from its status and body text.

    The status decides where it is unambiguous (401, 402, 404, 429, 408/504);
    a 403 is read for sign-in, payment or access wording; anything else by
    specific wording only, so a 400 about a bad parameter stays `other`. A
    403 that says nothing recognisable is `other` too: calling it an
    entitlement would let auto-retire act on a guess.
    """
    said = text.lower()
    if status in _TIMEOUT_STATUSES:
        return "timeout"
    if status == 402:
        return "paywalled"
    if status == 401:
        return "signin"
    if status == 404:
        return "structural"
    if status == 429:
        return "paywalled" if _says(said, _PAYWALL) else "capacity"
    if status == 403:
        if _says(said, _SIGNIN):
            return "signin"
        if _says(said, _PAYWALL):
            return "paywalled"
        if _says(said, _FORBIDDEN) or _says(said, _PLAN):
            return "entitlement"
    for phrases, kind in _BY_WORDING:
        if _says(said, phrases):
            return kind
    return "other"


# ---- notices sent as answers -------------------------------------------------------

NOTICE_MAX_CHARS = 300
_PAID_NOTICE = ("credit balance is too low", "insufficient funds", "exceeded your current quota")
_NOTICE = (
    *(phrase for phrase in _PAYWALL if phrase not in ("billing", "paid plan")),
    *_PAID_NOTICE,
    "quota exceeded", "exceeded your quota", "rate limit reached", "rate limit exceeded",
    "rate_limit_exceeded", "too many requests", "resource has been exhausted", "resource_exhausted",
)  # fmt: skip
_NOTICE_WORDING = re.compile("|".join(map(re.escape, _NOTICE)))
"""Any of the notice phrasings, in one search: every short answer of every seat is read for them."""


def notice_kind(answer: str) -> Kind | None:
    """`paywalled` or `capacity` when a 200's whole answer is a provider's quota or credit notice.

    Some providers answer "insufficient credits" or "You exceeded your current
    quota" as if it were the model's answer. Only an answer that is
    essentially the notice counts: at most `NOTICE_MAX_CHARS` characters, one
    paragraph with no code, holding one of the notices' own phrasings (never a
    lone word such as "quota" or "billing"). Payment wording (the 402/429
    phrases, a low credit balance, a quota that the plan sets) makes it
    `paywalled`, any other `capacity`, as the same words in a 429 would.
    A real answer that explains quotas is longer, or says more, than a notice.
    """
    said = answer.strip()
    if not said or len(said) > NOTICE_MAX_CHARS or "\n\n" in said or "```" in said:
        return None  # a long answer costs one strip and one length check
    said = said.lower()
    if _NOTICE_WORDING.search(said) is None:
        return None
    return "paywalled" if _says(said, _PAYWALL) or _says(said, _PAID_NOTICE) else "capacity"


# ---- redaction --------------------------------------------------------------------

_BEARER = re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]+")
_KEY_LIKE = re.compile(r"\b(sk|pk|rk|gsk|xai|hf|nvapi|csk)[-_][A-Za-z0-9._-]{8,}")
_QUERY = re.compile(r"(https?://[^\s?#\"'<>]+)\?[^\s\"'<>]*")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=_-]{80,}")
_WHITESPACE = re.compile(r"\s+")


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """One line of at most 500 characters with secrets and long opaque runs cut out."""
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[secret]")
    text = _BEARER.sub(r"\1 [secret]", text)
    text = _KEY_LIKE.sub("[secret]", text)
    text = _QUERY.sub(r"\1?[query]", text)
    text = _BASE64_RUN.sub("[data]", text)
    text = _WHITESPACE.sub(" ", text).strip()
    if len(text) > MAX_MESSAGE_CHARS:
        text = text[: MAX_MESSAGE_CHARS - 1] + "…"
    return text
