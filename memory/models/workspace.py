"""The tenant (Workspace) and its users, who log in with their email."""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.auth.base_user import AbstractBaseUser, BaseUserManager
from django.contrib.auth.models import PermissionsMixin
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone


class Workspace(models.Model):
    """One organisation: its sources, memory, keys, plan, quota and request log."""

    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    plan = models.ForeignKey("developer_api.Plan", on_delete=models.PROTECT, related_name="workspaces")
    disabled = models.BooleanField(default=False)
    # What `remember` refuses (SPEC §2.4; memory.agent_memory.capture): {} is the default
    # policy; {"disabled_rules": [...], "extra_patterns": [...], "enabled": false} adjust it.
    capture_policy = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug

    @property
    def entitled(self) -> bool:
        return not self.disabled and self.plan.enabled


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError("users need an email")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.setdefault("is_staff", True)
        extra.setdefault("is_superuser", True)
        return self.create_user(email, password, **extra)


class User(AbstractBaseUser, PermissionsMixin):
    """A person who belongs to one workspace (operators may have none) and logs in by email."""

    email = models.EmailField(unique=True)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, null=True, blank=True, related_name="users"
    )
    # SPEC §2.4: the agent-memory buckets and teams the user sees on /v1/memory, as an agent
    # key's (empty = all); the bucket `private` holds only what this user wrote there.
    buckets = models.JSONField(default=list, blank=True)
    teams = models.JSONField(default=list, blank=True)
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(default=False)
    date_joined = models.DateTimeField(default=timezone.now)

    objects: ClassVar[UserManager] = UserManager()  # type: ignore[assignment]

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = []

    def __str__(self) -> str:
        return self.email

    def clean(self) -> None:
        """Buckets and teams are lists of names (an agent key's rules, SPEC §2.4)."""
        from memory.models.memory import BUCKET_PATTERN, MAX_KEY_LABELS  # memory.py imports this module

        problems = {}
        for name, valid in (("buckets", BUCKET_PATTERN.match), ("teams", lambda t: 0 < len(t) <= 100)):
            value = getattr(self, name)
            if not isinstance(value, list) or len(value) > MAX_KEY_LABELS or not all(isinstance(v, str) and valid(v) for v in value):
                problems[name] = f"a JSON list of at most {MAX_KEY_LABELS} names (empty = all), e.g. [\"public\", \"eng\"]"
        if problems:
            raise ValidationError(problems)
