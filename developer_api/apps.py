from django.apps import AppConfig
from django.db.models.signals import pre_save


class DeveloperApiConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "developer_api"

    def ready(self) -> None:
        from rest_framework_simplejwt.token_blacklist.models import OutstandingToken

        from developer_api.authentication import hash_outstanding_token

        pre_save.connect(hash_outstanding_token, sender=OutstandingToken, dispatch_uid="pam-hash-outstanding-token")
