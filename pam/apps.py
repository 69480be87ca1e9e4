"""The product's admin site replaces the stock one (SPEC §6: the dashboard is served through
the Django admin), so every `@admin.register` in the apps lands on it."""

from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class PamConfig(AppConfig):
    default = True
    name = "pam"


class PamAdminConfig(admin_apps.AdminConfig):
    default = False
    default_site = "pam.admin.PamAdminSite"
