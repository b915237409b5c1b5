"""The command line: argument checks before any work (:mod:`~conformance.cli.selection`),
the commands (:mod:`~conformance.cli.commands`), the console (:mod:`~conformance.cli.console`)
and argparse (:mod:`~conformance.cli.main`, the only module that knows it)."""
