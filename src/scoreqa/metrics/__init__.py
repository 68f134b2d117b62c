"""Metrics shared by every benchmark. Functions return proportions in [0, 1]; run reports print percentages.

* :func:`accuracy_by_level` — per-level and overall accuracy of judged records;
* :func:`bootstrap_ci` — percentile bootstrap CI of a mean (the paper's Table 3);
* :func:`wilson_ci` — Wilson score interval of a proportion;
* :func:`level_wise_success_rate` — LSR(l): share of scores whose questions are all correct from level 1 to l;
* :mod:`~scoreqa.metrics.agreement` — judge vs human: raw agreement (+ bootstrap CI), Pearson, Spearman,
  McNemar, Cohen's κ, Fleiss' κ.
"""

from scoreqa.metrics.accuracy import accuracy_by_level
from scoreqa.metrics.agreement import (agreement_ci, agreement_report, cohen_kappa, fleiss, mcnemar_test, pearson,
                                       raw_agreement, spearman)
from scoreqa.metrics.intervals import bootstrap_ci, wilson_ci
from scoreqa.metrics.lsr import level_wise_success_rate

__all__ = ["accuracy_by_level", "agreement_ci", "agreement_report", "bootstrap_ci", "cohen_kappa", "fleiss",
           "level_wise_success_rate", "mcnemar_test", "pearson", "raw_agreement", "spearman", "wilson_ci"]
