"""Start-up of the ``toolplug`` command: the median wall time of fresh processes.

    python bench/bench_cli.py [--runs 20] [--quick]

Measures ``toolplug --help``, ``toolplug tools`` (the built-in plugins installed, no config file) and
the time from starting ``toolplug chat hi`` to the first request reaching a local provider server on
127.0.0.1. Every process gets a fresh settings folder, no config file and the fail keyring backend, so
no desktop keyring is asked. Targets: ``--help`` at most 0.15 s, ``tools`` at most 0.25 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

SCRIPT = Path(sys.executable).with_name("toolplug")
TARGETS = {"--help": 0.15, "tools": 0.25}
ANSWER = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


def environment(folder: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(folder),
        "XDG_CONFIG_HOME": str(folder / "xdg"),
        "TOOLPLUG_SETTINGS_DIR": str(folder / "settings"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }


def time_command(arguments: list[str], runs: int, env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run([str(SCRIPT), *arguments], env=env, capture_output=True, check=True, timeout=60)
        times.append(time.perf_counter() - started)
    return times


class FirstRequest:
    """A provider server on 127.0.0.1 that notes when each request arrives and answers "ok"."""

    def __init__(self) -> None:
        self.arrived: list[float] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                owner.arrived.append(time.perf_counter())
                self.rfile.read(int(self.headers.get("content-length") or 0))
                body = json.dumps(ANSWER).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def time_first_request(runs: int, folder: Path, env: dict[str, str]) -> list[float]:
    server = FirstRequest()
    config = folder / "chat.toml"
    config.write_text(f'[providers.here]\napi = "openai-chat"\nmodel = "m"\nbase_url = "{server.url}"\n')
    times = []
    try:
        for _ in range(runs):
            before = len(server.arrived)
            started = time.perf_counter()
            subprocess.run(
                [str(SCRIPT), "--config", str(config), "chat", "hi"], env=env, capture_output=True, check=True,
                timeout=60,
            )
            if len(server.arrived) > before:
                times.append(server.arrived[before] - started)
    finally:
        server.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--quick", action="store_true", help="3 runs each (CI)")
    options = parser.parse_args()
    runs = 3 if options.quick else options.runs
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        env = environment(folder)
        results: dict[str, Any] = {}
        for label, arguments in (("--help", ["--help"]), ("tools", ["tools"])):
            times = time_command(arguments, runs, env)
            results[label] = {"median_s": round(statistics.median(times), 4), "min_s": round(min(times), 4),
                              "target_s": TARGETS[label]}
        first = time_first_request(runs, folder, env)
        results["chat: start to first request"] = {
            "median_s": round(statistics.median(first), 4), "min_s": round(min(first), 4)
        }
    results["runs"] = runs
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
