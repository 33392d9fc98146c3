"""``vale-sim serve``: the designer's workbench, a local web app (docs/workbench.md)."""
from __future__ import annotations

import sys

from ..limits import int_range

PORT_TYPE = int_range(0, 65535, "port")
DEFAULT_PORT = 8765
LOOPBACK = "127.0.0.1"


def add_parser(sub) -> None:
    p = sub.add_parser(
        "serve", help="the designer's workbench in the browser: edit cards, odds, what-if, "
                      "balance, report",
        description="Start a local web app: the card set as an editable table (each number "
                    "with its source; edits become 'user'), spoil/wither odds of a deck you "
                    "build, what-if runs with a progress bar, the balancer's errata, and the "
                    "report of the current set.  Long runs go to worker processes.  Bound to "
                    f"{LOOPBACK} (this machine only) unless --host says otherwise; needs no "
                    "internet.  See docs/workbench.md.")
    p.add_argument("--port", type=PORT_TYPE, default=DEFAULT_PORT,
                   help=f"TCP port (default {DEFAULT_PORT}; 0: any free port, printed)")
    p.add_argument("--host", default=LOOPBACK,
                   help=f"address to listen on (default {LOOPBACK}: only this machine; "
                        "0.0.0.0 lets other machines in -- the workbench has no login)")
    p.add_argument("--heartbeat", type=int_range(5, 3600, "seconds"), default=90,
                   help="stop a run whose page has not asked about it for this many seconds "
                        "(default 90: a closed page)")
    p.add_argument("--quiet", action="store_true", help="only warnings and errors on the console")
    p.add_argument("--log-requests", action="store_true",
                   help="also log every request (the page polls its runs twice a second)")
    p.set_defaults(func=run)


def bind(host: str, port: int):
    """A listening socket on (host, port); a UserError naming the option when it
    cannot be had (port in use, unknown address)."""
    import socket
    from ..errors import UserError
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise UserError(f"--host {host}: not an address of this machine ({e.strerror}); "
                        f"use {LOOPBACK}") from None
    family, _, _, _, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
    except OSError as e:
        sock.close()
        what = "--port" if e.errno in (98, 13) else "--host"
        raise UserError(f"{what}: cannot listen on {host}:{port} ({e.strerror}); "
                        + ("use another --port (or 0 for any free one)" if what == "--port"
                           else f"use {LOOPBACK}")) from None
    sock.listen(64)
    return sock


def run(args) -> int:
    import uvicorn
    from ..games import get_game
    from ..workbench.app import create_app
    g = get_game(args.game)
    sock = bind(args.host, args.port)
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    loopback = host in (LOOPBACK, "::1") or host.startswith("127.")
    # on the loopback address only requests naming it get in (no DNS rebinding), and
    # a changing request only from a page of this server's own origin (scheme, host, port)
    names = [shown, "127.0.0.1", "localhost", "[::1]"]
    app = create_app(g.name, heartbeat=args.heartbeat,
                     allowed_hosts=[host, "127.0.0.1", "localhost", "::1", "[::1]"]
                     if loopback else None,
                     origins=[f"http://{n}:{port}" for n in names] if loopback else None)
    print(f"vale-sim serve: {g.title} workbench at http://{shown}:{port}/  (Ctrl-C stops it)",
          flush=True)
    if not loopback:
        print(f"vale-sim serve: listening on {host}: other machines can reach it, and it has "
              f"no login", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning" if args.quiet else "info",
                            access_log=args.log_requests, lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
    return 0
