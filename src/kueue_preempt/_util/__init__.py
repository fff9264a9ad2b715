"""kueue_preempt._util."""
