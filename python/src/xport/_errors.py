"""xport's errors: one class per kind of xport::Error, with the runtime's message unchanged."""


class Error(Exception):
    """Any error xport reports. `kind` names it as the C++ library does (xport::ErrorKind)."""

    kind = "Error"


class InvalidInput(Error, ValueError):
    """An input outside the program's contract (shape, dtype, range, equality), or a bad
    argument."""

    kind = "InvalidInput"


class InvalidArchive(Error, ValueError):
    """A file that is not a valid .pt2 archive (corrupt, another schema, a missing entry)."""

    kind = "InvalidArchive"


class UnsupportedOp(Error):
    """An op the runtime has no kernel for (or an op of a custom-op library not loaded)."""

    kind = "UnsupportedOp"


class ConstraintViolation(Error):
    """A value the program checks at run time (torch._check, an assertion) is violated."""

    kind = "ConstraintViolation"


class DataDependent(Error):
    """A decision that depends on data the program cannot know."""

    kind = "DataDependent"


class InvalidSpec(Error):
    """A dynamic-shape specification that does not fit the program."""

    kind = "InvalidSpec"


class Internal(Error):
    """A bug in xport: please report it with the message."""

    kind = "Internal"
