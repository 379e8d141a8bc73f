"""A stand-in OpenAI-compatible endpoint that misbehaves on purpose (python3 http.server).

    python3 fake_llm.py PORT MODE

MODE is `hang` (reads the request, never answers), `error` (answers 503 at once) or `ok` (a
usable JSON reply). `POST /control/<mode>` switches the mode; `GET /control/calls` answers the
number of chat-completion calls received. Kill the process to make the port refuse connections.
"""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

state = {"mode": sys.argv[2] if len(sys.argv) > 2 else "hang", "calls": 0}
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_args):
        pass

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/control/calls":
            self._send(200, {"calls": state["calls"], "mode": state["mode"]})
        else:
            self._send(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if self.path.startswith("/control/"):
            with lock:
                state["mode"] = self.path.rsplit("/", 1)[1]
            self._send(200, {"mode": state["mode"]})
            return
        with lock:
            state["calls"] += 1
            mode = state["mode"]
        if mode == "hang":
            time.sleep(3600)
        elif mode == "error":
            self._send(503, {"error": {"message": "overloaded"}})
        else:
            content = json.dumps({"message": "Thank you.", "revisions": [], "revision_note": None})
            self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler)
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()
