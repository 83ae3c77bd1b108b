"""Review of round 19's outputs_kept (e4a5ad9): outputs, in place before the report, taken back when a run fails."""
import pytest

from baseparam import _atomic, _entry, _leftovers


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_the_watchdogs_clean_up_takes_back_the_outputs_a_run_still_kept(tmp_path):
    """A signal the main thread does not act on in time (a second SIGTERM, or the grace over) ends the run from the
    watchdog, which removes the temporary files and exits 128 + N without unwinding the stack. After the outputs were
    placed (before the report), that left the new o.json in place and the user's old one beside it under a hidden
    temporary name `.baseparam-PID-….old`: a stopped run must leave the old version and no temporary file."""
    out = tmp_path / "o.json"
    out.write_text("old")
    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "new")
        assert out.read_text() == "new"
        _entry._remove_temporaries()            # what the watchdog's _force does before os._exit
        assert (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])
        raise SystemExit(143)
    assert (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])


def test_the_watchdogs_clean_up_removes_an_output_that_was_new(tmp_path):
    out = tmp_path / "sub" / "o.json"
    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.make_folders(out.parent)
            _atomic.write_text(out, "new")
        _entry._remove_temporaries()
        assert _names(tmp_path) == []
        raise SystemExit(143)


def test_a_finished_run_is_not_taken_back_by_a_later_clean_up(tmp_path):
    """The registry the watchdog reads forgets a run's placings once the run has ended."""
    out = tmp_path / "o.json"
    out.write_text("old")
    with _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "new")
    _entry._remove_temporaries()
    assert (out.read_text(), _names(tmp_path)) == ("new", ["o.json"]) and not _atomic._KEPT_OPEN


def test_a_signal_that_cuts_the_take_back_short_loses_no_old_version(tmp_path, monkeypatch):
    """The take-back removes the new files first, then moves the old ones back. A signal between the two (here: a
    Ctrl-C as the old file is moved back) went up to outputs_kept's end, which made the placing final — removing the
    old file still aside: o.json was gone altogether. The take-back is finished instead."""
    import os
    out = tmp_path / "o.json"
    out.write_text("old")
    replace, cut = os.replace, []

    def replace_cut_once(src, dst):
        if str(src).endswith(".old") and not cut:
            cut.append(src)
            raise KeyboardInterrupt
        return replace(src, dst)

    with pytest.raises(KeyboardInterrupt), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "new")
        monkeypatch.setattr(os, "replace", replace_cut_once)
        raise SystemExit(2)
    monkeypatch.undo()
    assert cut and (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])


def test_a_take_back_leaves_another_writers_output_in_place(tmp_path):
    """Two runs into one file: ours placed o.json, another run then put its own in place (atomically, a rename) and
    said `wrote o.json`; our report then failed. Our take-back removed the other run's file and put the first old
    version back over it. Only our own file is taken back: the other run's output stays, and no temporary is left."""
    import os
    out = tmp_path / "o.json"
    out.write_text("old")
    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "ours")
        theirs = tmp_path / "theirs.tmp"
        theirs.write_text("theirs")
        os.replace(theirs, out)                 # the other process's write, its own rename
        raise SystemExit(2)
    assert (out.read_text(), _names(tmp_path)) == ("theirs", ["o.json"])


def test_a_target_named_twice_in_one_block_gets_its_first_old_version_back(tmp_path):
    out = tmp_path / "o.json"
    out.write_text("old")
    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "first")
            _atomic.write_text(out, "second")
        assert out.read_text() == "second"
        raise SystemExit(2)
    assert (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])


def test_an_old_version_kept_aside_is_not_taken_for_a_killed_runs_leftover(tmp_path, monkeypatch):
    """The old file moved aside keeps its modification time (a rename): an output last written an hour ago looked
    untouched for STALE_SECONDS at once, and a run on another machine sharing the folder (whose process ids this one
    cannot see: `_alive` false) removed it as a killed run's leftover while ours still kept it — our take-back then
    had no old version to put back, and o.json was gone. It looks as young as the move; put back, its times are its
    own again."""
    import os
    import time
    out = tmp_path / "o.json"
    out.write_text("old")
    hour_ago = time.time() - 3600
    os.utime(out, (hour_ago, hour_ago))
    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(out, "new")
        monkeypatch.setattr(_leftovers, "_alive", lambda pid: False)      # the writer as another machine sees it
        with pytest.warns(UserWarning, match="temporary file of an earlier run"):     # young: reported, kept
            _leftovers.remove_stale(str(tmp_path))
        monkeypatch.undo()
        raise SystemExit(2)
    assert (out.read_text(), _names(tmp_path)) == ("old", ["o.json"])
    assert abs(out.stat().st_mtime - hour_ago) < 1e-3


def test_the_watchdogs_clean_up_while_a_set_is_being_placed_takes_back_its_placed_part(tmp_path, monkeypatch):
    """The watchdog may end the run while the main thread is placing a set of outputs (between one rename and the
    next): the part already placed is taken back too, not left new with its old versions under temporary names."""
    import os
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text("old a")
    b.write_text("old b")
    replace, seen = os.replace, []

    def replace_then_watchdog(src, dst):
        replace(src, dst)
        if os.fspath(dst) == str(a) and not str(src).endswith(".old") and not seen:
            seen.append(dst)
            _entry._remove_temporaries()            # the watchdog, between a's placing and b's
            seen.append((a.read_text(), b.read_text(), _names(tmp_path)))   # what os._exit would leave
            raise SystemExit(143)

    with pytest.raises(SystemExit), _atomic.outputs_kept():
        with _atomic.outputs_together():
            _atomic.write_text(a, "new a")
            _atomic.write_text(b, "new b")
            monkeypatch.setattr(os, "replace", replace_then_watchdog)
    monkeypatch.undo()
    assert seen[1:] == [("old a", "old b", ["a.json", "b.json"])]
