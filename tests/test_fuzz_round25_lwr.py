"""Round 25, helper lwr (issue 28): what the writes left outside their named outputs (a folder made beside the
output, a read-only file replaced, an old version left under a temporary name, a current folder's matplotlibrc
read), each with a test that fails before its fix."""
import os

import pytest

import baseparam as bp
from conftest import ROOT, run_in_process

PLANAR = ROOT / "robots" / "planar_rrr.yaml"


# --- 2. `export --out x.json/..` made a folder x.json and wrote beside it ---

@pytest.mark.parametrize("out", ["x.json/..", "x.json/../sub", "a_file/.."])
def test_export_refuses_a_dotdot_after_a_name_that_is_no_folder(tmp_path, out):
    """os.makedirs('x.json/..') made the folder x.json, then the files went into the current folder: a folder
    outside the named output. Refused now, as a file name with such a '..' is, and nothing is made."""
    (tmp_path / "a_file").write_text("mine\n")
    result = run_in_process("export", PLANAR, "--lang", "c", "--out", out, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1 and out in result.stderr and "'..'" in result.stderr, result.stderr
    assert sorted(os.listdir(tmp_path)) == ["a_file"]
    with pytest.raises(bp.ExportError, match="out_dir"):
        bp.export(bp.find_base_parameters(bp.load_robot(PLANAR)), "c", out_dir=str(tmp_path / out))
    assert sorted(os.listdir(tmp_path)) == ["a_file"]


@pytest.mark.parametrize("out", [".", "new/.", "made/../made2"])
def test_export_still_takes_folders_spelled_with_dots_that_resolve(tmp_path, out):
    """'.', 'new/.' and a '..' after a folder that exists are folders as the system reads them: still written."""
    (tmp_path / "made").mkdir()
    result = run_in_process("export", PLANAR, "--lang", "c", "--out", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / out / "baseparam.json").is_file()
