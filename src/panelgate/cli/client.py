"""The CLI's only way to the bench: HTTP to a running panelgate server.

The command never opens the database itself, so it behaves the same against
the server on this machine and one across the network, and every rule the
server enforces (validation, auth, audit) applies to the command too. This
module turns transport trouble and error bodies into `CliFailure`s; a
credential goes into an `Authorization` header and nowhere else, so it can
never reach a message.

`PANELGATE_TIMEOUT` bounds a whole exchange, a streamed panel included: the
server's keep-alive comments restart a read timeout, so that alone would
never end a panel that runs longer than the person asked to wait.
"""

from __future__ import annotations

import http.client
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

import orjson

from panelgate import __version__
from panelgate.cli.failures import CliFailure, NoServer, Refused, UsageProblem
from panelgate.cli.transport import Response, Transport, Unreachable, lines

DEFAULT_URL = "http://127.0.0.1:8122"
DEFAULT_TIMEOUT_S = 900.0
CONNECT_TIMEOUT_S = 10.0


def server_url(raw: str) -> str:
    """The server's base URL: scheme added when missing, trailing `/` and `/v1` dropped."""
    url = raw.strip().rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    url = url.removesuffix("/v1").rstrip("/")
    if not url.startswith(("http://", "https://")) or url.endswith("://") or not _port_is_valid(url):
        raise UsageProblem(f"`{raw}` is not an http(s) URL of a panelgate server (--url / PANELGATE_URL)")
    return url


def _port_is_valid(url: str) -> bool:
    """No port, or a number a connection can be opened to (`host:abc` and `host:99999` are not)."""
    try:
        port = urlsplit(url).port
    except ValueError:
        return False
    return port is None or port > 0


def _timeout(raw: str | None) -> float:
    if not raw:
        return DEFAULT_TIMEOUT_S
    try:
        seconds = float(raw)
    except ValueError:
        seconds = -1.0
    if not seconds > 0:
        raise UsageProblem(f"PANELGATE_TIMEOUT must be a number of seconds above 0; got `{raw}`")
    return seconds


@dataclass(frozen=True)
class Connection:
    """Where the server is and what to show it; `repr` never shows a credential."""

    url: str
    gateway_key: str | None = None
    admin_token: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S

    @classmethod
    def from_env(cls, url: str | None = None, env: Mapping[str, str] | None = None) -> Connection:
        """`--url` beats `PANELGATE_URL`; the credentials and timeout come from the environment."""
        env = os.environ if env is None else env
        return cls(
            url=server_url(url or env.get("PANELGATE_URL") or DEFAULT_URL),
            gateway_key=env.get("PANELGATE_KEY") or None,
            admin_token=env.get("PANELGATE_ADMIN_TOKEN") or None,
            timeout_s=_timeout(env.get("PANELGATE_TIMEOUT")),
        )

    def __repr__(self) -> str:
        return f"Connection(url={self.url!r}, timeout_s={self.timeout_s!r})"


def segment(name: str) -> str:
    """A name as one URL path segment, whatever characters it holds."""
    return quote(name, safe="")


def is_admin_path(path: str) -> bool:
    return path.startswith("/api/")


def message_in(body: object) -> str | None:
    """The `error.message` of an error body (or a bare `error` string), if it has one."""
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("message")
    return error if isinstance(error, str) and error else None


def _error_message(response: Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if (message := message_in(body)) is not None:
        return message
    if "text/html" in response.headers.get("content-type", ""):
        return f"the server answered {response.status_code} with a web page; is it a panelgate server?"
    return f"the server answered {response.status_code} without saying why"


def _refusal(response: Response, path: str) -> Refused:
    message = _error_message(response)
    if response.status_code == 404 and message.startswith("no route"):
        message += f"; the server may be older than this command (panelgate {__version__})"
    elif response.status_code in (401, 403):
        needed = "PANELGATE_ADMIN_TOKEN" if is_admin_path(path) else "PANELGATE_KEY"
        message += f" (this command sends {needed} when it is set)"
    return Refused(message, response.status_code)


class Client:
    """An HTTP client of one server; each exchange opens and closes its own connection."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._http = Transport(
            connection.url,
            headers={"User-Agent": f"panelgate-cli/{__version__}", "Accept": "*/*"},
            timeout_s=connection.timeout_s,
            connect_timeout_s=min(connection.timeout_s, CONNECT_TIMEOUT_S),
        )

    def _headers(self, path: str) -> dict[str, str]:
        secret = self.connection.admin_token if is_admin_path(path) else self.connection.gateway_key
        return {"Authorization": f"Bearer {secret}"} if secret else {}

    def _too_slow(self) -> CliFailure:
        return CliFailure(
            f"the server at {self.connection.url} did not finish within {self.connection.timeout_s:g} s "
            "(PANELGATE_TIMEOUT sets the limit)"
        )

    def _transport_failure(self, error: Unreachable | OSError | http.client.HTTPException) -> CliFailure:
        url = self.connection.url
        if isinstance(error, Unreachable):
            return NoServer(url)
        if isinstance(error, TimeoutError):
            return self._too_slow()
        return CliFailure(f"the connection to {url} broke off ({type(error).__name__})")

    def send(
        self, method: str, path: str, *, body: Any = None, params: Mapping[str, str] | None = None
    ) -> Response:
        """One request; a refusal raises `Refused` with the server's message."""
        try:
            response = self._http.request(method, path, body=body, params=params, headers=self._headers(path))
        except (Unreachable, OSError, http.client.HTTPException) as error:
            raise self._transport_failure(error) from None
        if response.status_code >= 400:
            raise _refusal(response, path)
        return response

    def call(
        self, method: str, path: str, *, body: Any = None, params: Mapping[str, str] | None = None
    ) -> Any:
        """One request whose answer is JSON; the decoded answer."""
        response = self.send(method, path, body=body, params=params)
        try:
            return response.json()
        except ValueError:
            raise CliFailure(
                f"{self.connection.url}{path} answered something other than JSON; is it a panelgate server?"
            ) from None

    def events(self, path: str, body: Any) -> Iterator[dict[str, Any]]:
        """POST and read the answer as server-sent events: each `data:` object until `[DONE]`.

        An `{"error": ...}` event (a failure after the stream began) raises `Refused`; a
        stream still running after `PANELGATE_TIMEOUT` seconds is given up."""
        deadline = time.monotonic() + self.connection.timeout_s
        try:
            with self._http.exchange("POST", path, body=body, headers=self._headers(path)) as streamed:
                if streamed.status >= 400:
                    raise _refusal(Response(streamed.status, streamed.headers, streamed.read()), path)
                for line in lines(streamed):
                    if time.monotonic() > deadline:
                        raise self._too_slow()
                    if not line.startswith("data:"):
                        continue
                    payload = line[len("data:") :].strip()
                    if payload == "[DONE]":
                        return
                    event = _event(payload)
                    if "error" in event:
                        raise Refused(
                            message_in(event) or "the panel failed after it started, without saying why"
                        )
                    yield event
        except (Unreachable, OSError, http.client.HTTPException) as error:
            raise self._transport_failure(error) from None


def _event(payload: str) -> dict[str, Any]:
    try:
        event = orjson.loads(payload)
    except orjson.JSONDecodeError:
        event = None
    if not isinstance(event, dict):
        raise CliFailure(
            "the server sent a stream event that is not a JSON object; is it a panelgate server?"
        )
    return event
