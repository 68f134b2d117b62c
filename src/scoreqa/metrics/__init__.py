"""Metrics shared by every benchmark. Functions return proportions in [0, 1]; run reports print percentages.

* :func:`accuracy_by_level` — per-level and overall accuracy of judged records;
* :func:`bootstrap_ci` — percentile bootstrap CI of a mean (the paper's Table 3);
* :func:`wilson_ci` — Wilson score interval of a proportion;
* :func:`level_wise_success_rate` — LSR(l): share of scores whose questions are all correct from level 1 to l.
"""

from scoreqa.metrics.accuracy import accuracy_by_level
from scoreqa.metrics.intervals import bootstrap_ci, wilson_ci
from scoreqa.metrics.lsr import level_wise_success_rate

__all__ = ["accuracy_by_level", "bootstrap_ci", "level_wise_success_rate", "wilson_ci"]
