# OAuth 2.1 (SPEC §4) stores its clients and tokens in django-oauth-toolkit's tables.
