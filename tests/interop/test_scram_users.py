"""SCRAM users through `mirra configs --entity-type users` (kafka-configs.sh's options): add,
describe, delete, refusals as one-line errors; the users survive a restart (they are in the
metadata log), and no file under the data directory holds a password."""
import base64
import hashlib

from mirra_testlib import assert_one_line_error, run_mirra

ALICE_256 = "SCRAM-SHA-256=iterations=8192"
ALICE_512 = "SCRAM-SHA-512=iterations=4096"


def configs(b, *args):
    return run_mirra("configs", "--bootstrap-server", b.bootstrap, *args)


def ok(r):
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    assert r.stderr == "", r.stderr
    return r.stdout


def describe(b, *args):
    return ok(configs(b, "--describe", "--entity-type", "users", *args)).splitlines()


def line(user, *mechanisms):
    return f"SCRAM credential configs for user-principal '{user}' are {', '.join(mechanisms)}"


def alter(b, user, *args):
    return configs(b, "--alter", "--entity-type", "users", "--entity-name", user, *args)


def files_holding(root, secret):
    needle = secret if isinstance(secret, bytes) else secret.encode()
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


def test_users_are_added_described_deleted_and_durable(make_broker):
    b = make_broker(name="scram-users")
    out = ok(alter(b, "alice", "--add-config",
                   "SCRAM-SHA-256=[iterations=8192,password=alice-secret],"
                   "SCRAM-SHA-512=[password=alice-secret]"))
    assert out == "Completed updating config for user alice.\n"
    ok(alter(b, "bob", "--add-config", "SCRAM-SHA-512=[password=bob-secret,iterations=16384]"))
    ok(alter(b, "carol", "--add-config", "SCRAM-SHA-256=[password=carol-secret]"))

    assert describe(b) == [line("alice", ALICE_256, ALICE_512),
                           line("bob", "SCRAM-SHA-512=iterations=16384"),
                           line("carol", "SCRAM-SHA-256=iterations=4096")]
    assert describe(b, "--entity-name", "alice") == [line("alice", ALICE_256, ALICE_512)]

    # One mechanism goes, the other stays; a user without credentials is not listed.
    ok(alter(b, "alice", "--delete-config", "SCRAM-SHA-512"))
    ok(alter(b, "carol", "--delete-config", "SCRAM-SHA-256"))
    assert describe(b, "--entity-name", "alice") == [line("alice", ALICE_256)]
    assert describe(b, "--entity-name", "carol") == []
    # Replacing a credential changes its iterations.
    ok(alter(b, "bob", "--add-config", "SCRAM-SHA-512=[password=bob-secret2,iterations=5000]"))

    # The broker's refusals, one line each.
    assert_one_line_error(alter(b, "alice", "--delete-config", "SCRAM-SHA-512"),
                          "mirra configs:", "does not exist")
    assert_one_line_error(alter(b, "dave", "--add-config",
                                "SCRAM-SHA-256=[iterations=100000,password=dave-secret]"),
                          "iterations")
    assert_one_line_error(
        configs(b, "--alter", "--entity-type", "users", "--entity-default", "--add-config",
                "SCRAM-SHA-256=[password=x]"),
        "--entity-default is not allowed for users")
    assert_one_line_error(alter(b, "dave", "--add-config", "SCRAM-SHA-1=[password=dave-secret]"),
                          "SCRAM-SHA-1")
    assert "dave-secret" not in alter(b, "dave", "--add-config",
                                      "SCRAM-SHA-1=[password=dave-secret]").stderr

    # kafka-storage.sh's form: salt and salted password in base64, the password never given.
    salted = hashlib.pbkdf2_hmac("sha256", b"erin-secret", b"erin-salt", 4096)
    ok(alter(b, "erin", "--add-config",
             f'SCRAM-SHA-256=[salt="{base64.b64encode(b"erin-salt").decode()}",'
             f'saltedpassword="{base64.b64encode(salted).decode()}",iterations=4096]'))

    want = [line("alice", ALICE_256), line("bob", "SCRAM-SHA-512=iterations=5000"),
            line("erin", "SCRAM-SHA-256=iterations=4096")]
    assert describe(b) == want
    b.restart()
    assert describe(b) == want, "the users did not survive the restart"
    b.stop()

    # The passwords never reach the broker: nothing under the data directory holds one.
    assert b.data_dir.is_dir()
    for secret in ("alice-secret", "bob-secret", "bob-secret2", "carol-secret", "dave-secret"):
        assert files_holding(b.data_dir, secret) == [], secret
    # Nor the salted password: the broker keeps only the keys derived from it.
    assert files_holding(b.data_dir, salted) == []
    # ...while the user names are there (the check reads the files that matter).
    assert files_holding(b.data_dir, "alice"), "no file holds the users at all"
