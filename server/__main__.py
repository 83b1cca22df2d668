"""``python -m solrace.server``: run one server process."""

import sys

from solrace.server.ops.app import main

if __name__ == "__main__":  # worker processes (spawn) import this module as __mp_main__
    sys.exit(main())
