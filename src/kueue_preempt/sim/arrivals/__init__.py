"""kueue_preempt.sim.arrivals."""
