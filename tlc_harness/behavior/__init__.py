"""The behavior grade: does an output refine the reference both ways, under some mapping?

Two engines behind one `grade()` entry (see `engine.py`): `wrappers` searches variable
bijections and asks TLC through wrapper modules; `graphs` explores both state graphs once and
infers a refinement mapping in memory, then asks TLC once to confirm it.
"""
