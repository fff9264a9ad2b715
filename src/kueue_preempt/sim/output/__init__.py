"""kueue_preempt.sim.output."""
