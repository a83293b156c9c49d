"""Judgement: findings -> a calibrated differential diagnosis (rules/README.md, "How doctor ranks").

evidence.py  findings -> which rules count (each evidence item once per cause)
context.py   facts -> the symptom read from the input, and context features (container, nodes, fabric, GPU class)
model.py     the fitted softmax over causes plus "unexplained" (rules/weights.yaml), pure Python
fit.py       L2-regularised maximum likelihood toward the rules' written confidence, and a temperature
unknowns.py  error lines no rule explains, and the symptom's differential (rules/differentials.yaml)
cases.py / metrics.py  the case base and the figures `doctor eval` prints
"""
