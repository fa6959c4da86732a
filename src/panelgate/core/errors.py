"""Refusals the gateway gives its callers, before or during a panel.

    GatewayError            status + a message a person can act on
    ├── BadRequest          400  the request cannot be served as sent
    ├── Unauthorized        401  no key, or one the gateway does not know
    ├── Forbidden           403  known caller, but not allowed this
    ├── NotFound            404  no such collection, call or route
    ├── MethodNotAllowed    405  the route exists, but not for this method
    ├── TooLarge            413  the prompt or body is larger than allowed
    ├── UnsupportedMedia    415  the body is not JSON
    ├── RateLimited         429  every model that could answer is rate limited
    ├── UpstreamFailed      502  every model that could answer failed
    └── Unavailable         503  nothing can answer right now

Formats turn these into their own error bodies; `param` names the request
field at fault when there is one.
"""

from __future__ import annotations


class GatewayError(Exception):
    status = 500
    kind = "api_error"

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param


class BadRequest(GatewayError):
    status = 400
    kind = "invalid_request_error"


class Unauthorized(GatewayError):
    status = 401
    kind = "authentication_error"


class Forbidden(GatewayError):
    status = 403
    kind = "permission_error"


class NotFound(GatewayError):
    status = 404
    kind = "not_found_error"


class MethodNotAllowed(GatewayError):
    status = 405
    kind = "invalid_request_error"


class TooLarge(GatewayError):
    status = 413
    kind = "request_too_large"


class UnsupportedMedia(GatewayError):
    status = 415
    kind = "invalid_request_error"


class RateLimited(GatewayError):
    status = 429
    kind = "rate_limit_error"


class UpstreamFailed(GatewayError):
    status = 502
    kind = "api_error"


class Unavailable(GatewayError):
    status = 503
    kind = "overloaded_error"


def error_for_status(status: int, message: str) -> GatewayError:
    """The refusal kind for a status, for failures reported after a panel started."""
    for kind in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        TooLarge,
        UnsupportedMedia,
        RateLimited,
        UpstreamFailed,
        Unavailable,
    ):
        if kind.status == status:
            return kind(message)
    return GatewayError(message)
