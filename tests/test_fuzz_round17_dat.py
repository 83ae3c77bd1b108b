"""Fuzz round seventeen (issue 28), the readers' structure: logs written by other libraries with random settings
(h5py, pyarrow, numpy) read as those libraries read them back, or refused in one line — never the columns given
to other joints without a word."""
import re

import numpy as np
import pytest

import baseparam as bp
from test_fuzz_round13_fdat import NAMES, motion
from test_fuzz_round16_fdat import refused


@pytest.mark.parametrize("store", ["vlen", "bytes", "attribute"])
def test_an_hdf5_log_naming_its_joints_in_another_order_is_refused_as_an_npz_one(tmp_path, store):
    # an HDF5 log's datasets are read in their columns' order, as an NPZ archive's members; a joint_names dataset
    # (the NPZ member's name, stored by h5py as variable-length text or bytes) or attribute naming the robot's
    # joints in another order went unlooked-at: the columns went to other joints without a word
    import h5py
    t, q, tau = motion()
    path = tmp_path / "log.h5"

    def write(names):
        with h5py.File(path, "w") as f:
            f["t"], f["q"], f["tau"] = t, q, tau
            if store == "vlen":
                f.create_dataset("joint_names", data=names, dtype=h5py.string_dtype())
            elif store == "bytes":
                f["joint_names"] = np.array([name.encode() for name in names])
            else:
                f.attrs["joint_names"] = names

    write(["joint2", "joint1", "joint3"])
    assert np.array_equal(bp.read_trajectory(path).q, q)             # without joints: read in the file's order
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path),
            "the file names its joints joint2, joint1, joint3 in this order", "HDF5")
    robot = bp.parse_robot("name: r\nconvention: standard\nunits: {length: m, angle: deg}\njoints:\n"
                           + "".join(f"  - {{name: {n}, type: revolute, alpha: 90, a: 0.1, d: 0.2}}\n" for n in NAMES))
    refused(lambda: bp.identify(robot, path), "the file names its joints joint2, joint1, joint3")
    write(NAMES)                                                      # the robot's order: read
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_an_hdf5_logs_joint_names_of_no_text_are_refused_not_ignored(tmp_path):
    import h5py
    t, q, tau = motion()
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["q"], f["tau"], f["joint_names"] = t, q, tau, np.arange(3.0)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path), "key joint_names", "names")


def test_an_npz_log_naming_its_joints_in_a_pickled_array_is_checked_too(tmp_path):
    # np.savez of pandas' columns.values (an object array of str, pickled): its names were not read at all, and a log
    # naming the robot's joints in another order was read in its columns' order without a word
    t, q, tau = motion()
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=tau, joint_names=np.array(["joint2", "joint1", "joint3"], dtype=object))
    refused(lambda: bp.read_trajectory(path, joints=NAMES), str(path),
            "the file names its joints joint2, joint1, joint3 in this order")
    np.savez(path, t=t, q=q, tau=tau, joint_names=np.array(NAMES, dtype=object))
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


class Loud:
    """A value no array of names holds: unpickling it would call print."""

    def __reduce__(self):
        return (print, ("unpickled",))


@pytest.mark.parametrize("value, said", [(np.array([Loud()], dtype=object), "builtins.print"),
                                         (np.array([1, "joint2", 3], dtype=object), "expected an array of")])
def test_an_npz_logs_pickled_joint_names_build_nothing_else(tmp_path, capsys, value, said):
    t, q, tau = motion()
    path = tmp_path / "log.npz"
    np.savez(path, t=t, q=q, tau=tau, joint_names=value)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "key joint_names", said)
    assert "unpickled" not in capsys.readouterr().out


@pytest.mark.parametrize("make", [lambda t, q: bp.from_arrays(t, q, q), lambda t, q: bp.Trajectory(t, q, q)],
                         ids=["reader", "Trajectory"])
def test_unix_time_stamps_out_of_order_are_shown_with_the_digits_that_tell_them_apart(make):
    # Unix stamps shown to 10 digits: a log going back 5 µs was refused as "time goes backwards (1700000000 s after
    # 1700000000 s …)", a message that contradicts itself
    t = 1.7e9 + np.arange(12) * 0.01
    t[3] = t[2] - 5e-6
    message = refused(lambda: make(t, np.zeros((12, 2))), "time goes backwards")
    later, earlier = map(float, re.search(r"\(([\d.]+) s after ([\d.]+) s", message).groups())
    assert later < earlier, message
    t[3], t[5] = t[2], t[4] + 0.5               # a duplicate stamp keeps its ten digits
    refused(lambda: make(t, np.zeros((12, 2))), "duplicate time (1700000000 s")


@pytest.mark.parametrize("value, said", [("!!timestamp 0.571", "expected a date, got '0.571' (tagged !!timestamp"),
                                         ("!!float ''", "expected a number, got '' (tagged !!float"),
                                         ("!!float x", "expected a number, got 'x' (tagged !!float")])
def test_a_tagged_description_value_no_constructor_reads_is_refused_at_its_field(value, said):
    # PyYAML's constructors failed outside the loader's net: '!!timestamp 0.571' an AttributeError ('NoneType' object
    # has no attribute 'groupdict'), "!!float ''" an IndexError, both internal errors; '!!float x' named no field
    text = ("name: r\nconvention: standard\nunits: {length: m, angle: deg}\njoints:\n"
            f"  - {{type: revolute, alpha: 0, a: {value}, d: 0}}\n  - {{type: revolute, alpha: 0, a: 1, d: 0}}\n")
    refused(lambda: bp.parse_robot(text, "r.yaml"), "r.yaml: joints[1].a: " + said)


@pytest.mark.parametrize("tag", ["!!int", "!!float"])
def test_a_bag_metadata_value_tagged_empty_is_refused_in_words(tmp_path, tag):
    # ruamel's constructor of an empty '!!int' fails with an IndexError: the folder's check let it through (an
    # internal error), and the bag's reader, which parses alike, said "string index out of range"
    from test_fuzz_round14_fdat import bag_folder_with_camera
    path = tmp_path / "bag"
    bag_folder_with_camera(path, "SQLITE3")
    meta = path / "metadata.yaml"
    meta.write_text(meta.read_text().replace("serialization_format: cdr", f"serialization_format: {tag} ", 1))
    refused(lambda: bp.read_trajectory(path, joints=NAMES), f"{path}/metadata.yaml: a tagged value YAML cannot read")


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_utf16_log_without_its_byte_order_mark_is_refused_in_words(tmp_path, encoding):
    # decoded as UTF-8, its header became columns '\x00t\x00', '\x00q\x001\x00', … and the refusal listed them
    t, q, tau = motion()
    path = tmp_path / "log.csv"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=NAMES)
    path.write_bytes(path.read_text().encode(encoding))
    refused(lambda: bp.read_trajectory(path), f"{path}: line 1: a NUL byte", "UTF-16 without a byte-order mark")
    path.write_bytes(path.read_bytes().decode(encoding).encode("utf-16"))          # with its mark: read
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)


def test_an_hdf5_dataset_of_no_values_is_refused_in_words(tmp_path):
    # h5py.Empty (a null dataspace) has the shape None: the reader's checks multiplied it, and said "cannot read:
    # unsupported operand type(s) for *: 'NoneType' and 'int'"
    import h5py
    t, q, tau = motion()
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["q"], f["tau"] = t, q, tau
        f.create_dataset("qd", data=h5py.Empty("f8"))
    refused(lambda: bp.read_trajectory(path), f"{path}: key qd: an empty dataset (a null dataspace, no values)")


def _npz_with_pickled_names(path, pickled, count=1):
    """An NPZ log whose joint_names member is an object array's header followed by the bytes ``pickled``."""
    import io
    import zipfile
    t, q, tau = motion()
    np.savez(path, t=t, q=q, tau=tau)
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, {"descr": "|O", "fortran_order": False, "shape": (count,)})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("joint_names.npy", member.getvalue() + pickled)


class _ForgedDtype:
    """np.dtype('O8') whose pickled state clears its flags: numpy's __setstate__ takes them, and the array's state
    then gives its objects as raw bytes (pointers) instead of a list."""

    def __reduce__(self):
        return np.dtype, ("O8", False, True), (3, "|", None, None, None, -1, -1, 0)


class _ForgedArray:
    def __reduce__(self):
        reconstruct = np.empty(0).__reduce__()[0]        # numpy's _reconstruct, as np.save's pickles name it
        return reconstruct, (np.ndarray, (0,), b"b"), (1, (1,), _ForgedDtype(), False, b"\x41" * 8)


def test_an_npz_logs_pickled_joint_names_cannot_forge_numpys_objects(tmp_path):
    # a pickle's dtype state sets a dtype's flags, numpy's own __setstate__ unchecked: an object array whose
    # 'objects' are the pickle's bytes read as pointers. The restricted unpickler let numpy build it; reading it
    # crashed the process (SIGSEGV) instead of a one-line refusal. Run in a child process: a crash is its status.
    import pickle
    import subprocess
    import sys
    path = tmp_path / "log.npz"
    _npz_with_pickled_names(path, pickle.dumps(_ForgedArray(), protocol=3))
    code = ("import sys, baseparam as bp\ntry:\n    bp.read_trajectory(sys.argv[1], joints=['joint1', 'joint2', "
            "'joint3'])\nexcept bp.errors.BaseParamError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert "key joint_names" in done.stdout and "\n" not in done.stdout.strip(), done.stdout


@pytest.mark.parametrize("protocol", [4, 3, 2], ids=["numpy2", "numpy1", "numpy<1.17"])
@pytest.mark.parametrize("kind", ["str", "bytes", "np.str_", "np.bytes_", "np.str_ big-endian"])
def test_an_npz_logs_pickled_joint_names_of_numpy_text_scalars_are_read(tmp_path, kind, protocol):
    # names held as np.str_ (an object array made from a list of a text array's items) pickle through numpy's
    # 'scalar': refused as "a damaged or foreign pickle" by the restricted unpickler, a log the reader read before.
    # np.save pickles with protocol 4 (numpy 2), 3 (numpy 1, its module path numpy.core), 2 (numpy < 1.17: bytes
    # through _codecs.encode)
    import pickle
    reverse = ["joint2", "joint1", "joint3"]
    items = {"str": reverse, "bytes": [n.encode() for n in reverse], "np.str_": list(np.array(reverse)),
             "np.bytes_": list(np.array([n.encode() for n in reverse])),
             "np.str_ big-endian": list(np.array(reverse, dtype=">U6"))}[kind]
    pickled = pickle.dumps(np.array(items, dtype=object), protocol=protocol)
    if protocol < 4:                 # GLOBAL opcodes: the module's name as a line of text
        pickled = pickled.replace(b"numpy._core.multiarray\n", b"numpy.core.multiarray\n")
        assert b"numpy.core.multiarray\n" in pickled
    path = tmp_path / "log.npz"
    _npz_with_pickled_names(path, pickled, count=3)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "the file names its joints joint2, joint1, joint3")


@pytest.mark.parametrize("opcode", [b"Nr" + (1 << 24).to_bytes(4, "little") + b"0",      # None, LONG_BINPUT 2²⁴, POP
                                    b"\x95" + ((1 << 64) - 1).to_bytes(8, "little")],      # FRAME of 2⁶⁴ - 1 bytes
                         ids=["memo index", "frame"])
def test_an_npz_logs_pickled_joint_names_cannot_claim_memory_they_do_not_hold(tmp_path, opcode):
    # the unpickler grows its memo to twice an index it is given, zeroed: a 1 kB pickle holding LONG_BINPUT 2²⁵
    # took 512 MiB (maxrss), 2³² would take 64 GiB; this one (2²⁴) was read after 256 MiB. A frame claiming 2⁶⁴ - 1
    # bytes was an OverflowError, an internal error
    import pickle
    pickled = pickle.dumps(np.array(["joint2", "joint1", "joint3"], dtype=object), protocol=3)     # no frames
    pickled = pickled[:2] + opcode + pickled[2:]                                                    # after PROTO
    path = tmp_path / "log.npz"
    _npz_with_pickled_names(path, pickled, count=3)
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "key joint_names: a damaged or foreign pickle",
            "FRAME" if opcode.startswith(b"\x95") else "LONG_BINPUT")


@pytest.mark.parametrize("where", ["a line", "the end"])
def test_nul_bytes_a_crash_left_in_a_utf8_log_are_bad_rows_skip_bad_rows_skips(tmp_path, where):
    # a line a crash (power loss) left unwritten reads back as NUL bytes, a block of them at the end of a log cut
    # short likewise: the damage of those lines, skipped with skip_bad_rows as before d1c9c1c, which refused the whole
    # file as "UTF-16 without a byte-order mark?"
    t, q, tau = motion()
    path = tmp_path / "log.csv"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=NAMES)
    lines = path.read_bytes().split(b"\n")
    data = [k for k, line in enumerate(lines) if line and not line.startswith(b"#")][1:]    # after the header
    lost = data[5] if where == "a line" else data[-1]
    lines[lost] = b"\x00" * len(lines[lost])
    path.write_bytes(b"\n".join(lines))
    refused(lambda: bp.read_trajectory(path), f"{path}: line {lost + 1}: ")
    read = bp.read_trajectory(path, skip_bad_rows=True)
    assert [line for line, _ in read.skipped] == [lost + 1] and len(read.t) == len(t) - 1


@pytest.mark.parametrize("store", ["hdf5", "npz"])
def test_a_logs_joint_names_of_long_fixed_length_text_are_refused_before_they_are_read(tmp_path, store):
    # fixed-length text declares its length, which compression hides: 3 names of 10⁸ characters in a 300 kB gzipped
    # HDF5 file read 300 MB (maxrss 449 MiB, 68 without the names); np.savez_compressed alike. 3 names of 1 MiB each
    # here (read before, the order then checked)
    import h5py
    t, q, tau = motion()
    names = np.array([n.encode() for n in NAMES], dtype=f"S{1 << 20}")
    path = tmp_path / f"log.{'h5' if store == 'hdf5' else 'npz'}"
    if store == "hdf5":
        with h5py.File(path, "w") as f:
            f["t"], f["q"], f["tau"] = t, q, tau
            f.create_dataset("joint_names", data=names, chunks=(1,), compression="gzip")
    else:
        np.savez_compressed(path, t=t, q=q, tau=tau, joint_names=names)
    assert path.stat().st_size < 100_000
    refused(lambda: bp.read_trajectory(path, joints=NAMES), "key joint_names: names of 1048576 bytes each")
