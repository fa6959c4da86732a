"""How the loopback upstream plays a model that drives the client's shell (`behave(m, shell=...)`).

Real agent clients (Claude Code, Codex, opencode) only prove a tool loop
works when a model calls *their* shell tool with arguments their schema
accepts, the client runs it, and the result comes back in the next request.
Each client names and shapes that tool its own way — Claude Code's `Bash`
and opencode's `bash` take `{command, description}`, Codex's `exec_command`
takes `{cmd}` — so the call is built from the tool the request offers, never
from a list of clients: a client that renames a field still gets a call its
schema accepts, and one that drops the tool gets plain text.

A turn is one of three:

- the request offers a shell tool and no tool result has come since the
  model's last answer: call the shell with the command;
- a tool result has come since then: final text quoting it, so a test that
  finds the command's *output* (not the command) in the client's answer
  knows the result reached the member;
- no shell tool offered (a title request, say): no change to the behaviour.
"""

from __future__ import annotations

from typing import Any

SHELL_TOOLS = ("bash", "exec_command", "shell", "run_shell_command")
"""Names of shell tools, compared without case."""
COMMAND_FIELDS = ("command", "cmd")
QUOTED_CHARS = 400
"""How much of the tool's output the final text quotes."""


def shell_turn(body: dict[str, Any], command: str) -> dict[str, Any]:
    """The behaviour fields (`tool_calls` or `answer`) for this turn; empty when there is no shell."""
    result = tool_result_since_last_answer(body.get("messages") or [])
    if result is not None:
        return {"answer": f"the shell said: {' '.join(result.split())[:QUOTED_CHARS]}"}
    tool = offered_shell(body.get("tools") or [])
    if tool is None:
        return {}
    return {"tool_calls": [{"name": tool["name"], "arguments": shell_arguments(tool, command)}]}


def offered_shell(tools: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first shell tool among the request's tools (its `function` part), if any."""
    for tool in tools:
        function = tool.get("function") or {}
        if str(function.get("name", "")).lower() in SHELL_TOOLS:
            return dict(function)
    return None


def shell_arguments(function: dict[str, Any], command: str) -> dict[str, Any]:
    """Arguments for the shell tool that its own JSON schema accepts."""
    properties = (function.get("parameters") or {}).get("properties") or {}
    field = next((name for name in COMMAND_FIELDS if name in properties), "command")
    arguments: dict[str, Any] = {
        field: ["bash", "-lc", command] if properties.get(field, {}).get("type") == "array" else command
    }
    if "description" in properties:
        arguments["description"] = "Print a marker for the panelgate tests"
    return arguments


def tool_result_since_last_answer(messages: list[dict[str, Any]]) -> str | None:
    """The text of the tool results after the model's last answer, or None when none came."""
    since: list[dict[str, Any]] = []
    for message in reversed(messages):
        if message.get("role") == "assistant":
            break
        since.append(message)
    results = [_text(message.get("content")) for message in reversed(since) if message.get("role") == "tool"]
    return "\n".join(results) if results else None


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else str(content)
