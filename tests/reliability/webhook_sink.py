"""A webhook receiver on loopback for the kill -9 campaign: answers 204 to every POST and keeps,
per event id in the payload, the `webhook-id` header of each request that carried it."""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A kill -9 of the service mid-delivery resets the connection: expected, not news.
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class WebhookSink:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.hits: dict[str, list[str]] = {}  # payload id -> webhook-id of each request
        self.requests = 0
        sink = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    event = json.loads(body).get("id", "")
                except ValueError:
                    event = ""
                with sink.lock:
                    sink.requests += 1
                    sink.hits.setdefault(event, []).append(self.headers.get("webhook-id", ""))
                self.send_response(204)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def received(self) -> dict[str, list[str]]:
        with self.lock:
            return {k: list(v) for k, v in self.hits.items()}

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
