"""Regressions of the leftovers of issue 28's twelfth stop and issue 22's tidiness (round 13, 'left'): each test below
failed on the code before its fix."""
import signal

import pytest


# -- held signals: every one delivered --------------------------------------------------------------------------------
def test_every_different_signal_held_over_an_import_is_delivered_in_order():
    """signals_held delivered only the first signal it held: a SIGTERM that came after a Ctrl-C during the import
    never reached its handler (a handler that records and returns, as a library user's may, saw one of the two)."""
    from baseparam._processes import signals_held
    heard = []
    previous = {number: signal.signal(number, lambda signum, frame: heard.append(signum))
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        with signals_held():
            signal.raise_signal(signal.SIGINT)
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGINT)       # the same signal twice while held is one, as Python makes it
        assert heard == [signal.SIGINT, signal.SIGTERM]
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def test_a_held_signal_whose_handler_raises_does_not_swallow_the_next():
    """Ctrl-C then SIGTERM held: the KeyboardInterrupt of the first goes on to be the context of the second's
    exception, as Python runs a still-pending signal's handler in the unwinding (the SIGTERM was lost)."""
    from baseparam._processes import signals_held

    class Stopped(BaseException):
        pass

    def stop(signum, frame):
        raise Stopped(signum)

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with pytest.raises(Stopped) as raised:
            with signals_held():
                signal.raise_signal(signal.SIGINT)
                signal.raise_signal(signal.SIGTERM)
        assert isinstance(raised.value.__context__, KeyboardInterrupt)
    finally:
        signal.signal(signal.SIGTERM, previous)
