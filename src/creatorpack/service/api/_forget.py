"""Passing a change on to the routes, and forgetting a cached read once it has committed."""

from __future__ import annotations

from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["pass_on_then_forget"]


async def pass_on_then_forget(
    app: ASGIApp, scope: Scope, receive: Receive, send: Send, forget: Callable[[], None]
) -> None:
    """Pass a request that changes something on to ``app``; call ``forget`` when its answer starts.

    The route has committed by the time it answers, so a cached read forgotten then cannot be
    reloaded from before the change; ``forget`` runs again if the route failed before answering.
    """

    async def forget_then_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            forget()
        await send(message)

    try:
        await app(scope, receive, forget_then_send)
    finally:
        forget()
