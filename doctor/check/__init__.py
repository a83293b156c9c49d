"""`doctor check`: a node or job policy, compiled into facts and checked by the same rule engine."""
