"""Round 18, the lead's own finds: each test fails on the code before its fix."""
import numpy as np
import pytest

import baseparam as bp


def _metrics(**given):
    fields = dict(rmse=[1.0, 2.0], nrmse_percent=[1.0, 2.0], nrmse_pooled_percent=1.0, n_samples=3, t=np.zeros(3),
                  tau=np.zeros((3, 2)), predicted=np.zeros((3, 2)))
    return bp.Metrics(**{**fields, **given})


@pytest.mark.parametrize("field", ["rmse", "nrmse_percent"])
@pytest.mark.parametrize("value, said", [([[1, 2], [3]], "not a rectangular array"), (["a", "b"], "not numeric")])
def test_metrics_built_by_hand_refuse_what_holds_no_numbers(field, value, said):
    """A Metrics built by hand with a ragged list was numpy's bare ValueError ('inhomogeneous shape'), with text its
    to_dict() a bare TypeError: the figures are kept as float arrays, as every other result's (float_fields)."""
    with pytest.raises(bp.ArgumentError, match=f"Metrics.{field}: {said}"):
        _metrics(**{field: value})


def test_metrics_built_from_lists_are_arrays():
    """Lists of numbers are kept as float arrays, so the methods that index them work (to_dict's .tolist())."""
    got = _metrics(rmse=[1, 2], nrmse_percent=(3, 4))
    assert got.rmse.dtype == np.float64 and got.nrmse_percent.tolist() == [3.0, 4.0]


@pytest.mark.parametrize("args, said", [
    (["find", "PUMA", "--json", "o.yaml"], "--json: o.yaml: writes JSON, and a '.yaml' name says YAML"),
    (["find", "PUMA", "--h5", "o.json"], "--h5: o.json: writes HDF5, and a '.json' name says JSON"),
    (["find", "PUMA", "--json", "o.H5"], "--json: o.H5: writes JSON, and a '.H5' name says HDF5"),
    (["equations", "PUMA", "--json", "o.csv"], "--json: o.csv: writes JSON, and a '.csv' name says CSV"),
    (["excite", "PUMA", "--out", "t.json"], "--out: t.json: writes CSV, and a '.json' name says JSON"),
])
def test_an_output_named_as_another_format_is_refused(tmp_path, monkeypatch, args, said):
    """`--json o.yaml` wrote JSON that load_robot then read as YAML, `excite --out t.json` CSV under a JSON name (a
    reader takes a file by its extension): refused before any work, as --yaml/--urdf/--mjcf names were."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT, one_line

    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, [str(ROOT / "robots" / "puma560.yaml") if a == "PUMA" else a for a in args])
    one_line(result, said)
    assert list(tmp_path.iterdir()) == []


def test_an_output_of_no_known_extension_or_of_its_own_in_any_case_is_written(tmp_path, monkeypatch):
    """The rule refuses only an extension that says another format: any other name is the user's choice."""
    from click.testing import CliRunner

    from baseparam.cli import main
    from conftest import ROOT

    monkeypatch.chdir(tmp_path)
    for name in ("o.txt", "O.JSON", "noext"):
        result = CliRunner().invoke(main, ["find", str(ROOT / "robots" / "planar_rrr.yaml"), "--json", name])
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["O.JSON", "noext", "o.txt"]
