from django.apps import AppConfig


class DeveloperApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "developer_api"
