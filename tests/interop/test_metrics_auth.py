"""http.authentication=basic (docs/observability.md): /metrics (and every other path: the JSON
API, the console's files) answers only a SCRAM user of the
cluster who gives the right password (401 with a Basic challenge otherwise: no credentials, a
wrong password, an unknown user, the right password of a user deleted since), and with an
authorizer only one allowed DESCRIBE on the cluster (403 otherwise). Users and ACLs are made
with `mirra configs` and `mirra acls`, as an operator would; each takes effect without a
restart."""
import base64
import urllib.error
import urllib.request

from mirra_testlib import run_mirra
from prometheus_text import http_port, parse

AUTHORIZER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",  # the tests' own Kafka clients connect unauthenticated
}


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout


def add_user(broker, user, password):
    ok(run_mirra("configs", "--bootstrap-server", broker.bootstrap, "--alter", "--entity-type",
                 "users", "--entity-name", user, "--add-config",
                 f"SCRAM-SHA-512=[password={password}]"))


# Every path the listener serves, each of which needs the same authentication.
PATHS = ("/metrics", "/v1/mirrors", "/v1/topics", "/v1/groups", "/v1/history", "/",
         "/uplot.js")


def scrape_as(broker, user=None, password=None, path="/metrics"):
    """(status, WWW-Authenticate header, body)."""
    req = urllib.request.Request(f"http://127.0.0.1:{http_port(broker)}{path}")
    if user is not None:
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        req.add_header("Authorization", f"Basic {token}")
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, None, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("WWW-Authenticate"), e.read().decode()


def test_basic_auth_against_the_clusters_scram_users(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0", "http.authentication": "basic"},
                    name="metrics-auth")
    for path in PATHS:
        status, challenge, _ = scrape_as(b, path=path)
        assert (path, status, challenge) == (path, 401, 'Basic realm="mirra"')
    add_user(b, "prom", "s3cret")
    status, _, body = scrape_as(b, "prom", "s3cret")
    assert status == 200
    assert parse(body)  # Prometheus text
    for path in PATHS:
        assert (path, scrape_as(b, "prom", "s3cret", path)[0]) == (path, 200)
        assert (path, scrape_as(b, "prom", "wrong", path)[0]) == (path, 401)
    assert scrape_as(b, "prom", "wrong")[0] == 401
    assert scrape_as(b, "nobody", "s3cret")[0] == 401
    ok(run_mirra("configs", "--bootstrap-server", b.bootstrap, "--alter", "--entity-type",
                 "users", "--entity-name", "prom", "--delete-config", "SCRAM-SHA-512"))
    assert scrape_as(b, "prom", "s3cret")[0] == 401


def test_with_an_authorizer_describe_on_the_cluster_is_required(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0", "http.authentication": "basic",
                     **AUTHORIZER}, name="metrics-acl")
    add_user(b, "prom", "s3cret")
    for path in PATHS:
        status, _, body = scrape_as(b, "prom", "s3cret", path)
        assert (path, status) == (path, 403), body
    ok(run_mirra("acls", "--bootstrap-server", b.bootstrap, "--add", "--allow-principal",
                 "User:prom", "--operation", "Describe", "--cluster"))
    assert scrape_as(b, "prom", "s3cret")[0] == 200
    assert scrape_as(b, "prom", "wrong")[0] == 401  # authentication first


def test_a_bad_authentication_setting_stops_start_up(make_broker):
    b = make_broker({"http.listeners": "http://127.0.0.1:0", "http.authentication": "digest"},
                    name="metrics-bad", start=False)
    r = run_mirra("server", *b.command(0)[2:], timeout=30)
    assert r.returncode != 0
    assert "http.authentication" in r.stdout + r.stderr
