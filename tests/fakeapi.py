"""A local fake of the Anthropic and OpenAI HTTP APIs, answering scripted replies in order."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self


@dataclass(frozen=True)
class Reply:
    """One scripted answer; `drop` closes the connection without answering."""

    status: int = 200
    body: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    drop: bool = False
    delay: float = 0.0


@dataclass(frozen=True)
class Seen:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


def anthropic_message(text: str, stop_reason: str = "end_turn", input_tokens: int = 11,
                      output_tokens: int = 7, model: str = "claude-test") -> dict[str, Any]:
    """A Messages API response body."""
    return {"id": "msg_01", "type": "message", "role": "assistant", "model": model,
            "content": [{"type": "text", "text": text}], "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens}}


def openai_completion(text: str, finish_reason: str = "stop", prompt_tokens: int = 11,
                      completion_tokens: int = 7, model: str = "gpt-test") -> dict[str, Any]:
    """A Chat Completions response body."""
    return {"id": "chatcmpl-01", "object": "chat.completion", "created": 1_700_000_000,
            "model": model,
            "choices": [{"index": 0, "finish_reason": finish_reason, "logprobs": None,
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}}


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error body in the shape both APIs use."""
    return {"type": "error", "error": {"type": kind, "message": message}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, api: FakeAPI) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.api = api


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    timeout = 10

    def do_POST(self) -> None:  # noqa: N802 - the name http.server looks for
        length = int(self.headers.get("content-length", "0"))
        body = json.loads(self.rfile.read(length) or b"{}")
        api = self.server.api
        reply = api.take(Seen(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        try:
            time.sleep(reply.delay)
        finally:
            # Leave the in-flight count before answering: once the client can read the answer
            # it may send its next request, and the count must not lag behind it.
            api.done()
        if reply.drop:
            self.close_connection = True
            return
        payload = json.dumps(reply.body).encode()
        self.send_response(reply.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base signature
        """Stay quiet."""


class FakeAPI:
    """A threaded HTTP server on 127.0.0.1 that records requests and answers from a script."""

    def __init__(self) -> None:
        self.seen: list[Seen] = []
        self.peak = 0
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._active = 0
        self._server = _Server(self)
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,),
                                        name="fake-api", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *replies: Reply) -> None:
        """Queue replies, answered in order; an unscripted request gets a 418."""
        with self._lock:
            self._replies.extend(replies)

    def take(self, seen: Seen) -> Reply:
        with self._lock:
            self.seen.append(seen)
            self._active += 1
            self.peak = max(self.peak, self._active)
            if self._replies:
                return self._replies.popleft()
        return Reply(418, error_body("unscripted", f"no reply scripted for {seen.path}"))

    def done(self) -> None:
        with self._lock:
            self._active -= 1

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
