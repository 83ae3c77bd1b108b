"""Round 26 of the command-line fuzzing (issue 28), helper fzcli3: each class found, its test."""
import glob
import os
import random
import subprocess
import sys
from collections import Counter

import pytest

from conftest import ROOT

# --- 1. a '**' pattern walked through symbolic links to folders again and again ---


def _log_tree(tmp_path, loops):
    """A folder ``logs`` holding one planar-arm log and ``loops`` links back to itself."""
    import numpy as np

    folder = tmp_path / "logs"
    folder.mkdir()
    t = np.arange(200) * 0.01
    q = np.sin(np.outer(t, [1.0, 2.0, 3.0]) + 0.4)
    rows = np.column_stack([t, q, np.cos(np.outer(t, [1.0, 2.0, 3.0]))])
    np.savetxt(folder / "run.csv", rows, delimiter=",", header="t,q1,q2,q3,tau1,tau2,tau3", comments="")
    for k in range(loops):
        os.symlink(".", folder / f"up{k}")
    return folder


def test_a_link_loop_under_a_recursive_pattern_matches_each_log_once(tmp_path, monkeypatch):
    """`identify R 'logs/**/*.csv'` with a link `logs/up -> .` read logs/run.csv 41 times (logs/up/run.csv,
    logs/up/up/run.csv, … to Python's 40-link limit): 41 "given twice" warnings, its samples counted 41 times and the
    standard deviations √41 = 6.4× too small, exit 0. glob.glob follows every link to a folder; the pattern now walks
    each real folder once."""
    from baseparam.identification.logs import expand_logs
    _log_tree(tmp_path, 1)
    monkeypatch.chdir(tmp_path)
    assert expand_logs(["logs/**/*.csv"]) == [os.path.join("logs", "run.csv")]
    assert expand_logs(["logs/**"]) == ["logs/", os.path.join("logs", "run.csv"), os.path.join("logs", "up0")]


def test_two_link_loops_under_a_recursive_pattern_end(tmp_path):
    """With two links back up the tree, glob.glob's walk of 'logs/**/*.csv' had 2⁴⁰ folders to list: `identify`
    never ended (killed after 30 s). It now reads the one log, once."""
    _log_tree(tmp_path, 2)

    def identify(log):
        return subprocess.run([sys.executable, "-m", "baseparam", "identify", str(ROOT / "robots" / "planar_rrr.yaml"),
                               log], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc = identify("logs/**/*.csv")
    assert proc.returncode == 0, proc.stderr
    assert "given twice" not in proc.stderr and proc.stdout == identify("logs/run.csv").stdout


def test_links_to_other_folders_are_followed_and_a_second_name_walked_once(tmp_path, monkeypatch):
    from baseparam.identification._log_patterns import matching_names
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "b.csv").write_text("")
    (tmp_path / "logs" / "run1").mkdir(parents=True)
    (tmp_path / "logs" / "run1" / "a.csv").write_text("")
    os.symlink(tmp_path / "outside", tmp_path / "logs" / "ext")        # a link out of the tree: walked
    os.symlink("run1", tmp_path / "logs" / "latest")                   # a second name of run1: walked once, as run1
    monkeypatch.chdir(tmp_path)
    assert sorted(matching_names("logs/**/*.csv")) == ["logs/ext/b.csv", "logs/run1/a.csv"]
    assert sorted(matching_names(str(tmp_path / "logs" / "**" / "a.csv"))) == [str(tmp_path / "logs/run1/a.csv")]


PATTERNS = ["t/**", "t/**/", "t/**/*.csv", "t/**/**/*.csv", "**/*.csv", "**", "**/", "t*/**/b*", "./**/*.csv",
            "t/**/.*", "t/[xy]/**/*", "t/*/**/*.csv", "t/**/y", "nope/**/*.csv", "t/a[1]/**"]


@pytest.mark.parametrize("seed", range(12))
def test_without_links_the_names_are_globs(tmp_path, monkeypatch, seed):
    """On trees without a symbolic link the names matched are glob.glob's, duplicates included (its 't/**/**'
    matches a file once per folder above it)."""
    from baseparam.identification._log_patterns import matching_names
    rng = random.Random(seed)
    monkeypatch.chdir(tmp_path)
    folders = ["t"]
    for _ in range(rng.randrange(1, 12)):
        parent = rng.choice(folders)
        folder = os.path.join(parent, rng.choice(["x", "y", ".h", "a[1]", "z", "b"]) + str(rng.randrange(2)))
        os.makedirs(folder, exist_ok=True)
        folders.append(folder)
    for folder in folders:
        for name in rng.sample(["a.csv", "b.csv", ".c.csv", "d.npz", "x"], rng.randrange(0, 4)):
            if not os.path.exists(os.path.join(folder, name)):
                open(os.path.join(folder, name), "w").close()
    for pattern in PATTERNS:
        assert Counter(matching_names(pattern)) == Counter(glob.glob(pattern, recursive=True)), pattern
    absolute = os.path.join(str(tmp_path), "t", "**", "*.csv")
    assert Counter(matching_names(absolute)) == Counter(glob.glob(absolute, recursive=True))
