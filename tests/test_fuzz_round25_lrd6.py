"""Round 25, helper lrd6: the readers' last leftovers (issue 28).

A cache folder writable by a group named as the user was taken as writable by the user alone though another user
had that group as primary group (listed in the password database, not in the group's members)."""
import collections

import pytest

from baseparam.dynamics import _native

grp = pytest.importorskip("grp")
pwd = pytest.importorskip("pwd")

_Entry = collections.namedtuple("_Entry", "pw_name pw_uid pw_gid")
_Group = collections.namedtuple("_Group", "gr_name gr_mem")


def _fake_accounts(monkeypatch, others):
    """This user ``me`` (the process's uid) with the private group 1234 listing no member, and ``others``: the other
    password entries (name, uid, primary gid)."""
    me = _Entry("me", _native.os.geteuid(), 1234)
    entries = [me] + [_Entry(*other) for other in others]
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: next(e for e in entries if e.pw_uid == uid))
    monkeypatch.setattr(pwd, "getpwall", lambda: list(entries))
    monkeypatch.setattr(grp, "getgrgid", lambda gid: _Group("me", []) if gid == 1234 else _Group("staff", []))


@pytest.mark.parametrize("others, private", [
    ([], True),
    ([("guest", 54321, 100)], True),
    ([("me-again", _native.os.geteuid(), 1234)], True),     # an alias of this user's uid: not another user
    ([("guest", 54321, 1234)], False),                         # another user whose primary group it is
])
def test_a_group_that_is_another_users_primary_group_is_not_private(monkeypatch, others, private):
    _fake_accounts(monkeypatch, others)
    assert _native._private_group(1234) is private
    assert _native._private_group(100) is False                # named otherwise, as before


def test_a_password_database_too_large_to_look_through_is_not_read(monkeypatch):
    _fake_accounts(monkeypatch, [(f"u{k}", 100_000 + k, 100) for k in range(_native._MAX_USERS)])
    assert _native._private_group(1234) is False
