"""The behavior grade: does an output refine the reference both ways, under some mapping?

One entry, `engine.grade_behavior`, runs the engines a policy lists (`policy`): the state-graph
engine (`graph_engine`: explore both graphs once, infer a mapping in memory, confirm with one
TLC run) and the wrapper engine (`wrapper_engine`: search bijections, two TLC runs each). They
share only `staging`, `wrapper_modules` and `verdicts`; `rules` registers the representations
the grade undoes, each with its controls.
"""
