"""The dashboard pages of SPEC §6, one module per page, wired into the admin by pam/admin.py.

Each page is a thin view: it resolves the workspace (`scope.dashboard_workspace`), calls the
apps' selectors and services (never the HTTP API), and renders a template under
templates/pam/dashboard/.
"""
