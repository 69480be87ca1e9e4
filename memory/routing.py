from django.urls import path

from memory.consumers import PipelineProgressConsumer

websocket_urlpatterns = [path("ws/pipeline/", PipelineProgressConsumer.as_asgi())]
