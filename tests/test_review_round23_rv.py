"""Round 23 (rv): review of round 22's unreviewed commits; each finding fixed at its root."""

import mmap
import os
import time

import pytest


# --- e0b6482c: stale sem.mp-* removal must never remove a live process's semaphore ---

def test_a_live_semaphore_reached_through_a_link_to_its_folder_is_kept(tmp_path):
    """Where /dev/shm is a link (to /run/shm, older Debian), a process maps its semaphore under the real path: the
    check by path took every live semaphore older than 10 minutes for unused and unlinked it. By device and inode."""
    from baseparam._processes import SEMAPHORE_AGE, stale_semaphores_removed
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    real = tmp_path / "run-shm"
    real.mkdir()
    link = tmp_path / "dev-shm"
    link.symlink_to(real)
    old = time.time() - SEMAPHORE_AGE - 60
    for name in ("sem.mp-live", "sem.mp-stale"):
        (real / name).write_bytes(b"\0" * 32)
        os.utime(real / name, (old, old))
    with open(real / "sem.mp-live", "r+b") as file, mmap.mmap(file.fileno(), 32):
        stale_semaphores_removed(str(link))
        assert sorted(p.name for p in real.iterdir()) == ["sem.mp-live"]


def test_a_maps_line_is_read_by_device_and_inode():
    from baseparam._processes import _mapping_identity
    line = "7f1c2a3b4000-7f1c2a3b5000 rw-s 00000000 00:1a 123456                     /dev/shm/sem.mp-a b (deleted)\n"
    assert _mapping_identity(line) == (0, 0x1a, 123456)
    assert _mapping_identity("7f1c2a3b4000-7f1c2a3b5000 rw-p 00000000 103:02 0 \n") == (0x103, 2, 0)
    assert _mapping_identity("garbage\n") is None


# --- da852aeb: an HDF5 dataset's units attribute naming its SI unit as common tools write it is read ---

@pytest.mark.parametrize("field, unit", [
    ("t", "seconds since 1970-01-01 00:00:00"),         # CF (netCDF4, xarray, h5netcdf)
    ("qd", "rad s^-1"), ("qd", "rad·s⁻¹"), ("qd", "radian / second"), ("qd", "m s^-1"), ("qd", "radians/sec"),
    ("qdd", "rad/s/s"), ("qdd", "rad s^-2"), ("qdd", "radian / second ** 2"), ("qdd", "rad / s2"),
    ("qdd", "m/s/s"), ("qdd", "radians/s²"), ("tau", "newton metres"), ("tau", "newton * meter"),
])
def test_h5_dataset_naming_its_si_unit_as_tools_write_it_is_read(tmp_path, field, unit):
    """These were read before da852aeb and refused after it: UDUNITS/CF (``rad s-1``, ``seconds since …``), pint
    (``radian / second ** 2``), astropy (``rad / s2``) and hand-written (``rad/s/s``) spellings of the SI unit."""
    import h5py
    import numpy as np

    import baseparam as bp
    t = np.arange(40) * 0.01
    q = np.column_stack([np.sin(t), np.cos(t), t])
    path = tmp_path / "log.h5"
    with h5py.File(path, "w") as f:
        f["t"], f["q"], f["qd"], f["qdd"], f["tau"] = t, q, q, q, q
        f[field].attrs["units"] = unit
    assert np.array_equal(bp.read_trajectory(path).t, t)


@pytest.mark.parametrize("field, unit", [("t", "since 1970-01-01"), ("t", "ms since 1970-01-01"),
                                         ("t", "days since 1970-01-01"), ("qd", "mm/s/s"), ("qdd", "deg/s/s"),
                                         ("qd", "mrad s-1"), ("tau", "kN m"), ("qd", "seconds since 1970")])
def test_h5_dataset_naming_another_unit_is_still_refused(field, unit):
    from baseparam.errors import DataError
    from baseparam.identification._arrays import _refuse_other_unit
    with pytest.raises(DataError, match="that unit is not accepted"):
        _refuse_other_unit("log.h5", field, field, ("units", unit))


def test_every_spelling_accepted_before_is_still_accepted():
    from baseparam.identification._arrays import _SPELLED_SI
    before = {"qd": ("rad/sec", "rad.s-1", "rads-1", "rad*s^-1", "radian/s", "radians/s", "radian/second",
                     "radians/second", "m/sec", "m.s-1", "ms-1", "meter/second", "meters/second", "metre/second",
                     "metres/second"),
              "qdd": ("rad/s2", "rad/sec^2", "rad/sec²", "rad.s-2", "rads-2", "rad*s^-2", "radians/s^2",
                      "radians/second^2", "m/s2", "m/sec^2", "m.s-2", "ms-2", "m*s^-2"),
              "tau": ("newtonmeter", "newtonmeters", "newton-meter", "newton-meters", "newtonmetre", "newton-metre",
                      "n-m", "newton", "newtons")}
    for field, spellings in before.items():
        assert set(spellings) <= _SPELLED_SI[field]


# --- c8f518ec's neighbour: a column range's step of 0 was taken as 1 ---

@pytest.mark.parametrize("columns", ["t=0,q=1:4:0,tau=4:7", {"t": 0, "q": slice(1, 4, 0), "tau": slice(4, 7)}])
def test_a_column_range_with_a_step_of_0_is_refused(tmp_path, columns):
    """'q=1:4:0' read columns 1 to 3 (the step 0 taken as 1), where Python refuses a slice step of 0."""
    import baseparam as bp
    log = tmp_path / "log.csv"
    log.write_text("\n".join(",".join(str(0.01 * k + j) for j in range(7)) for k in range(40)) + "\n")
    with pytest.raises(bp.DataError, match=r"^[^\n]*log.csv: column map: field q: 1:4:0: a step of 0 holds no "
                                           r"column \(give a step of 1 or more, or none\)$"):
        bp.read_trajectory(log, columns=columns)


# --- b04bc999's handshake: a tls:// scheduler, Dask's configuration holding its certificates ---

def _self_signed(folder):
    """(certificate, key) files of a self-signed certificate for localhost, its own authority."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost")]), critical=False)
            .sign(key, hashes.SHA256()))
    (folder / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (folder / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    return str(folder / "cert.pem"), str(folder / "key.pem")


def test_the_handshake_takes_the_tls_settings_of_dasks_configuration(tmp_path):
    """The handshake probe connected without the configuration's TLS settings: a tls:// scheduler was refused ("TLS
    expects a `ssl_context` argument") where Dask's Client, which takes them, connected."""
    pytest.importorskip("distributed")
    pytest.importorskip("cryptography")
    import asyncio
    import logging
    import threading

    import dask
    from distributed import Scheduler
    from distributed.security import Security

    from baseparam.identification._workers import _dask_logs_silenced, _handshake_within
    cert, key = _self_signed(tmp_path)
    security = Security(tls_ca_file=cert, tls_scheduler_cert=cert, tls_scheduler_key=key, require_encryption=True)
    started, running = threading.Event(), {}

    async def serve():
        running["stop"], running["loop"] = asyncio.Event(), asyncio.get_running_loop()
        async with Scheduler(security=security, protocol="tls", host="127.0.0.1", port=0,
                             dashboard_address=None) as scheduler:
            running["address"] = scheduler.address
            started.set()
            await running["stop"].wait()

    with _dask_logs_silenced(logging.CRITICAL):
        server = threading.Thread(target=asyncio.run, args=(serve(),), daemon=True)
        server.start()
        try:
            assert started.wait(30)
            with dask.config.set({"distributed.comm.tls.ca-file": cert, "distributed.comm.tls.client.cert": cert,
                                  "distributed.comm.tls.client.key": key}):
                _handshake_within(running["address"], 5, 20)
        finally:
            if "stop" in running:
                running["loop"].call_soon_threadsafe(running["stop"].set)
            server.join(30)


# --- b04bc999: --connect-timeout above the handshake's 20 s was cut to 20 and said as given ---

def test_a_connect_timeout_longer_than_the_handshakes_is_given_whole(monkeypatch):
    """connect_timeout=30 waited 20 s (the handshake's bound held the connection's too), then said 'no connection
    within 30 s'. The handshake's bound is now as long."""
    pytest.importorskip("distributed")
    import baseparam.identification._workers as workers
    given = []

    def handshake(address, connect_seconds, seconds):
        given.append((connect_seconds, seconds))
        raise OSError("Timed out trying to connect to tcp://127.0.0.1:1 after 30 s")

    monkeypatch.setattr(workers, "_handshake_within", handshake)
    with pytest.raises(workers.SettingsError, match=r"no connection within 30 s"):
        workers.map_logs(["x"], {}, [0], scheduler="tcp://127.0.0.1:1", connect_timeout=30)
    assert given == [(30, 30)]


@pytest.mark.parametrize("seconds", [1e308, 3601])
def test_a_connect_timeout_beyond_an_hour_is_refused(seconds):
    """1e308 passed the check (a finite number > 0) and would overflow the thread's wait once the handshake's bound
    follows it; an hour is plenty for a TCP connection."""
    import numpy as np

    import baseparam as bp
    from baseparam.identification.logs import identify_logs
    robot = bp.load_robot(os.path.join(os.path.dirname(__file__), "..", "robots", "planar_rrr.yaml"))
    with pytest.raises(bp.SettingsError, match=r"^connect_timeout: expected seconds > 0, at most 3600, got "):
        identify_logs(robot, [np.zeros(3)], scheduler="tcp://127.0.0.1:1", connect_timeout=seconds)


# --- d28d2ce4: the compressed and figure names numpy, pandas and matplotlib take that the list missed ---

@pytest.mark.parametrize("name", ["x.csv.lzma", "x.csv.tar", "x.eps", "x.ps", "x.TIFF", "x.tif", "x.gif", "x.webp",
                                  "x.svgz", "x.avif"])
def test_a_compressed_or_figure_name_numpy_pandas_or_matplotlib_take_is_refused(tmp_path, name):
    """np.loadtxt opens x.csv.lzma as LZMA, pandas x.csv.tar as a tar archive; matplotlib writes .eps, .tif, .gif,
    .webp: CSV or JSON under those names was written, exit 0."""
    from baseparam._checks import check_written_format
    from baseparam.errors import ArgumentError
    with pytest.raises(ArgumentError, match=r"^path: .*: writes CSV, and a '\.\w+' name says \w+ \(a reader would "
                                            r"take it for \w+\); give a \.csv name$"):
        check_written_format(tmp_path / name, "CSV", ".csv")
    check_written_format(tmp_path / "x.csv", "CSV", ".csv")
    check_written_format(tmp_path / "x.txt", "CSV", ".csv")


# --- b04bc999's scheduler_named: an empty address ---

@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_scheduler_address_is_said_as_empty(tmp_path, address):
    """--scheduler '' was said "cannot reach the Dask scheduler at '' (missing port number in address '')"."""
    from click.testing import CliRunner

    from baseparam.cli import main
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},0,0,0,0,0,0\n" for k in range(40)))
    robot = os.path.join(os.path.dirname(__file__), "..", "robots", "planar_rrr.yaml")
    result = CliRunner().invoke(main, ["identify", robot, str(log), "--scheduler", address])
    assert result.exit_code == 2, result.output
    assert result.output == "baseparam: --scheduler: an empty address; give tcp://HOST:PORT, or 'local'\n"


def test_a_tls_scheduler_without_tls_settings_is_said_so():
    """'tls://…' without Dask's TLS settings was said as a server that "did not answer as a Dask scheduler"."""
    pytest.importorskip("distributed")
    from baseparam.errors import SettingsError
    from baseparam.identification._workers import map_logs
    with pytest.raises(SettingsError, match=r"^scheduler: 'tls://127\.0\.0\.1:1': a tls:// scheduler needs the TLS "
                                            r"settings of Dask's configuration \(.*\), which are not set; set them, or "
                                            r"give a tcp://HOST:PORT address$"):
        map_logs(["x"], {}, [0], scheduler="tls://127.0.0.1:1", connect_timeout=1)


@pytest.mark.parametrize("scheduler", [[], ["--scheduler", "LOCAL"]])
def test_a_connect_timeout_without_a_remote_scheduler_is_refused(tmp_path, scheduler):
    """--connect-timeout without --scheduler ADDRESS was taken in silence, unused (as --prior without --method
    consistent is refused)."""
    from click.testing import CliRunner

    from baseparam.cli import main
    log = tmp_path / "log.csv"
    log.write_text("t,q1,q2,q3,tau1,tau2,tau3\n" + "".join(f"{k * 0.01},0,0,0,0,0,0\n" for k in range(40)))
    robot = os.path.join(os.path.dirname(__file__), "..", "robots", "planar_rrr.yaml")
    result = CliRunner().invoke(main, ["identify", robot, str(log), "--connect-timeout", "5", *scheduler])
    assert result.exit_code == 2, result.output
    assert result.output == ("baseparam: --connect-timeout: only with --scheduler ADDRESS (a remote scheduler's "
                             "connection); leave it out\n")
