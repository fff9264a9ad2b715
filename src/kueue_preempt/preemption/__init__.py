"""kueue_preempt.preemption."""
