"""RFC 7636 (PKCE) as OAuth 2.1 requires it: a code challenge on every authorization, S256 only."""

from __future__ import annotations

from django.test import Client

from tests.oauth.conftest import authorize_params, consent, exchange, pkce, query_of, register


def test_an_authorization_without_a_code_challenge_is_refused(client: Client, signed_in: Client) -> None:
    app = register(client)
    response = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), code_challenge=None, code_challenge_method=None))
    assert response.status_code == 302
    answer = query_of(response["Location"])
    assert answer["error"] == "invalid_request"
    assert answer["state"] == "state-123"


def test_the_plain_method_is_refused(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    params = authorize_params(app, challenge, code_challenge=challenge.verifier, code_challenge_method="plain")
    response = client.get("/v1/oauth/authorize", params)
    answer = query_of(response["Location"])
    assert answer["error"] == "invalid_request"
    assert "S256" in answer["error_description"]
    assert answer["state"] == "state-123"


def test_a_missing_method_is_refused_rather_than_taken_as_plain(client: Client, signed_in: Client) -> None:
    app = register(client)
    response = client.get("/v1/oauth/authorize", authorize_params(app, pkce(), code_challenge_method=None))
    assert query_of(response["Location"])["error"] == "invalid_request"


def test_the_right_verifier_gets_the_tokens(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    response = exchange(client, app, code, challenge.verifier)
    assert response.status_code == 200
    assert response.json()["token_type"] == "Bearer"


def test_a_wrong_verifier_is_refused(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    response = exchange(client, app, code, pkce().verifier)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_grant"


def test_a_missing_verifier_is_refused(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    response = exchange(client, app, code, challenge.verifier, code_verifier=None)
    assert response.status_code == 400
    assert response.json()["error"] in {"invalid_request", "invalid_grant"}


def test_a_code_is_good_for_one_exchange_only(client: Client, signed_in: Client) -> None:
    app = register(client)
    challenge = pkce()
    code = consent(client, app, challenge)["code"]
    assert exchange(client, app, code, challenge.verifier).status_code == 200
    again = exchange(client, app, code, challenge.verifier)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"
