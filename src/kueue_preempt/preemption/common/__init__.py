"""kueue_preempt.preemption.common."""
