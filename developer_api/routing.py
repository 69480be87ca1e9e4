from django.urls import path

from developer_api.consumers import RequestLogConsumer

websocket_urlpatterns = [path("ws/requests/", RequestLogConsumer.as_asgi())]
