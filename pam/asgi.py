"""ASGI entry point for Channels: websockets (dashboard progress events) and HTTP.

`make run` serves everything from one uvicorn process on this application (the embedded
default: its in-memory channel layer needs a single process). In production HTTP goes through
WSGI (measured ~2x more requests/s on these 2-core machines) and this serves the websockets.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pam.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from memory.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AuthMiddlewareStack(URLRouter(websocket_urlpatterns)),
    }
)
