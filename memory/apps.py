from django.apps import AppConfig


class MemoryConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "memory"

    def ready(self) -> None:
        from memory import checks  # noqa: F401  (registers the system checks)
