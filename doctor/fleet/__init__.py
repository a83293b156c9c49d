"""doctor for a fleet: ingest many jobs' uploads into a store, rank the nodes that keep failing them, decide per job.

upload.py reads one upload's identity (content key, job id, time span, nodes); analyse.py runs the same
diagnosis as `doctor analyze` on it; store.py keeps the results; ingest.py drives many uploads (process pool
or Ray); suspects.py judges nodes; actions.py decides per job; report.py assembles and renders the report.
"""
