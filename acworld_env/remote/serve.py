"""Running the HTTP server: in the foreground (``acworld serve``) or on a background thread.

:class:`ServerThread` starts a real uvicorn server on 127.0.0.1 and an ephemeral port in this
process (tests, the parity gate, the benchmark) and stops it on exit.
"""

from __future__ import annotations

import gc
import socket
import threading
import time
from pathlib import Path
from typing import Any

from .gates import LOOPBACK
from .hosted import Host
from .taskdata import ServerCatalogs

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "LOOPBACK", "ServerThread", "free_port", "serve"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def _uvicorn_config(app: Any, host: str, port: int, **kwargs: Any) -> Any:
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level=kwargs.pop("log_level", "warning"),
                          access_log=False, lifespan="auto", timeout_graceful_shutdown=2, **kwargs)




def serve(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, runs_dir: str | Path | None = None,
          idle_timeout: float = 900.0, log_level: str = "info", admin_token: str | None = None,
          catalogs: ServerCatalogs | None = None) -> None:
    """Serve the market API until interrupted (``admin_token``: see :func:`~acworld_env.remote.app.create_app`;
    ``catalogs``: the catalogs clients may name, :class:`~acworld_env.remote.taskdata.ServerCatalogs`)."""
    import uvicorn

    from .app import create_app

    app = create_app(Host(runs_dir=runs_dir, idle_timeout=idle_timeout, catalogs=catalogs),
                     admin_token=admin_token, bind=host)
    config = _uvicorn_config(app, host, port, log_level=log_level)
    # Everything alive now (modules, classes, the app) lives as long as the server: leave it out of
    # the collector's full passes, which otherwise scan it all and pause every episode (a split
    # generated in a worker thread triggers such passes: 190 -> 70 ms measured).
    gc.freeze()
    uvicorn.Server(config).run()


def free_port(host: str = DEFAULT_HOST) -> int:
    """A port the OS reports free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class ServerThread:
    """A real uvicorn server on a background thread: ``with ServerThread() as url: ...``."""

    def __init__(self, host_obj: Host | None = None, *, app: Any = None, host: str = DEFAULT_HOST,
                 port: int | None = None, startup_timeout: float = 20.0, admin_token: str | None = None) -> None:
        import uvicorn

        if app is None:
            from .app import create_app

            app = create_app(host_obj or Host(), admin_token=admin_token, bind=host)
        self.app = app
        self.host_obj = getattr(getattr(app, "state", None), "host", host_obj)
        self.port = port or free_port(host)
        self.url = f"http://{host}:{self.port}"
        self.server = uvicorn.Server(_uvicorn_config(app, host, self.port))
        self.server.install_signal_handlers = lambda: None  # type: ignore[method-assign]  (not the main thread)
        self.thread = threading.Thread(target=self.server.run, name=f"acworld-http-{self.port}", daemon=True)
        self.startup_timeout = startup_timeout

    def start(self) -> str:
        """Start and wait until the server accepts connections; return its URL."""
        self.thread.start()
        deadline = time.monotonic() + self.startup_timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the HTTP server on {self.url} did not start")
            time.sleep(0.01)
        return self.url

    def stop(self) -> None:
        """Ask the server to exit and wait for its thread."""
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
