"""Regressions of the command-line fuzzing of issue 28's sixth round (export and the code it writes, odd robot
descriptions): each case below failed before its fix. The fuzzer itself was a throwaway (the CLI run with a time
limit on damaged or extreme inputs, the exported code imported and evaluated); these are the deterministic cases
it found."""
import importlib.util

import numpy as np
import pytest
from click.testing import CliRunner

from baseparam.cli import main
from conftest import ROOT


def one_line(result, *words):
    """Exit status 2 and, as last line, one `baseparam: …` line naming each of `words`."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output
    last = result.output.strip().splitlines()[-1]
    assert last.startswith("baseparam: "), result.output
    for word in words:
        assert word in last, result.output


def import_file(path):
    spec = importlib.util.spec_from_file_location(f"round6_{path.parent.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("speed", [2e154, 1e200, -1e300])
def test_exported_python_stribeck_term_of_a_huge_speed_is_no_overflow_error(tmp_path, speed):
    """One sample runs on Python floats, whose ``x ** 2`` raised OverflowError past 1.3e154 (numpy's batch of
    the same sample gave inf and 0); the single sample must give what the batch gives."""
    out = tmp_path / "stribeck"
    result = CliRunner().invoke(main, ["export", str(ROOT / "robots" / "planar_rrr.yaml"), "--lang", "python",
                                       "--out", str(out), "--friction", "--friction-model", "smooth:0.01+stribeck:0.1"])
    assert result.exit_code == 0, result.output
    code = import_file(out / "baseparam_dynamics.py")
    q, qd = np.full(3, 0.3), np.array([speed, 0.2, -0.1])
    with np.errstate(all="ignore"):
        for function, args in [("regressor", (q, qd, q)), ("slotine_li", (q, qd, q, q))]:
            single = getattr(code, function)(*args)
            batch = getattr(code, function)(*(a[None] for a in args))[0]
            np.testing.assert_array_equal(single, batch)
