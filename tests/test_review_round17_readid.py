"""Review round seventeen (s16-readid): a second read of identification's readers, payload fits and results."""
from __future__ import annotations

import pytest

import baseparam as bp
from baseparam.errors import ArgumentTypeError, DataError
from conftest import ROOT

SPACE = ROOT / "robots" / "space_robot.yaml"


def test_a_floating_npz_log_named_with_a_line_break_is_refused_in_one_line(tmp_path):
    # the NPZ archive was opened with the raw path as the name its refusals show: a name holding a line break made
    # a two-line message, where the rest of the floating-base reader shows the name escaped
    path = tmp_path / "a\nb.npz"
    path.write_bytes(b"not a zip archive")
    with pytest.raises(DataError) as caught:
        bp.read_trajectory(path, robot=bp.load_robot(SPACE))
    assert "\n" not in str(caught.value) and "not a valid NPZ file" in str(caught.value), str(caught.value)


def test_a_parquet_data_page_whose_header_field_is_of_another_type_is_refused_as_damaged(tmp_path):
    # the data page header's num_values is in a struct (field 5); a damaged file holding a number there reached
    # `.get` of an int: "internal error: AttributeError: 'int' object has no attribute 'get'" (exit 1) from
    # read_trajectory, where every other damaged page header is a DataError
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    from baseparam.identification._parquet_pages import _struct, _varint

    path = tmp_path / "log.parquet"
    t = np.arange(50.0)
    pq.write_table(pa.table({"t": t, "q": t, "tau": t}), path, use_dictionary=False, compression="none",
                   write_page_checksum=False)
    raw = bytearray(path.read_bytes())
    pos = 4                                            # the first column's first page header
    for _ in range(3):                                 # type, uncompressed and compressed sizes: i32 fields 1, 2, 3
        assert raw[pos] == 0x15
        pos = _varint(raw, pos + 1, len(raw))[1]
    assert raw[pos] == 0x2C                            # field 5 (delta 2), a struct: the data page header
    _, after = _struct(raw, pos + 1, len(raw), None, 1)
    assert raw[after] == 0                             # the page header's end
    inner = after - (pos + 1)
    assert 3 <= inner < 131                           # the padding's length: one varint byte
    # field 5 as an i32 (1), then a binary field 6 padding to the same length, then the stop
    raw[pos:after + 1] = bytes([0x25, 0x02, 0x18, inner - 3]) + bytes(inner - 3) + b"\0"
    path.write_bytes(bytes(raw))
    with pytest.raises(DataError, match="value count is damaged") as caught:
        bp.read_trajectory(path)
    assert "\n" not in str(caught.value)


def test_a_floating_parquet_logs_other_contacts_are_named_in_one_line(tmp_path):
    # the contacts listed in the file's metadata (any text a Trajectory took) were joined raw into the refusal: a
    # name holding a line break made a two-line message
    import dataclasses

    import numpy as np

    robot = bp.load_robot(SPACE)
    t = np.linspace(0, 1, 11)
    q = np.zeros((t.size, robot.n_q))
    q[:, 6] = 1.0                                       # the base's unit quaternion (x y z w)
    log = bp.Trajectory(t=t, q=q, qd=np.zeros((t.size, robot.n_v)), tau=np.zeros((t.size, robot.n_v)),
                        floating=True)
    log = dataclasses.replace(log, wrenches=np.zeros((t.size, 1, 6)), contacts=("left\nfoot",))
    path = bp.write_trajectory(log, tmp_path / "log.parquet")
    with pytest.raises(DataError, match="contacts are left") as caught:
        bp.read_trajectory(path, robot=robot, contacts=["right"])
    assert "\n" not in str(caught.value), str(caught.value)


def test_a_floating_csv_log_is_bounded_by_the_values_it_reads(tmp_path, monkeypatch):
    # the NPZ and Parquet floating logs refuse more than MAX_VALUES values in the columns read; the CSV one converted
    # whatever its 256 MiB held (1.2·10⁸ zeros: some 3 GB). The same at a scale of 10 samples, the limit lowered to
    # what the log's read columns hold (t, q, qd, qdd, tau; its contact's wrench only when asked)
    import dataclasses

    import numpy as np

    from baseparam.identification import floating_logs

    robot = bp.load_robot(SPACE)
    S, n = 10, robot.n_dof
    q = np.zeros((S, n + 7))
    q[:, 6] = 1.0
    zeros = np.zeros((S, n + 6))
    log = bp.Trajectory(t=np.arange(S) * 0.01, q=q, qd=zeros, qdd=zeros, tau=zeros, floating=True)
    log = dataclasses.replace(log, wrenches=np.zeros((S, 1, 6)), contacts=("left",))
    path = bp.write_trajectory(log, tmp_path / "log.csv")
    read = S * (1 + (n + 7) + 3 * (n + 6))
    monkeypatch.setattr(floating_logs, "MAX_VALUES", read)
    assert np.array_equal(bp.read_trajectory(path, robot=robot).q, q)           # at the bound: read
    with pytest.raises(DataError, match=f"{read + 6 * S} values in 10 rows of") as caught:
        bp.read_trajectory(path, robot=robot, contacts=["left"])
    assert "\n" not in str(caught.value)
    monkeypatch.setattr(floating_logs, "MAX_VALUES", read - 1)
    with pytest.raises(DataError, match=f"{read} values"):
        bp.read_trajectory(path, robot=robot)


def test_torque_units_given_as_an_array_of_str_are_taken():
    # plot_torques' units, "a sequence of n_dof str", were read by list() and an array of str drew; the check added
    # in this stop took lists and tuples only and refused it (an ArgumentTypeError), though it takes an array of Axes
    pytest.importorskip("matplotlib")
    import numpy as np

    from baseparam.identification.plots import plot_residuals, plot_torques
    from baseparam.identification.results import Metrics

    tau = np.arange(30.0).reshape(10, 3)
    metrics = Metrics.compare(tau, tau + 0.5)
    units = np.array(["N·m", "N", "N·m"])
    fig = plot_torques(metrics, units=units)
    assert [ax.get_ylabel() for ax in fig.axes] == ["τ1 [N·m]", "τ2 [N]", "τ3 [N·m]"]
    labels = [label.get_text() for label in plot_residuals(metrics, units=units).axes[0].get_xticklabels()]
    assert labels == ["joint 1 [N·m]", "joint 2 [N]", "joint 3 [N·m]"]
    with pytest.raises(ArgumentTypeError):
        plot_torques(metrics, units=np.array([1.0, 2.0, 3.0]))        # numbers, not unit names: still refused


def test_plot_torques_takes_no_title_as_its_default_one():
    # title=None drew the default title ("title or …"); the type check added in this stop refused it
    pytest.importorskip("matplotlib")
    import numpy as np

    from baseparam.identification.plots import plot_torques
    from baseparam.identification.results import Metrics

    tau = np.arange(30.0).reshape(10, 3)
    metrics = Metrics.compare(tau, tau + 0.5)
    assert plot_torques(metrics, title=None).axes[0].get_title().startswith("torques (pooled NRMSE")
    with pytest.raises(ArgumentTypeError, match="title"):
        plot_torques(metrics, title=3)


def test_a_static_payload_result_built_without_its_optional_fields_reports():
    # condition_number and poses default to None, yet a static result's summary formatted the one (a bare TypeError)
    # and to_dict called .tolist() of the other (AttributeError)
    import json

    import numpy as np

    from baseparam.identification.payload import PayloadResult

    result = PayloadResult(mass=1.0, com=np.zeros(3), inertia=np.zeros((3, 3)), mass_std=0.1, com_std=np.full(3, 0.01),
                           inertia_std=np.full((3, 3), np.nan), parameters=np.zeros(10), unconstrained=np.zeros(10),
                           covariance=np.zeros((10, 10)), identifiable=[], rank=4, mode="static", n_samples=5,
                           rmse=np.zeros(6))
    assert "a point mass); 5 poses" in result.summary()
    doc = result.to_dict()
    assert doc["poses"] is None and doc["condition_number"] is None
    json.dumps(doc)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_a_wrench_is_read_from_a_csv_the_trajectory_reader_decodes(tmp_path, encoding):
    # a spreadsheet's "CSV UTF-8" (a byte-order mark) or UTF-16 export: the trajectory reader decodes both, the wrench
    # reader read raw UTF-8 and refused the same file: "no column 'fx' (columns: \ufefffx, …)"
    import numpy as np

    from baseparam.identification.payload_wrench import read_wrench

    values = np.arange(30.0).reshape(5, 6) / 7
    rows = [",".join(repr(float(v)) for v in row) + f",{k}\n" for k, row in enumerate(values)]
    text = "fx,fy,fz,mx,my,mz,t\n" + "".join(rows)
    path = tmp_path / "wrench.csv"
    path.write_bytes(text.encode(encoding))
    assert np.array_equal(read_wrench(path, "fx,fy,fz,mx,my,mz"), values)
    assert np.array_equal(read_wrench(path, "fx,fy,fz,mx,my,mz", skipped=[(3, "bad")])[1:], values[2:])
