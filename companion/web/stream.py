"""Live updates: ``GET /api/events/stream``, server-sent events.

Each connected page holds one stream (and one server thread). The first
message is a snapshot of the table; then one ``table`` event per change,
with SSE comments as keep-alives in between. Beyond ``SSE_MAX_CLIENTS``
pages, or beyond ``Broadcaster.per_address`` (4) from one address, the
answer is 503 and the browser's ``EventSource`` tries again.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, request
from flask.typing import ResponseReturnValue

from companion.web.access import error_body
from companion.web.live import TooManyClients

bp = Blueprint("stream", __name__, url_prefix="/api/events")


@bp.get("/stream")
def stream() -> ResponseReturnValue:
    """The live stream of table snapshots (``text/event-stream``)."""
    from companion.web import live_of

    try:
        client = live_of(current_app._get_current_object())  # type: ignore[attr-defined]
        feed = client.connect(request.remote_addr)
    except TooManyClients as exc:
        return error_body(f"too many pages are watching: {exc}", None, 503)
    except RuntimeError as exc:
        return error_body(str(exc), None, 503)
    return Response(feed, mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
