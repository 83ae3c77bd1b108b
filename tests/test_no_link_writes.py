"""Issue 28: every write refuses to follow a symbolic link it did not create — user-named outputs included.

One test per writer family (CSV, NPZ, Parquet, MCAP, HDF5 numeric and symbolic, JSON, YAML, URDF, MJCF,
plots, export's set of files), library and command line. Each puts a link at the output name, pointing
at a "victim" file, and checks that the write is refused in one line naming the output, and that
neither the victim nor the link changed. The rule is ``O_NOFOLLOW``'s: only the last component is
checked, so a linked *folder* on the way is written into (last test).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from click.testing import CliRunner

import baseparam as bp
from baseparam.cli import main
from baseparam.errors import StorageError
from conftest import ROOT

PLANAR = ROOT / "robots" / "planar_rrr.yaml"
VICTIM_TEXT = b"precious: do not overwrite\n"


@pytest.fixture
def link(tmp_path):
    """A factory: ``link("out.csv")`` is a symbolic link of that name to a victim file."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(VICTIM_TEXT)

    def make(name):
        path = tmp_path / name
        path.symlink_to(victim)
        return path

    yield make
    assert victim.read_bytes() == VICTIM_TEXT                     # nothing written through any link
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".baseparam-")) == []


def refused(path, call):
    with pytest.raises(StorageError, match=rf"{path.name}: is a symbolic link"):
        call()
    assert path.is_symlink()


def cli(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    assert res.exit_code == 2, res.output
    assert len(res.output.strip().splitlines()) == 1 and "symbolic link" in res.output, res.output
    assert "Traceback" not in res.output
    return res


@pytest.fixture(scope="module")
def planar():
    return bp.load_robot(PLANAR)


@pytest.fixture(scope="module")
def motion(planar):
    rng = np.random.default_rng(0)
    t = np.linspace(0, 1, 40)
    q = rng.uniform(-1, 1, (40, planar.n_dof))
    tau = rng.normal(size=(40, planar.n_dof))
    return bp.Trajectory(t, q, tau=tau)


@pytest.mark.parametrize("ext", [".csv", ".npz", ".parquet", ".mcap"])
def test_trajectory_writers_refuse_a_link(link, motion, ext):
    if ext == ".parquet":
        pytest.importorskip("pyarrow")
    if ext == ".mcap":
        pytest.importorskip("mcap")
    out = link("traj" + ext)
    refused(out, lambda: bp.write_trajectory(motion, out))


def test_find_json_and_h5_refuse_a_link(link):
    cli("find", PLANAR, "--json", link("out.json"))
    cli("find", PLANAR, "--h5", link("out.h5"))


def test_library_h5_refuses_a_link(link, planar):
    from baseparam.projection.storage import find_and_store
    out = link("out.h5")
    refused(out, lambda: find_and_store(planar, out))


def test_symbolic_h5_refuses_a_link(link, planar):
    from baseparam.projection.symbolic import store_symbolic
    sym = bp.find_base_parameters(planar, symbolic="all")
    out = link("sym.h5")
    refused(out, lambda: store_symbolic(sym, out))


def test_describe_yaml_refuses_a_link(link):
    cli("describe", PLANAR, "--yaml", link("dh.yaml"))


def test_excitation_outputs_refuse_a_link(link, planar):
    from baseparam.excitation.files import write_json, write_trajectory_csv
    z = np.zeros((10, planar.n_dof))
    samples = bp.Trajectory(np.arange(10.0), z, qd=z, qdd=z)
    out = link("excite.csv")
    refused(out, lambda: write_trajectory_csv(out, samples))
    out = link("excite.json")
    refused(out, lambda: write_json(out, {"a": 1}))


def test_plots_refuse_a_link(link):
    from baseparam._figures import pyplot, save_figure
    plt = pyplot()
    fig = plt.figure()
    try:
        out = link("plot.png")
        refused(out, lambda: save_figure(fig, out))
    finally:
        plt.close(fig)


def test_identified_robot_outputs_refuse_a_link(link, tmp_path_factory):
    pytest.importorskip("cvxpy")
    from test_urdf_update import EXPORTED
    urdf = tmp_path_factory.mktemp("arm") / "arm.urdf"
    urdf.write_text(EXPORTED)
    rng = np.random.default_rng(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arm = bp.load_robot(urdf, tip="tool", exact_angles=False)
        q, qd, qdd = (rng.uniform(-2, 2, (60, arm.n_dof)) for _ in range(3))
        tau = bp.inverse_dynamics(arm, bp.standard_parameters(arm), q, qd, qdd)
        result = bp.identify(arm, (q, qd, qdd, tau), method="consistent", prior="none", preprocessing=None)
    for name, write in (("r.yaml", result.to_yaml), ("r.urdf", result.to_urdf), ("r.xml", result.to_mjcf)):
        out = link(name)
        refused(out, lambda write=write, out=out: write(out))


def test_export_refuses_a_link(link, planar):
    base = bp.find_base_parameters(planar)
    out = link("gen.json")
    refused(out, lambda: bp.export(base, "c", prefix="gen", out_dir=out.parent))


def test_a_linked_folder_on_the_way_is_written_into(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real, target_is_directory=True)
    res = CliRunner().invoke(main, ["find", str(PLANAR), "--json", str(tmp_path / "via" / "out.json")])
    assert res.exit_code == 0, res.output
    assert (real / "out.json").is_file() and not (real / "out.json").is_symlink()


@pytest.mark.parametrize("symbolic", [True, 2, {"a2"}, ["a2", 3]])
def test_symbolic_of_a_wrong_type_is_refused_in_one_line(planar, symbolic):
    with pytest.raises(bp.errors.ArgumentTypeError, match="symbolic: expected"):
        bp.find_base_parameters(planar, symbolic=symbolic)
