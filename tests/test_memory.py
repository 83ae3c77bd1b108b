"""Memory sizes as users write them, and the budget the engine takes from the machine."""
import pytest

import baseparam as bp
from baseparam._memory import available_bytes, budget, format_size, parse_size


@pytest.mark.parametrize("text, size", [("4G", 4 * 10 ** 9), ("4GB", 4 * 10 ** 9), ("512M", 512 * 10 ** 6),
                                        ("2GiB", 2 * 2 ** 30), ("1.5k", 1500), (" 300 mb ", 300 * 10 ** 6),
                                        ("123456", 123456), (2 ** 31, 2 ** 31), (1e9, 10 ** 9)])
def test_sizes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1G", "0", "4X", "G4", "0.1"])
def test_bad_sizes_name_the_parameter(text):
    with pytest.raises(bp.ArgumentError, match="max_memory: expected"):
        parse_size(text)


def test_the_default_budget_is_a_share_of_what_is_available():
    available = available_bytes()
    if available is None:
        pytest.skip("this system tells no available memory")
    assert 0 < budget() <= available
    assert budget("2G") == 2 * 10 ** 9


def test_sizes_print_readably():
    assert format_size(20_400_000) == "20.4 MB" and format_size(1000) == "1 kB" and format_size(12) == "12 bytes"
