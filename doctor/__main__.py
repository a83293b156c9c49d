import sys

from doctor.cli import main

sys.exit(main())
