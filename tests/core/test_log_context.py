"""A request's log context: ids noted anywhere in the request's tasks reach the lines it writes."""

import asyncio

from panelgate.core.log_context import LogContext, current, note_panel, note_turn


def test_ids_noted_in_a_task_the_request_started_reach_the_requests_context() -> None:
    async def serve_request() -> LogContext:
        context = LogContext(key="laptop")
        current.set(context)

        async def panel_task() -> None:  # as a panel runs: in a task of its own
            note_panel("p1", ["p1.member1", "p1.member2"])

        await asyncio.create_task(panel_task())
        return context

    context = asyncio.run(serve_request())
    assert context.text() == "key=laptop panel=p1 calls=p1.member1,p1.member2"
    assert context.fields() == {"key": "laptop", "panel": "p1", "calls": ["p1.member1", "p1.member2"]}


def test_a_route_turn_names_its_conversation_and_its_one_call() -> None:
    async def serve_request() -> LogContext:
        context = LogContext(route="/v1/messages")
        current.set(context)
        note_turn("c1", "c1.turn1-abc")
        return context

    context = asyncio.run(serve_request())
    assert context.text() == "route=/v1/messages calls=c1.turn1-abc conv=c1"


def test_ids_noted_outside_any_request_go_nowhere() -> None:
    async def job() -> None:  # a scheduler job starts panels with no request around them
        note_panel("p2", ["p2.member1"])

    asyncio.run(job())
    assert current.get() is None
