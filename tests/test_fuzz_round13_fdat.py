"""Fuzz round thirteen (issue 28), the binary log formats' structure: damage the format itself can detect (MCAP's
CRCs, …) is refused in one line naming the file, never read as a different trajectory."""
import io
import struct

import numpy as np
import pytest

import baseparam as bp
from baseparam.errors import BaseParamError

NAMES = ["joint1", "joint2", "joint3"]


def motion(S=60):
    rng = np.random.default_rng(5)
    return 1.0 + np.arange(S) * 0.01, rng.uniform(-1, 1, (S, 3)), rng.uniform(-5, 5, (S, 3))


def records(data):
    """The top-level MCAP records [(opcode, start, end)] after the magic."""
    pos, out = 8, []
    while pos + 9 <= len(data) - 8:
        op, length = data[pos], struct.unpack_from("<Q", data, pos + 1)[0]
        out.append((op, pos, pos + 9 + length))
        pos += 9 + length
    return out


def test_an_mcap_chunk_whose_crc_disagrees_with_its_records_is_refused(tmp_path):
    # baseparam's writer compresses its chunk with zstd and stores the records' CRC; a byte changed in the zstd
    # data often decompresses to other values (a changed literal): before, about half such flips read silently
    t, q, tau = motion()
    path = tmp_path / "log.mcap"
    bp.write_trajectory(bp.Trajectory(t, q, tau), path, joint_names=NAMES)
    data = bytearray(path.read_bytes())
    _, start, end = next(r for r in records(data) if r[0] == 6)
    changed = 0
    for at in range(end - 400, end, 23):         # within the compressed records, past the chunk's header
        damaged = bytearray(data)
        damaged[at] ^= 0x10
        path.write_bytes(damaged)
        with pytest.raises(BaseParamError, match="CRC|damaged|decompress") as caught:
            traj = bp.read_trajectory(path, joints=NAMES)
            changed += not (np.array_equal(traj.q, q) and np.array_equal(traj.tau, tau))   # reached on old code
        assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    assert changed == 0


@pytest.mark.parametrize("chunked", [False, True])
def test_an_mcap_data_section_whose_crc_disagrees_is_refused(tmp_path, chunked):
    # the mcap package's writer with data CRCs (its messages loose or in an uncompressed chunk without its own CRC)
    from mcap.writer import CompressionType, Writer
    from baseparam.identification._cdr import encode
    t, q, tau = motion()
    rows = encode(t, NAMES, q, None, tau)
    buf = io.BytesIO()
    writer = Writer(buf, use_chunking=chunked, enable_data_crcs=True, enable_crcs=False,
                    compression=CompressionType.NONE)
    writer.start("ros2", "test")
    channel = writer.register_channel("/joint_states", "cdr", writer.register_schema("sensor_msgs/msg/JointState",
                                                                                    "ros2msg", b""))
    for k in range(t.size):
        writer.add_message(channel, int(t[k] * 1e9), rows[k].tobytes(), int(t[k] * 1e9))
    writer.finish()
    data = bytearray(buf.getvalue())
    path = tmp_path / "log.mcap"
    path.write_bytes(data)
    assert np.array_equal(bp.read_trajectory(path, joints=NAMES).q, q)
    last = max(end for op, _, end in records(data) if op == 5 or op == 6)
    data[last - 20] ^= 0x04                      # a byte of the last message's position values
    path.write_bytes(data)
    with pytest.raises(BaseParamError, match="CRC") as caught:
        bp.read_trajectory(path, joints=NAMES)
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)

