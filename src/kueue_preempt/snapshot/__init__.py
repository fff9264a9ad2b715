"""kueue_preempt.snapshot."""
