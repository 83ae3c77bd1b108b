"""``python -m baseparam``: the ``baseparam`` command, through the same entry point as the console script."""
from baseparam._entry import main

if __name__ == "__main__":
    main()
