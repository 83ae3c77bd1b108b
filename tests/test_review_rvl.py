"""Review of the s11-left work (kernel scratch folders, field kinds, held signals)."""
import os
import time


def test_stale_kernel_scratch_never_takes_another_programs_empty_tmp_folder(tmp_path):
    """BASEPARAM_CACHE_DIR may name a shared folder (/tmp): an empty ``tmpXXXXXXXX`` is any Python program's
    tempfile.mkdtemp(), not an earlier version's compile (that one holds kernel.c), and is left alone however old."""
    from baseparam.dynamics import _native
    old = time.time() - 2 * 86_400
    for name, files in (("tmpabcdefgh", ["kernel.c"]), ("tmpyyyyyyyy", []), (f"tmp-kernel-{2 ** 22 + 1}-abcdefgh", [])):
        (tmp_path / name).mkdir()
        for file in files:
            (tmp_path / name / file).write_text("int f(void);\n")
        os.utime(tmp_path / name, (old, old))
    removed = _native.remove_stale_scratch(str(tmp_path))
    assert sorted(removed) == sorted(["tmpabcdefgh", f"tmp-kernel-{2 ** 22 + 1}-abcdefgh"])
    assert sorted(os.listdir(tmp_path)) == ["tmpyyyyyyyy"]


def test_workers_born_deaf_delivers_every_signal_another_thread_took():
    """Held while the workers start, SIGINT and SIGTERM can also be taken by another thread (recorded): only the first
    recorded one was raised again, and none when another was still pending; a SIGTERM after a Ctrl-C was lost, the
    class of problem signals_held's fix (ffe2914) closed next door. Each one, once, now."""
    import signal
    import threading

    import pytest

    from baseparam._processes import workers_born_deaf
    if not hasattr(signal, "pthread_sigmask"):
        pytest.skip("no signal masks")
    got, go = [], threading.Event()

    def other_thread():                  # started before the block: the signals are not blocked in it
        go.wait()
        signal.raise_signal(signal.SIGINT)       # raise(): delivered to this thread at once
        signal.raise_signal(signal.SIGTERM)

    previous = {number: signal.signal(number, lambda signum, frame: got.append(signum))
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        thread = threading.Thread(target=other_thread)
        thread.start()
        with workers_born_deaf():
            go.set()
            thread.join()
            for _ in range(10):          # the main thread runs the recorders on its next instructions
                pass
        for _ in range(10):
            pass
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    assert sorted(got) == sorted([signal.SIGINT, signal.SIGTERM]), got


def keyword_only(robot, *, q):
    return robot, q


def test_the_harness_rule_takes_every_arity_refusal_of_python():
    """The merge (bf50972) kept test_fuzz_api.own_error and dropped conftest.own_type_error as 'the same rule', but
    own_error's words missed two of Python's own refusals of a call that the dropped rule took ('missing N required',
    'got multiple values'): a keyword-only argument left out, an argument given twice."""
    import baseparam as bp
    from test_fuzz_api import own_error

    def raised(action):
        try:
            action()
        except TypeError as exc:
            return exc
        raise AssertionError("no TypeError")

    robot = bp.load_robot(os.path.join(os.path.dirname(__file__), "..", "robots", "puma560.yaml"))
    assert own_error(raised(lambda: bp.find_base_parameters(robot, robot=robot)))   # given twice

    assert own_error(raised(lambda: keyword_only(robot)))          # Python's words whatever the function
    assert not own_error(raised(lambda: len(None)))        # a failure inside, still refused
