from django.urls import path

from developer_api import apis

auth_urlpatterns = [
    path("token", apis.AuthTokenApi.as_view(), name="auth-token"),
    path("refresh", apis.AuthRefreshApi.as_view(), name="auth-refresh"),
]

dev_urlpatterns = [
    path("readiness", apis.ReadinessApi.as_view(), name="dev-readiness"),
    path("rotate-key", apis.KeyRotateApi.as_view(), name="dev-rotate-key"),
    path("revoke-key", apis.KeyRevokeApi.as_view(), name="dev-revoke-key"),
]
