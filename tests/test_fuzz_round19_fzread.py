"""Round 19, the readers (set "fzread"): Parquet, bags, LeRobot folders, floating-base and wrench logs, YAML.

Each test is a class of input the fuzzing of this round found mishandled, checked on the reader's own words.
"""
from __future__ import annotations

import pytest

import baseparam as bp

ROBOT = """name: arm
units: {length: m, angle: deg}
gravity: [0, 0, -9.81]
joints:
  - {type: revolute, alpha: 0, a: 1, d: 0}
"""


@pytest.mark.parametrize("nest", [
    lambda k: "gravity: " + "[" * k + "0" + "]" * k,                      # flow sequences
    lambda k: "gravity: " + "{a: " * k + "1" + "}" * k,                    # flow mappings
])
@pytest.mark.parametrize("size", [2_000, 200_000])         # below and above the joint-count scan (32 000 characters)
def test_deep_yaml_refused_where_the_nesting_passes_the_bound(nest, size):
    """Brackets nested 10⁵ deep (200 kB, within the 1 MB bound) took a minute of CPU, 1 MB minutes: PyYAML's scanner
    and libyaml's cost time in proportion to the nesting at every token, and the depth was checked only once the whole
    document was composed. It is now refused while parsing, at the bracket past the bound: what follows is never
    read (here a syntax error, which a parse of the whole document would have reported instead)."""
    deep = nest(size // 2)
    text = ROBOT.replace("gravity: [0, 0, -9.81]", deep + " : : oops")
    with pytest.raises(bp.RobotDescriptionError) as err:
        bp.parse_robot(text)
    message = str(err.value)
    assert "\n" not in message and "nested too deeply (collections more than 64 levels deep)" in message
    assert "line 3, column " in message


def test_deep_yaml_contacts_file_refused_alike(tmp_path):
    """The contacts file (and the excitation limits) are read by the same loader."""
    from baseparam.identification.floating_logs import read_contacts
    path = tmp_path / "contacts.yaml"
    path.write_text("contacts: " + "[" * 50_000 + "]" * 50_000 + "\n", encoding="utf-8")
    with pytest.raises(bp.DataError, match=r"nested too deeply \(collections more than 64 levels deep\)"):
        read_contacts(path)


def test_yaml_nested_a_little_too_deep_still_names_its_field():
    """Between the field bound (32) and the parse bound (64) the message names the field, as before."""
    with pytest.raises(bp.RobotDescriptionError, match=r"gravity\[1\]\[1\].*: nested too deeply"):
        bp.parse_robot(ROBOT.replace("gravity: [0, 0, -9.81]", "gravity: " + "[" * 40 + "0" + "]" * 40))


def _list_parquet(path, columns, rows=20):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({name: [[0.5, 1.5]] * rows for name in columns}), path)
    return path


@pytest.mark.parametrize("columns_map", [None, {"t": "nope"}])
def test_parquet_column_names_listed_escaped_and_bounded(tmp_path, columns_map):
    """A Parquet file without the fields asked for is refused listing its columns: they were joined raw, so a column
    named with a newline forged a line of the output, and 5 000 columns made a 40 kB line. They are now listed as the
    NPZ reader lists its keys: escaped, the first twelve and the count."""
    forged = _list_parquet(tmp_path / "forged.parquet", ["q\nbaseparam: forged", "qd"])
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(forged, columns=columns_map)
    assert "\n" not in str(err.value) and "q\\nbaseparam: forged" in str(err.value)
    wide = _list_parquet(tmp_path / "wide.parquet", [f"c{k}" for k in range(2_000)], rows=1)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(wide, columns=columns_map)
    assert len(str(err.value)) < 400 and "(2000 in all)" in str(err.value)


# --- ROS 2 bags with sqlite3 storage

NAMES = ["shoulder", "elbow", "wrist"]


@pytest.fixture(scope="module")
def sqlite_bag(tmp_path_factory):
    """A bag folder of 30 JointState messages written by rosbags (sqlite3 storage)."""
    import numpy as np
    pytest.importorskip("rosbags")
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore
    ts = get_typestore(Stores.ROS2_HUMBLE)
    T, H, JS = (ts.types[k] for k in ("builtin_interfaces/msg/Time", "std_msgs/msg/Header",
                                       "sensor_msgs/msg/JointState"))
    path = tmp_path_factory.mktemp("bags") / "bag"
    with Writer(path, version=9, storage_plugin=StoragePlugin.SQLITE3) as writer:
        conn = writer.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        for k in range(30):
            ns = 10**9 + k * 10**7
            msg = JS(header=H(stamp=T(sec=ns // 10**9, nanosec=ns % 10**9), frame_id=""), name=NAMES,
                     position=np.sin(k / 5 + np.arange(3.0)), velocity=np.cos(k / 5 + np.arange(3.0)),
                     effort=np.arange(3.0) + k)
            writer.write(conn, ns, ts.serialize_cdr(msg, "sensor_msgs/msg/JointState"))
    return path


def _copy(bag, dest):
    import shutil
    shutil.copytree(bag, dest)
    return dest


def test_sqlite_bag_in_wal_mode_read_without_writing_beside_it(sqlite_bag, tmp_path):
    """A storage file left in WAL mode (rosbag2's resilient preset leaves it so, closed cleanly): opened with
    ``mode=ro`` for the message order and the bomb check, sqlite made ``-wal`` and ``-shm`` files in the bag's folder,
    and left them there. Read now as rosbags reads it (``immutable``): nothing is written."""
    import sqlite3
    bag = _copy(sqlite_bag, tmp_path / "bag")
    db = sqlite3.connect(bag / "bag.db3")
    assert db.execute("PRAGMA journal_mode=wal").fetchone() == ("wal",)
    db.close()
    before = sorted(p.name for p in bag.iterdir())
    traj = bp.read_trajectory(bag, joints=NAMES)
    assert traj.n_samples == 30
    assert sorted(p.name for p in bag.iterdir()) == before


def _interrupted(bag, dest, wal):
    """A copy of ``bag`` as a recorder killed in a transaction leaves it: its file and the write-ahead log (``wal``)
    or the hot rollback journal of that transaction."""
    import shutil
    import sqlite3
    work = _copy(bag, dest.with_name(dest.name + "-work"))
    db = sqlite3.connect(work / "bag.db3", isolation_level=None)
    db.execute(f"PRAGMA journal_mode={'wal' if wal else 'delete'}")
    db.execute("PRAGMA cache_size=1")           # pages spill into the file before the commit
    db.execute("PRAGMA wal_autocheckpoint=0")
    if not wal:
        db.execute("BEGIN")
    db.execute("DELETE FROM messages WHERE id > 10")
    shutil.copytree(work, dest)                  # the folder as the killed recorder left it
    db.close()
    return dest


def test_sqlite_bag_with_a_write_ahead_log_refused(sqlite_bag, tmp_path):
    """A non-empty ``-wal`` holds committed writes the file lacks: rosbags (immutable) read the file alone, so the
    bag read as 30 messages where sqlite says 10, silently."""
    bag = _interrupted(sqlite_bag, tmp_path / "bag", wal=True)
    assert (bag / "bag.db3-wal").stat().st_size > 0
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bag, joints=NAMES)
    assert "\n" not in str(err.value) and "bag.db3-wal: sqlite's write-ahead log" in str(err.value)


def test_sqlite_bag_with_a_hot_journal_refused(sqlite_bag, tmp_path):
    """A hot rollback journal: the file may be half written; said as such (was "database disk image is malformed",
    or a read of the half-written rows)."""
    bag = _interrupted(sqlite_bag, tmp_path / "bag", wal=False)
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bag, joints=NAMES)
    assert "\n" not in str(err.value) and "bag.db3-journal: sqlite's journal of a write cut short" in str(err.value)


@pytest.mark.parametrize("name", ["run?1", "run#1", "run%41"])
def test_sqlite_bag_path_that_a_uri_would_cut_refused(sqlite_bag, tmp_path, name):
    """rosbags opens sqlite3 storage as ``file:PATH?immutable=1`` unquoted: ``run?1/run?1.db3`` opened ``run`` beside
    the folder, ``run%41/…`` the folder ``runA`` — another bag's messages, read as this one's."""
    import shutil
    import sqlite3
    other = _copy(sqlite_bag, tmp_path / "other")                        # another recording: its first 10 messages
    with sqlite3.connect(other / "bag.db3") as db:
        db.execute("DELETE FROM messages WHERE id > 10")
    bag = tmp_path / name
    bag.mkdir()
    (bag / "metadata.yaml").write_text((sqlite_bag / "metadata.yaml").read_text().replace("bag.db3", f"'{name}.db3'"))
    shutil.copy(sqlite_bag / "bag.db3", bag / f"{name}.db3")
    shutil.copy(other / "bag.db3", tmp_path / "run")
    (tmp_path / "runA").mkdir()
    shutil.copy(other / "bag.db3", tmp_path / "runA" / "runA.db3")
    with pytest.raises(bp.DataError) as err:
        bp.read_trajectory(bag, joints=NAMES)
    assert "\n" not in str(err.value) and "in the path of sqlite3 storage" in str(err.value)


# --- floating-base logs

@pytest.mark.parametrize("column", ["t", "q", "tau"])
def test_floating_parquet_column_held_twice_refused(tmp_path, column):
    """A floating-base Parquet log with a column twice: pyarrow's KeyError ('Field "q" exists 2 times in schema')
    came out as an internal error; refused now as the fixed-base reader refuses it, by one shared check."""
    import numpy as np
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    robot = bp.parse_robot(ROBOT.replace("gravity", "base: floating\ngravity"))
    S = 12
    q = np.zeros((S, robot.n_q))
    q[:, 6] = 1.0                                        # the identity quaternion (x y z w)
    columns = {"t": pa.array(np.arange(S) / 100.0), "q": pa.array(list(q)),
               "qd": pa.array(list(np.zeros((S, robot.n_v)))), "tau": pa.array(list(np.zeros((S, robot.n_v))))}
    path = tmp_path / "float.parquet"
    pq.write_table(pa.Table.from_arrays([*columns.values(), columns[column]], names=[*columns, column]), path)
    with pytest.raises(bp.DataError, match=f"column '{column}' appears 2 times"):
        bp.read_trajectory(path, robot=robot)


def test_parquet_log_that_is_a_link_loop_refused_in_one_line(tmp_path):
    """A log named .parquet that is a symbolic link to itself: the command line's look for a LeRobot dataset's
    meta/info.json (Path.resolve) raised RuntimeError "Symlink loop", an internal error (exit 1)."""
    from conftest import run_in_process
    robot = tmp_path / "arm.yaml"
    robot.write_text(ROBOT, encoding="utf-8")
    loop = tmp_path / "log.parquet"
    loop.symlink_to(loop)
    run = run_in_process("identify", str(robot), str(loop))
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and "log.parquet" in run.stderr


# --- wrench logs (payload --wrench)

def _wrench_csv(path, header="t,q1,fx,fy,fz,mx,my,mz"):
    import numpy as np
    rows = np.column_stack([np.arange(20) / 100.0, np.zeros(20), np.random.default_rng(0).normal(size=(20, 6))])
    path.write_text(header + "\n" + "\n".join(",".join(map(repr, row)) for row in rows.tolist()) + "\n")
    return path


@pytest.mark.parametrize("names", ["2,2,2,2,2,2", "fx,fy,fz,mx,my,2", "fx,fy,fz,fx,fy,fz"])
def test_wrench_components_given_one_column_refused(tmp_path, names):
    """Two of the six components named to one column ('2,2,2,2,2,2', or 'fx' and its number): one measured value was
    fitted as several components of the wrench, without a word."""
    from baseparam.identification.payload_wrench import read_wrench
    with pytest.raises(bp.SettingsError, match="given one column"):
        read_wrench(_wrench_csv(tmp_path / "w.csv"), names)


def test_wrench_column_named_twice_in_the_header_refused(tmp_path):
    """A header naming 'fx' twice: the first was taken, a guess."""
    from baseparam.identification.payload_wrench import read_wrench
    with pytest.raises(bp.DataError, match="column 'fx' appears 2 times"):
        read_wrench(_wrench_csv(tmp_path / "w.csv", "t,fx,fx,fy,fz,mx,my,mz"), "fx,fy,fz,mx,my,mz")


# --- column maps of Parquet, NPZ and bag logs

@pytest.mark.parametrize("ext, columns", [(".parquet", {"qd": "q"}), (".npz", {"qd": "q"}),
                                          (".mcap", {"qd": "position"}), (".mcap", {"tau": "position"})])
def test_column_map_taking_one_source_for_two_fields_refused(tmp_path, ext, columns):
    """A CSV's column map refuses one column for two fields ("column 1 is used for both q1 and qd1"); Parquet, NPZ and
    bag logs read the map ``qd=q`` as velocities equal to the positions, without a word."""
    import numpy as np
    t = np.arange(20) / 100.0
    q = np.column_stack([np.sin(t), np.cos(t)])
    path = tmp_path / f"log{ext}"
    bp.write_trajectory(bp.Trajectory(t, q, tau=q + 1, qd=-q), path, joint_names=["a", "b"])
    with pytest.raises(bp.DataError, match="is used for both"):
        bp.read_trajectory(path, columns=columns)


def test_bag_metadata_nested_deeply_refused_before_it_is_parsed(sqlite_bag, tmp_path, monkeypatch):
    """A bag's metadata.yaml nesting 10⁵ brackets took ruamel 2.3 s of CPU to parse (baseparam's check, then rosbags'
    reader) before its RecursionError; refused now by a pass over the events that stops at the bound, ruamel never
    called."""
    import ruamel.yaml
    bag = _copy(sqlite_bag, tmp_path / "bag")
    meta = bag / "metadata.yaml"
    meta.write_text(meta.read_text().replace("rosbag2_bagfile_information:", "rosbag2_bagfile_information:\n"
                                             "  custom_data: " + "[" * 100_000 + "]" * 100_000, 1))

    def refuse(*args, **kwargs):
        raise AssertionError("metadata.yaml parsed by ruamel")
    monkeypatch.setattr(ruamel.yaml.YAML, "load", refuse)
    with pytest.raises(bp.DataError, match=r"metadata.yaml: nested too deeply \(collections more than 64"):
        bp.read_trajectory(bag, joints=NAMES)
