"""Round 26, helper lwarn: the package's warning filters, one region of the process at a time.

A plain ``warnings.catch_warnings()`` (filters only, no recording) swaps the process's filter list as the recording
one does: two threads whose regions overlapped each put back the list they had found, and the last to leave
installed the other's ignore filter for good, every later warning of that kind in the process silenced. Every site
now goes through :func:`baseparam._warnings.ignored` (or :func:`~baseparam._warnings.filters_held`, the command
line's), under the lock :func:`~baseparam._warnings.recorded` takes.
"""
import types

import numpy as np
import pytest

import baseparam as bp
from baseparam import cli
from baseparam.errors import ArgumentError, DataError, RobotDescriptionError
from baseparam.excitation import limits
from baseparam.identification import _bag_files, _consistent, _workers, preprocessing
from baseparam.model import _xml_text
from conftest import overlapping_regions, planar_arm


def _solver_region(monkeypatch, tmp_path):
    """The consistent fit's solve: cvxpy's status warnings ignored around CLARABEL."""
    import cvxpy as cp

    def solve(problem, **options):
        pauses[0]()
        raise cp.SolverError("stopped here")
    monkeypatch.setattr(_consistent, "solve_clarabel", solve)
    pauses = [None]
    holder = types.SimpleNamespace
    problem = holder(R=holder(value=None), z=holder(value=None), lam=holder(value=None), plain=object(), pulled=None,
                     n_solves=0, _kept=set(), v=holder(value=None), scale=1.0)

    def call(pause):
        pauses[0] = pause
        assert _consistent._Problem.solve(holder(**vars(problem)), np.eye(2), np.zeros(2), 1.0, 0.0) == (
            None, "solver_error")
    return call


def _states_region(monkeypatch, tmp_path):
    """states_at_samples: preprocess's DataWarnings ignored (the fit said them)."""
    t = np.arange(50) * 0.01
    trajectory = bp.Trajectory(t, np.column_stack([np.sin(t), np.cos(t)]))

    def refused(*args):
        pauses[0]()
        raise DataError("stopped here")
    monkeypatch.setattr(preprocessing, "preprocess", refused)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        q, qd, qdd = preprocessing.states_at_samples(trajectory)
        assert q.shape == qd.shape == qdd.shape == (50, 2)
    return call


def _bag_metadata_region(monkeypatch, tmp_path):
    """A bag folder's metadata.yaml: ruamel's own warnings ignored (the reader's parse says them)."""
    (tmp_path / "metadata.yaml").write_text("rosbag2_bagfile_information: {}\n")

    class Parser:
        def __init__(self, typ):
            pass

        def load(self, data):
            pauses[0]()
            raise KeyError("stopped here")
    monkeypatch.setattr("ruamel.yaml.YAML", Parser)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        assert _bag_files.check_bag_folder(str(tmp_path), "bag", ()) is None
    return call


def _limits_urdf_region(monkeypatch, tmp_path):
    """Joint limits read from a URDF: its description's warnings ignored (its geometry is not used)."""
    def load(path):
        pauses[0]()
        raise RobotDescriptionError("stopped here")
    monkeypatch.setattr(limits, "load_robot", load)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        with pytest.raises(ArgumentError, match="stopped here"):
            limits._urdf_entries("arm.urdf", planar_arm())
    return call


def _codec_region(monkeypatch, tmp_path):
    """A URDF's declared encoding probed: an escaping codec's DeprecationWarning ignored."""
    def decode(data):
        pauses[0]()
        return data.decode("ascii"), len(data)
    codec = types.SimpleNamespace(name="probed", decode=decode)
    pauses = [None]

    def call(pause):
        pauses[0] = pause
        assert _xml_text._keeps_ascii(codec)
    return call


def _scratch_region(monkeypatch, tmp_path):
    """A local Dask cluster's start: its slow-scratch-folder warning ignored."""
    def call(pause):
        with _workers._scratch_warning_silenced():
            pause()
    return call


def _command_line_region(monkeypatch, tmp_path):
    """The command line's run: its warning printer installed as showwarning (an in-process run, as a test's)."""
    pauses = [None]
    monkeypatch.setattr(cli._OneLineErrors, "_run_saying_warnings", lambda self, *args, **kwargs: pauses[0]())

    def call(pause):
        pauses[0] = pause
        cli.main.main([])
    return call


@pytest.mark.parametrize("region", [_solver_region, _states_region, _bag_metadata_region, _limits_urdf_region,
                                    _codec_region, _scratch_region, _command_line_region],
                         ids=lambda region: region.__name__.strip("_"))
def test_overlapping_filter_regions_leave_the_warning_machinery_as_it_was(region, monkeypatch, tmp_path, recwarn):
    """Two threads in the same filtering region, overlapping: before, the last to leave put back the filters it had
    found on entry, the other's ignore filter among them (or the command line's printer as showwarning), and a later
    warning of the process was lost (checked failing before the fix, at each of these sites)."""
    overlapping_regions(region(monkeypatch, tmp_path), recwarn)
