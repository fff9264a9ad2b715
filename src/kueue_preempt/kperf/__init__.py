"""kueue_preempt.kperf."""
