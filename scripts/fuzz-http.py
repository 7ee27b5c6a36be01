#!/usr/bin/env python3
"""Black-box HTTP fuzzer for fod serve (see scripts/fuzz_http/run.py; --help for options)."""
import sys

from fuzz_http.run import main

if __name__ == "__main__":
    sys.exit(main())
