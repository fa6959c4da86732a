"""Whether an answer mentions a clause, and whether it asserts it.

A must-find clause only has to be there. A must-not-claim clause has to be
*asserted*: "there is no race condition here" mentions a race condition
without claiming one, and counting it as an invention would punish the
careful answer. So a mention is not a claim when a negation word stands
before it in the same sentence, close enough to govern it
(`NEGATION_REACH` characters). The next sentence starts afresh, and so does
the part after a `but` or `however`: "No race in `put`. The cache has a race
condition." and "`put` is not racy, but `get` has a race condition" both
still claim one.

Phrases match whole words at their edges: `FAULT: line 1` is not found in
`FAULT: line 12`. Everything matches in any case.
"""

from __future__ import annotations

import re
from functools import lru_cache

from panelgate.suite.task import AnyOf, Clause, Phrase

NEGATION_REACH = 60
NEGATION = re.compile(
    r"\b(?:not|no|never|none|nothing|neither|nor|without|cannot|nowhere)\b|n[’']t\b", re.IGNORECASE
)
SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n|\b(?:but|however|although|whereas)\b", re.IGNORECASE)
_FLAGS = re.IGNORECASE | re.MULTILINE


@lru_cache(maxsize=4096)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A phrase as a pattern: any case, any white space between its words, whole words at its edges."""
    body = r"\s+".join(re.escape(word) for word in phrase.split())
    head = r"(?<!\w)" if phrase.strip()[:1].isalnum() else ""
    tail = r"(?!\w)" if phrase.strip()[-1:].isalnum() else ""
    return re.compile(head + body + tail, _FLAGS)


@lru_cache(maxsize=4096)
def regex_pattern(regex: str) -> re.Pattern[str]:
    return re.compile(regex, _FLAGS)


def patterns(clause: Clause) -> list[re.Pattern[str]]:
    if isinstance(clause, Phrase):
        return [phrase_pattern(clause.text)]
    if isinstance(clause, AnyOf):
        return [phrase_pattern(phrase) for phrase in clause.phrases]
    return [regex_pattern(clause.regex)]


def mentions(clause: Clause, text: str) -> bool:
    """Whether `text` holds the clause anywhere, negated or not."""
    return any(pattern.search(text) for pattern in patterns(clause))


def asserts(clause: Clause, text: str) -> bool:
    """Whether `text` holds the clause at least once outside a negation."""
    return any(
        not negated(text, match.start()) for pattern in patterns(clause) for match in pattern.finditer(text)
    )


def negated(text: str, at: int) -> bool:
    """Whether a negation word governs the words starting at `at`: same sentence, shortly before."""
    before = text[max(0, at - NEGATION_REACH) : at]
    ends = list(SENTENCE_END.finditer(before))
    if ends:
        before = before[ends[-1].end() :]
    return NEGATION.search(before) is not None
