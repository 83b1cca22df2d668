"""``python -m solrace.server``: run one server process."""

import sys

from solrace.server.app import main

sys.exit(main())
