from conformance.gate.pytest_plugin import *
