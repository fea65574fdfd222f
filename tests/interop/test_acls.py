"""ACLs on a real `mirra server` (issue 17): `mirra acls` (kafka-acls.sh's options and output),
kafka-python's and kafkajs' ACL admin calls, ACLs kept across a restart, and SECURITY_DISABLED
from a broker without an authorizer.

The brokers with an authorizer make User:ANONYMOUS (every PLAINTEXT client) a super user, so the
tests can administer them; what the ACLs then allow or deny others is the unit tests' business
(tests/security, tests/server/acls_test.cc).
"""
import json
import os
import subprocess

import pytest

from clients import HERE, NODE
from mirra_testlib import ROOT, assert_one_line_error, run_mirra

AUTHORIZER = {
    "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
    "super.users": "User:ANONYMOUS",
}


@pytest.fixture
def secured(make_broker):
    return make_broker(AUTHORIZER, name="acls")


def acls(broker, *args):
    return run_mirra("acls", "--bootstrap-server", broker.bootstrap, *args)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    return r.stdout


def test_cli_add_list_remove_and_restart(secured):
    out = ok(acls(secured, "--add", "--allow-principal", "User:alice", "--operation", "Read",
                  "--operation", "describe", "--topic", "orders"))
    assert "Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, " \
           "patternType=LITERAL)`:" in out
    current = ("Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, "
               "patternType=LITERAL)`:\n"
               "\t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)\n"
               "\t(principal=User:alice, host=*, operation=DESCRIBE, permissionType=ALLOW)\n")
    assert current in out
    ok(acls(secured, "--add", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.9",
            "--operation", "All", "--topic", "pay", "--resource-pattern-type", "prefixed",
            "--force"))
    ok(acls(secured, "--add", "--consumer", "--allow-principal", "User:bob", "--topic", "orders",
            "--group", "billing"))
    ok(acls(secured, "--add", "--allow-principal", "User:ops", "--operation", "IdempotentWrite",
            "--cluster"))

    listed = ok(acls(secured, "--list"))
    assert "name=pay, patternType=PREFIXED)`:\n" \
           "\t(principal=User:mallory, host=10.0.0.9, operation=ALL, permissionType=DENY)\n" \
           in listed
    assert "resourceType=GROUP, name=billing" in listed
    assert "(principal=User:ops, host=*, operation=IDEMPOTENT_WRITE, permissionType=ALLOW)" \
        in listed
    assert listed.count("\t(principal=") == 7  # alice 2, mallory 1, bob 3, ops 1

    # What affects topic "payments": the prefixed DENY only.
    match = ok(acls(secured, "--list", "--topic", "payments", "--resource-pattern-type", "match"))
    assert match.count("\t(principal=") == 1 and "User:mallory" in match

    secured.restart()
    assert ok(acls(secured, "--list")) == listed

    removed = ok(acls(secured, "--remove", "--allow-principal", "User:alice", "--operation", "Read",
                      "--topic", "orders", "--force"))
    assert "Removed ACLs for resource" in removed
    left = ok(acls(secured, "--list", "--topic", "orders"))
    assert "operation=READ, permissionType=ALLOW" in left  # bob's
    assert "User:alice, host=*, operation=READ" not in left
    ok(acls(secured, "--remove", "--topic", "orders"))
    assert ok(acls(secured, "--list", "--topic", "orders")) == ""


def test_cli_bad_arguments_are_one_line(secured):
    assert_one_line_error(acls(secured, "--list", "--add"), "exactly one action")
    assert_one_line_error(acls(secured, "--add", "--topic", "t"), "--allow-principal")
    assert_one_line_error(acls(secured, "--add", "--allow-principal", "alice", "--topic", "t"),
                          "Type:name")
    assert_one_line_error(acls(secured, "--add", "--allow-principal", "User:a", "--operation",
                               "Fly", "--topic", "t"), "Fly")
    assert_one_line_error(acls(secured, "--add", "--allow-principal", "User:a", "--operation",
                               "Write", "--group", "g"), "WRITE is not valid for resource type GROUP")
    assert_one_line_error(acls(secured, "--add", "--consumer", "--allow-principal", "User:a",
                               "--topic", "t"), "--group")


def test_cli_without_authorizer_says_security_disabled(make_broker):
    plain = make_broker(name="no-authorizer")
    r = acls(plain, "--list")
    assert_one_line_error(r, "ACLs need an authorizer and none is configured")


def test_kafka_python_acl_calls(secured):
    from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType,
                             ACLResourcePatternType, KafkaAdminClient, ResourcePattern,
                             ResourcePatternFilter, ResourceType)
    admin = KafkaAdminClient(bootstrap_servers=secured.bootstrap, request_timeout_ms=15000)
    try:
        acl = ACL(principal="User:alice", host="*", operation=ACLOperation.WRITE,
                  permission_type=ACLPermissionType.ALLOW,
                  resource_pattern=ResourcePattern(ResourceType.TOPIC, "events",
                                                   ACLResourcePatternType.PREFIXED))
        bad = ACL(principal="User:alice", host="*", operation=ACLOperation.WRITE,
                  permission_type=ACLPermissionType.ALLOW,
                  resource_pattern=ResourcePattern(ResourceType.CLUSTER, "not-kafka-cluster",
                                                   ACLResourcePatternType.LITERAL))
        result = admin.create_acls([acl, bad])
        assert result["succeeded"] == [acl]
        assert len(result["failed"]) == 1 and result["failed"][0][0] == bad
        assert result["failed"][0][1].errno == 42  # INVALID_REQUEST

        everything = ACLFilter(principal=None, host=None, operation=ACLOperation.ANY,
                               permission_type=ACLPermissionType.ANY,
                               resource_pattern=ResourcePatternFilter(
                                   ResourceType.ANY, None, ACLResourcePatternType.ANY))
        found, error = admin.describe_acls(everything)
        assert error.errno == 0
        assert found == [acl]

        deleted = admin.delete_acls([everything])
        assert len(deleted) == 1
        _, matching, filter_error = deleted[0]
        assert filter_error.errno == 0
        assert [(a, e.errno) for a, e in matching] == [(acl, 0)]
        assert admin.describe_acls(everything)[0] == []
    finally:
        admin.close()


def kafkajs(broker, request):
    env = dict(os.environ, NODE_PATH=str(ROOT / "node_modules"))
    r = subprocess.run([NODE, str(HERE / "node" / "kafkajs_acls.js")],
                       input=json.dumps({**request, "brokers": [broker.bootstrap]}),
                       capture_output=True, text=True, timeout=60, env=env, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


def test_kafkajs_acl_calls(secured):
    acl = {"resourceType": 3, "resourceName": "billing", "resourcePatternType": 3,
           "principal": "User:bob", "host": "*", "operation": 3, "permissionType": 3}
    assert kafkajs(secured, {"op": "create", "acls": [acl]}) == {"created": True}
    filt = {"resourceType": 1, "resourceName": None, "resourcePatternType": 1, "principal": None,
            "host": None, "operation": 1, "permissionType": 1}
    described = kafkajs(secured, {"op": "describe", "filter": filt})
    assert described["resources"] == [{
        "resourceType": 3, "resourceName": "billing", "resourcePatternType": 3,
        "acls": [{"principal": "User:bob", "host": "*", "operation": 3, "permissionType": 3}]}]
    deleted = kafkajs(secured, {"op": "delete", "filters": [filt]})
    responses = deleted["filterResponses"]
    assert len(responses) == 1 and responses[0]["errorCode"] == 0
    assert [m["resourceName"] for m in responses[0]["matchingAcls"]] == ["billing"]
    assert kafkajs(secured, {"op": "describe", "filter": filt})["resources"] == []


def test_clients_without_authorizer_get_security_disabled(make_broker):
    from kafka.admin import (ACLFilter, ACLOperation, ACLPermissionType,
                             ACLResourcePatternType, KafkaAdminClient, ResourcePatternFilter,
                             ResourceType)
    from kafka.errors import SecurityDisabledError
    plain = make_broker(name="no-authorizer")
    admin = KafkaAdminClient(bootstrap_servers=plain.bootstrap, request_timeout_ms=15000)
    try:
        with pytest.raises(SecurityDisabledError):
            admin.describe_acls(ACLFilter(
                principal=None, host=None, operation=ACLOperation.ANY,
                permission_type=ACLPermissionType.ANY,
                resource_pattern=ResourcePatternFilter(ResourceType.ANY, None,
                                                       ACLResourcePatternType.ANY)))
    finally:
        admin.close()
    filt = {"resourceType": 1, "resourceName": None, "resourcePatternType": 1, "principal": None,
            "host": None, "operation": 1, "permissionType": 1}
    assert kafkajs(plain, {"op": "describe", "filter": filt}) == {"error_type": "SECURITY_DISABLED"}
