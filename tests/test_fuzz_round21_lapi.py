"""Round twenty-one, the Python API and payload leftovers of stop 45 (set "lapi"): each test fails before its fix."""
import json

import numpy as np
import pytest

import baseparam as bp
from conftest import ROOT


def _rest_series(period=1.0):
    """A series at rest at both ends: Σ a_l = 0 and Σ l b_l = 0 per joint."""
    a = np.array([[0.3, -0.3], [0.2, -0.2]])
    b = np.array([[0.4, -0.2], [-0.2, 0.1]])
    return bp.FourierSeries(period, np.array([0.1, -0.2]), a, b)


@pytest.mark.parametrize("rate", [2.7, 0.4, 99.5, 1 / 3])
def test_samples_of_a_rate_that_is_no_whole_number_per_period_are_refused(rate):
    """``times(2.7)`` of a 1 s series ran to 1.11 s, past the period, and ``sample`` then took that last sample as
    the rest at T (q̇ zeroed); below 1/(2T) (0.4 Hz) it gave t = 0 alone, documented as both ends."""
    series = _rest_series()
    for call in (series.times, series.sample):
        with pytest.raises(bp.ArgumentError, match=r"^rate: period × rate = 1 s × .* Hz = .* is not a whole number "
                                                   r"of samples$"):
            call(rate)


@pytest.mark.parametrize("period, rate", [(1.0, 100.0), (10.0, 0.1), (0.3, 10.0), (7.0, 1 / 7 * 49)])
def test_samples_of_a_whole_count_end_at_the_period_at_rest(period, rate):
    """The samples run from 0 to T with the steps 1/rate, and the series itself (evaluated independently at T) is at
    rest where the last sample says it is."""
    series = _rest_series(period)
    t = series.times(rate)
    assert len(t) == round(period * rate) + 1 and t[0] == 0.0
    assert t[-1] == pytest.approx(period, rel=1e-12) and np.allclose(np.diff(t), 1 / rate)
    _, qd, qdd = series.evaluate(np.array([period]))
    assert np.abs(qd).max() < 1e-12 and np.abs(qdd).max() < 1e-12
    samples = series.sample(rate)
    assert (samples.qd[-1] == 0).all() and (samples.qdd[-1] == 0).all()


def test_a_saved_design_of_an_edited_rate_is_refused_naming_the_file(tmp_path):
    """A saved design whose rate does not divide its period gave samples past the period (a DataError naming the
    file and the field now, as the file's other fields)."""
    series = _rest_series(2.0)
    doc = {"period": 2.0, "rate": 12.3, "coefficients": {k: getattr(series, k).tolist() for k in ("q0", "a", "b")}}
    path = tmp_path / "design.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(bp.DataError, match=r"design\.json: field rate: period × rate = 2 s × 12.3 Hz = 24.6 is not a "
                                           r"whole number of samples$"):
        bp.load_excitation(path)
    doc["rate"] = 12.5
    path.write_text(json.dumps(doc))
    saved = bp.load_excitation(path)
    assert saved.samples.t[-1] == 2.0 and len(saved.samples.t) == 26


@pytest.mark.parametrize("r, ok", [(-1, True), (-36, True), (35, True), (-37, False), (36, False)])
def test_a_base_parameter_index_message_says_negative_indices_count_from_the_end(r, ok):
    """``terms(-1)`` is the last base parameter (as a sequence's index), yet the refusal of ``terms(99)`` said
    "from 0 to 35" only."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "puma560.yaml"))
    assert base.rank == 36
    if ok:
        assert base.terms(r) == base.terms(r % 36)
    else:
        with pytest.raises(bp.ArgumentError, match=r"^r: expected a base-parameter index from 0 to 35 \(or -36 to -1 "
                                                   rf"from the end\), got {r}$"):
            base.terms(r)


@pytest.mark.parametrize("link", [10 ** 400, 65, 2 ** 63, np.uint64(2 ** 64 - 1)], ids=["1e400", "65", "2^63", "u64"])
def test_a_contact_on_a_link_no_robot_has_is_refused_when_it_is_made(link):
    """``Contact(link=10**400)`` was made and refused only where a robot was given (no robot has more than 64
    joints, so more than 64 links above the base)."""
    with pytest.raises(bp.ArgumentError, match=r"^contact .*: link: expected 0 \(the base\), a link number from 1 to "
                                               r"64 or a joint name, got "):
        bp.Contact(link)
    assert bp.Contact(64).link == 64 and bp.Contact(0).link == 0


@pytest.mark.parametrize("prefix", ["CON", "aux", "nul", "Prn", "com1", "LPT0"])
@pytest.mark.parametrize("lang", ["c", "python"])
def test_an_export_prefix_of_a_windows_device_name_is_refused(tmp_path, prefix, lang):
    """``export(..., prefix='CON')`` wrote CON.h and CON.json: on Windows (in any case, whatever the extension) the
    console, not files; refused as a C header's name is, before anything is written."""
    base = bp.find_base_parameters(bp.load_robot(ROOT / "robots" / "planar_rrr.yaml"))
    with pytest.raises(bp.ExportError, match=rf"^prefix: '{prefix}' would write {prefix}\.json, and on Windows "
                                             rf"{prefix} is a device"):
        bp.export(base, lang, prefix=prefix, out_dir=tmp_path)
    assert not any(tmp_path.iterdir())
    for fine in ("con1", "com10", "console", "nul_x"):
        from baseparam.codegen._export import check_prefix
        assert check_prefix(fine, lang) == fine
