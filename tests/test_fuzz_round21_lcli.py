"""Round 21, command line leftovers (stop 45's "Left" list, set lcli), each test failing on the code before its fix."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from baseparam.errors import printable
from conftest import ROOT

ENV = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
posix = pytest.mark.skipif(os.name != "posix", reason="POSIX file names and signals")


# --- 1. a file name's non-UTF-8-decoded bytes shown as the user typed them, not as \udcXX ---

@pytest.mark.parametrize("raw, shown", [
    (b"\xc3\xa9t\xc3\xa9.yaml", "été.yaml"),             # UTF-8 under LC_ALL=C: each byte escaped by Python
    (b"\xe9t\xe9.yaml", "\\xe9t\\xe9.yaml"),              # Latin-1 bytes that spell no UTF-8: each byte escaped
    (b"a\xc2\x9b[2Jb\n", "a\\x9b[2Jb\\n"),               # UTF-8 that spells a control character (CSI): escaped
    (b"\xe2\x80\xe9", "\\xe2\\x80\\xe9"),                 # a UTF-8 sequence cut short
])
def test_surrogate_escaped_bytes_are_shown_as_the_text_they_spell_or_as_bytes(raw, shown):
    # what Python makes of such a name under a locale whose encoding lacks those bytes (surrogateescape)
    assert printable(raw.decode("ascii", "surrogateescape")) == shown


@posix
def test_a_non_ascii_file_name_under_the_c_locale_is_said_with_the_bytes_typed(tmp_path):
    name = os.fsencode(tmp_path) + b"/\xc3\xa9t\xc3\xa9.yaml"      # not there: refused, naming it
    env = dict(ENV, LC_ALL="C", PYTHONUTF8="0", PYTHONCOERCECLOCALE="0")
    run = subprocess.run([sys.executable, "-m", "baseparam", "find", name], env=env, capture_output=True,
                         timeout=60)
    assert run.returncode == 2, run.stderr
    # click writes UTF-8 to a stream Python thinks ASCII: the name's own bytes, where it was "\udcc3\udca9t…"
    assert run.stderr == b"baseparam: " + name + b": cannot read: No such file or directory\n"
