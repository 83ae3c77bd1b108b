"""writes_checked creates its file with libhdf5's sieve buffer off (issue 28: a failed write then is an exception
of the write, not a failed flush at a dataset's close that left a freed dataset behind a live id and a SIGSEGV). It
builds h5py.File(name, 'w')'s property lists with h5py's own helper make_fapl, whose parameters had no defaults
in earlier h5py 3 releases (the declared minimum is 3.8): make_fapl(None) raised TypeError there and the plain file, its
sieve buffer on, was written instead. The helper is now given h5py.File's own defaults by name."""
import numpy as np
import pytest

h5py = pytest.importorskip("h5py")


def _with_h5py_38_signature(real):
    def make_fapl(driver, libver, rdcc_nslots, rdcc_nbytes, rdcc_w0, locking, page_buf_size, min_meta_keep,
                  min_raw_keep, alignment_threshold, alignment_interval, meta_block_size, **kwds):
        return real(driver, libver, rdcc_nslots, rdcc_nbytes, rdcc_w0, locking, page_buf_size, min_meta_keep,
                    min_raw_keep, alignment_threshold=alignment_threshold, alignment_interval=alignment_interval,
                    meta_block_size=meta_block_size, **kwds)
    return make_fapl


@pytest.mark.parametrize("signature", ["installed", "no defaults"])
def test_the_sieve_buffer_is_off_and_the_bytes_are_h5py_files(signature, monkeypatch, tmp_path):
    from h5py._hl import files

    from baseparam._atomic import atomic_path
    from baseparam._hdf5 import writes_checked
    if signature == "no defaults":
        monkeypatch.setattr(files, "make_fapl", _with_h5py_38_signature(files.make_fapl))
    values = np.linspace(0.0, 1.0, 5000)
    out = tmp_path / "out.h5"
    with atomic_path(out, ".h5.tmp") as tmp, writes_checked(out, tmp) as f:
        assert f.id.get_access_plist().get_sieve_buf_size() == 0
        f["values"] = values
        f.attrs["robot"] = "r"
    with h5py.File(tmp_path / "plain.h5", "w") as plain:       # what h5py.File(name, 'w') writes
        plain["values"] = values
        plain.attrs["robot"] = "r"
    assert out.read_bytes() == (tmp_path / "plain.h5").read_bytes()


def test_a_process_wide_track_order_is_kept_as_h5py_file_keeps_it(monkeypatch, tmp_path):
    """h5py.File(name, 'w') tracks creation order where the process set h5py.get_config().track_order (a library
    user's setting); the file writes_checked creates must be the same bytes."""
    from baseparam._atomic import atomic_path
    from baseparam._hdf5 import writes_checked
    config = h5py.get_config()
    monkeypatch.setattr(config, "track_order", True)
    out = tmp_path / "out.h5"
    with atomic_path(out, ".h5.tmp") as tmp, writes_checked(out, tmp) as f:
        f["b"], f["a"] = np.arange(3.0), np.arange(4.0)
    with h5py.File(tmp_path / "plain.h5", "w") as plain:
        plain["b"], plain["a"] = np.arange(3.0), np.arange(4.0)
    assert out.read_bytes() == (tmp_path / "plain.h5").read_bytes()
